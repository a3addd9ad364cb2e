#include "runtime/op_profile.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "base/env.h"
#include "ir/value.h"
#include "tensor/shape.h"

namespace mycel {
namespace {

struct Entry {
  double wall = 0, cpu = 0;
  int64_t calls = 0;
};

// The recorder's state, built on first use (no static initialisation order to depend on).
struct State {
  std::atomic<bool> on{false};
  std::mutex mu;
  std::map<std::string, Entry> by_op, by_type;
  std::unordered_map<const void*, size_t> kernel_ids;
  std::unordered_map<std::thread::id, int> threads;
  std::vector<ProfileEvent> events;
  int64_t dropped = 0;
  std::chrono::steady_clock::time_point origin = std::chrono::steady_clock::now();

  void clear() {
    by_op.clear();
    by_type.clear();
    kernel_ids.clear();
    threads.clear();
    events.clear();
    dropped = 0;
    origin = std::chrono::steady_clock::now();
  }
};

void print_table(const std::vector<ProfileRow>& v, size_t rows) {
  double total = 0;
  for (const auto& e : v) total += e.wall_s;
  for (size_t i = 0; i < v.size() && i < rows; ++i) {
    const ProfileRow& e = v[i];
    std::fprintf(stderr, "  %-28s %9.3f ms %5.1f%% %9.3f cpu ms %8ld calls %9.2f us/call\n",
                 e.name.c_str(), e.wall_s * 1e3, 100 * e.wall_s / std::max(total, 1e-12),
                 e.cpu_s * 1e3, static_cast<long>(e.calls),
                 1e6 * e.wall_s / static_cast<double>(std::max<int64_t>(e.calls, 1)));
  }
}

void print_at_exit() {
  std::vector<ProfileRow> ops = OpProfile::rows(false);
  double total = 0;
  for (const auto& e : ops) total += e.wall_s;
  std::fprintf(stderr, "mycel: op profile, %.3f s in ops\n", total);
  print_table(ops, ops.size());
  constexpr size_t kTypedRows = 60;
  std::fprintf(stderr, "mycel: the %zu costliest ops by result type (CPU time)\n", kTypedRows);
  print_table(OpProfile::rows(true), kTypedRows);
}

State& state() {
  static State* s = [] {
    auto* st = new State;  // never destroyed: ops may run during exit
    if (env_flag("MYCEL_PROFILE_OPS")) {
      st->on.store(true);
      std::atexit(print_at_exit);
    }
    return st;
  }();
  return *s;
}

}  // namespace

OpProfile* OpProfile::active() {
  static OpProfile recorder;  // stateless: the handle the hot path tests for
  return state().on.load(std::memory_order_relaxed) ? &recorder : nullptr;
}

void OpProfile::start(bool keep) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (!keep) s.clear();
  s.on.store(true);
}

void OpProfile::stop() { state().on.store(false); }

double OpProfile::cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::string OpProfile::type_of(const TensorList& result) {
  if (result.empty()) return "";
  const Tensor& t = result[0];
  std::string s = std::string(ir::dtype_short_name(t.dtype())) + shape_str(t.shape());
  return result.size() > 1 ? s + "+" : s;
}

void OpProfile::add(const char* op, const TensorList& result, const Stamp& t0, const void* kernel) {
  add(op, type_of(result), t0, kernel);
}

void OpProfile::add(const char* op, const std::string& type, const Stamp& t0, const void* kernel) {
  const auto now = std::chrono::steady_clock::now();
  const double wall = std::chrono::duration<double>(now - t0.wall).count();
  const double cpu = cpu_seconds() - t0.cpu;
  std::string typed = std::string(op) + " " + type;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (kernel != nullptr) {
    auto [it, fresh] = s.kernel_ids.emplace(kernel, s.kernel_ids.size());
    typed += " k" + std::to_string(it->second);
  }
  for (Entry* e : {&s.by_op[op], &s.by_type[typed]}) {
    e->wall += wall;
    e->cpu += cpu;
    ++e->calls;
  }
  if (s.events.size() < kMaxEvents) {
    auto [tid, fresh] =
        s.threads.emplace(std::this_thread::get_id(), static_cast<int>(s.threads.size()));
    const double start = std::chrono::duration<double, std::micro>(t0.wall - s.origin).count();
    s.events.push_back({op, std::max(start, 0.0), wall * 1e6, tid->second});
  } else {
    ++s.dropped;
  }
}

std::vector<ProfileRow> OpProfile::rows(bool typed) {
  State& s = state();
  std::vector<ProfileRow> v;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    for (const auto& [name, e] : typed ? s.by_type : s.by_op)
      v.push_back({name, e.calls, e.wall, e.cpu});
  }
  std::sort(v.begin(), v.end(),
            [](const ProfileRow& a, const ProfileRow& b) { return a.cpu_s > b.cpu_s; });
  return v;
}

std::vector<ProfileEvent> OpProfile::events(int64_t* dropped) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (dropped) *dropped = s.dropped;
  return s.events;
}

}  // namespace mycel
