#include "compiler/pipeline.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>

#include "base/error.h"
#include "compiler/ad/ad.h"
#include "compiler/passes.h"
#include "compiler/vmap/vmap.h"
#include "ir/manager.h"

namespace mycel::compiler {

namespace {

constexpr int kMaxRounds = 4;

using PassFn = bool (*)(ir::Module&, ir::FuncGraph*);

// "<PPP>_<name>_" for the next program dumped into `dir`: PPP is one more than the highest
// number any file there starts with (digits before a '_'), <name> `name` with each run of
// other characters than letters, digits and '_' made one '_' (at most 40 characters).
std::string dump_prefix(const std::string& dir, const std::string& name) {
  long next = 1;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::string f = e.path().filename().string();
    size_t digits = 0;
    while (digits < f.size() && digits < 9 && std::isdigit(static_cast<unsigned char>(f[digits])))
      ++digits;
    if (digits > 0 && digits < f.size() && f[digits] == '_')
      next = std::max(next, std::stol(f.substr(0, digits)) + 1);
  }
  std::string clean;
  for (char ch : name) {
    bool ok = std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
    if (ok)
      clean += ch;
    else if (!clean.empty() && clean.back() != '_')
      clean += '_';
  }
  while (!clean.empty() && clean.back() == '_') clean.pop_back();
  if (clean.size() > 40) clean.resize(40);
  char num[16];
  std::snprintf(num, sizeof(num), "%03ld_", next);
  return clean.empty() ? std::string(num) : num + clean + "_";
}

// Runs passes by name, dumping and verifying after each as the options say.
class PassRunner {
 public:
  PassRunner(ir::Module& m, ir::FuncGraph* root, const PipelineOptions& opts)
      : m_(m), root_(root), verify_(opts.verify_each), log_(opts.log), dir_(opts.dump_dir) {
    if (!dir_.empty()) {
      // Choosing the number and writing the first file under one lock: programs compiled
      // at once (PYNATIVE backwards run without the GIL) get different numbers.
      static std::mutex mu;
      std::lock_guard<std::mutex> lock(mu);
      std::error_code ec;
      std::filesystem::create_directories(dir_, ec);
      MC_CHECK(!ec, Runtime, "MYCEL_DUMP_IR: cannot create the directory '", dir_,
               "': ", ec.message());
      prefix_ = dump_prefix(dir_, opts.dump_name);
      dump("input");
    }
    // What the passes start from is checked too, so that IR broken by whatever built it
    // (the specialiser, AD's builders) is not reported as broken by the first pass.
    check(nullptr, {.specialized = true});
  }

  template <class Pass = PassFn>
  bool run(const char* name, Pass pass, ir::VerifyOptions checks = {.specialized = true}) {
    auto t0 = std::chrono::steady_clock::now();
    bool changed = pass(m_, root_);
    if (log_) {
      char line[96];
      std::snprintf(
          line, sizeof(line), "mycel: pass %-16s %8.3f ms%s\n", name,
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
          changed ? " (changed)" : "");
      log_(line);
    }
    check(name, checks);
    dump(name);
    return changed;
  }

 private:
  // With verify_each: ir::verify, failing with an internal error that names the pass that
  // just ran (null: none yet, the input is broken).
  void check(const char* pass, ir::VerifyOptions checks) {
    if (!verify_) return;
    try {
      ir::verify(root_, checks);
    } catch (const Error& e) {
      if (pass == nullptr) MC_ASSERT(false, "in the pipeline's input: ", e.what());
      MC_ASSERT(false, "after the pass '", pass, "': ", e.what());
    }
  }

  void dump(const char* name) {
    if (dir_.empty()) return;
    char file[64];
    std::snprintf(file, sizeof(file), "%02d_%s.ir", step_++, name);
    std::filesystem::path path = std::filesystem::path(dir_) / (prefix_ + file);
    std::ofstream out(path);
    MC_CHECK(out.good(), Runtime, "MYCEL_DUMP_IR: cannot write '", path.string(), "'");
    out << ir::print_graph(root_);
  }

  ir::Module& m_;
  ir::FuncGraph* root_;
  bool verify_;
  std::function<void(const std::string&)> log_;  // per-pass times, when set
  std::string dir_;
  std::string prefix_;  // "<PPP>_<name>_": this program's files
  int step_ = 0;
};

}  // namespace

void optimize(ir::Module& m, ir::FuncGraph* root, const PipelineOptions& opts) {
  std::unique_ptr<ir::Manager> own;
  if (m.manager() == nullptr) own = std::make_unique<ir::Manager>(m, root);
  PassRunner p(m, root, opts);
  auto simplify_all = [&] {
    for (int round = 0; round < kMaxRounds; ++round) {
      bool changed = false;
      changed |= p.run("switch_simplify", switch_simplify);
      changed |= p.run("inline", inline_graphs);
      changed |= p.run("fold", fold);
      changed |= p.run("simplify", simplify);
      changed |= p.run("cse", cse);
      changed |= p.run("dce", dce);
      if (!changed) break;
    }
  };
  simplify_all();
  if (opts.before_ad) {
    p.run("before_ad", [&](ir::Module& mm, ir::FuncGraph* r) {
      opts.before_ad(mm, r);
      return true;
    });
    simplify_all();
  }
  p.run("lift", lift, {.specialized = true, .lifted = true});
  // Automatic differentiation and batching (vmap), innermost first, one of them per round
  // (each needs lifted IR); after a gradient, recompute (marked forward values its bprops read
  // are computed again there). The output is optimised like any program, so forward values
  // no bprop needs are dropped.
  while (p.run("expand_vjp", expand_vjp) || p.run("expand_vmap", expand_vmap)) {
    p.run("recompute", recompute);
    simplify_all();
    p.run("lift", lift, {.specialized = true, .lifted = true});
  }
  // In-place updates of weights and optimizer state read the values from before the step.
  p.run("order_updates", order_updates, {.specialized = true, .lifted = true});
  if (opts.graph_kernel && opts.graph_kernel_device) {
    p.run("matmul_epilogue", matmul_epilogue, {.specialized = true, .lifted = true});
  } else if (opts.graph_kernel) {
    p.run("graph_kernel", graph_kernel, {.specialized = true, .lifted = true});
  }
}

}  // namespace mycel::compiler
