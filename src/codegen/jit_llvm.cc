// The LLVM side of the kernel JIT (codegen/jit.h): a plugin, libmycel_jit.so, that mycel loads
// with dlopen on the first graph kernel, so that `import mycel` does not pay for loading
// libLLVM (about 0.4 s here). It uses LLVM and the C++ library only (no mycel header: nothing
// of mycel's is linked twice) and exports a C interface that never throws:
//
//   int mycel_jit_name(key_text, buf, n)      the kernel's function name for a key text
//   int mycel_jit_kernel(key_text, ir, dir, &fn, &how, err, errlen)
//                                             the function, from this process's JIT, the
//                                             cache directory `dir` ("" : none) or compiled
// Both return 0, or nonzero with a message in err (mycel_jit_kernel) / an empty name.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <unordered_map>
#include <vector>

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

namespace {

constexpr char kMagic[8] = {'M', 'Y', 'C', 'E', 'L', 'G', 'K', '1'};
// Part of every cache key: bumped whenever llvm_emit.cc emits different code for the same loop
// IR (2: float max/min reduce ordered integer keys; 3: the flags argument, staged kernels;
// 4: staged kernels keep transcendental values several stages need in a row buffer; 5: their
// last stage prefetches the next row; 6: vmath's rational tanh;
// 7: staged kernels' row loops that sum floats in double ask for 16 lanes; 8: the rational tanh
// withdrawn, the exp form again; 9: bfloat16 rounding tests NaN with an unordered compare;
// 10: Sign gives 0 for NaN and -0), so no object of an older emitter is used.
constexpr const char* kFormat = "mycel-gk-10";

uint64_t fnv1a(const void* data, size_t n, uint64_t h = 1469598103934665603ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string llvm_message(llvm::Error e) { return llvm::toString(std::move(e)); }

// The file header: magic, key, payload length, payload checksum.
struct Header {
  char magic[8];
  uint64_t key;
  uint64_t size;
  uint64_t sum;
};

// A failure, reported through the C interface as its message.
struct JitError {
  std::string what;
};

// One JIT for the process, compiling for the host CPU.
class Jit {
 public:
  // The process's JIT, made on first use; null with `error` set when LLVM cannot target the
  // host.
  static Jit* get(std::string& error) {
    static std::string init_error;
    static Jit* jit = [] {
      try {
        return new Jit();  // lives until the process exits (kernels may run until then)
      } catch (const JitError& e) {
        init_error = e.what;
        return static_cast<Jit*>(nullptr);
      }
    }();
    error = init_error;
    return jit;
  }

  uint64_t key_of(const std::string& key_text) const {
    uint64_t h = fnv1a(key_text.data(), key_text.size());
    return fnv1a(target_id_.data(), target_id_.size(), h);
  }

  // The kernel `name` of key text `key_text`; how: 0 this process, 1 disk cache, 2 compiled.
  void* kernel(const std::string& key_text, const std::string& ir, const std::string& dir,
               int* how) {
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t key = key_of(key_text);
    if (auto it = loaded_.find(key); it != loaded_.end()) {
      *how = 0;
      return it->second;
    }
    std::string name = "mycel_gk_" + hex64(key);
    std::string path = dir.empty() ? "" : dir + "/" + hex64(key) + ".o";
    std::vector<char> obj;
    if (!path.empty() && read_cached(path, key, obj)) {
      *how = 1;
    } else {
      obj = compile(ir);
      *how = 2;
      if (!path.empty()) write_cached(dir, path, key, obj);
    }
    llvm::StringRef bytes(obj.data(), obj.size());
    if (llvm::Error e = jit_->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(bytes, name)))
      throw JitError{"loading " + name + " failed: " + llvm_message(std::move(e))};
    auto sym = jit_->lookup(name);
    if (!sym) throw JitError{name + " not found: " + llvm_message(sym.takeError())};
    void* fn = reinterpret_cast<void*>(static_cast<uintptr_t>(sym->getAddress()));
    loaded_[key] = fn;
    return fn;
  }

 private:
  template <class T>
  static T take(llvm::Expected<T> v, const char* what) {
    if (!v) throw JitError{std::string(what) + ": " + llvm_message(v.takeError())};
    return std::move(*v);
  }

  Jit() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    auto jtmb = take(llvm::orc::JITTargetMachineBuilder::detectHost(), "no target for this host");
    jtmb.setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
    tm_ = take(jtmb.createTargetMachine(), "no target machine");
    target_id_ = std::string(kFormat) + "|llvm " + LLVM_VERSION_STRING + "|" + jtmb.getCPU() + "|" +
                 jtmb.getFeatures().getString();
    jit_ = take(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create(),
                "no JIT");
    // Calls the optimiser may introduce (memset, memcpy) resolve in this process.
    jit_->getMainJITDylib().addGenerator(
        take(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                 jit_->getDataLayout().getGlobalPrefix()),
             "no symbol generator"));
  }

  // LLVM IR text -> optimised object code for the host.
  std::vector<char> compile(const std::string& ir) {
    llvm::LLVMContext ctx;
    llvm::SMDiagnostic diag;
    std::unique_ptr<llvm::Module> m =
        llvm::parseIR(llvm::MemoryBufferRef(ir, "graph_kernel"), diag, ctx);
    if (!m) {
      std::string s;
      llvm::raw_string_ostream os(s);
      diag.print("graph_kernel", os);
      throw JitError{"bad LLVM IR: " + os.str()};
    }
    m->setDataLayout(tm_->createDataLayout());
    m->setTargetTriple(tm_->getTargetTriple().str());
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(tm_.get());
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    mpm.run(*m, mam);
    llvm::SmallVector<char, 0> buf;
    llvm::raw_svector_ostream os(buf);
    llvm::legacy::PassManager pm;
    if (tm_->addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_ObjectFile))
      throw JitError{"the target cannot emit object files"};
    pm.run(*m);
    return std::vector<char>(buf.begin(), buf.end());
  }

  static bool read_cached(const std::string& path, uint64_t key, std::vector<char>& obj) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    Header h{};
    if (!in.read(reinterpret_cast<char*>(&h), sizeof h)) return false;
    if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.key != key || h.size == 0 ||
        h.size > (uint64_t{1} << 30))
      return false;
    obj.resize(h.size);
    if (!in.read(obj.data(), static_cast<std::streamsize>(h.size))) return false;
    if (in.peek() != std::char_traits<char>::eof()) return false;  // trailing bytes
    return fnv1a(obj.data(), obj.size()) == h.sum;
  }

  // Best effort: a temporary file in the directory, then rename() over the final name.
  static void write_cached(const std::string& dir, const std::string& path, uint64_t key,
                           const std::vector<char>& obj) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return;
    std::random_device rd;
    std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + hex64(rd());
    Header h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.key = key;
    h.size = obj.size();
    h.sum = fnv1a(obj.data(), obj.size());
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) return;
      out.write(reinterpret_cast<const char*>(&h), sizeof h);
      out.write(obj.data(), static_cast<std::streamsize>(obj.size()));
      out.flush();
      if (!out) {
        out.close();
        std::filesystem::remove(tmp, ec);
        return;
      }
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) std::filesystem::remove(tmp, ec);
  }

  std::mutex mu_;
  std::unique_ptr<llvm::TargetMachine> tm_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::string target_id_;
  std::unordered_map<uint64_t, void*> loaded_;
};

}  // namespace

#define MYCEL_JIT_EXPORT extern "C" __attribute__((visibility("default")))

MYCEL_JIT_EXPORT int mycel_jit_name(const char* key_text, char* buf, size_t n) {
  std::string error;
  Jit* jit = Jit::get(error);
  if (jit == nullptr || n == 0) return 1;
  std::snprintf(buf, n, "mycel_gk_%s", hex64(jit->key_of(key_text)).c_str());
  return 0;
}

MYCEL_JIT_EXPORT int mycel_jit_kernel(const char* key_text, const char* ir, const char* dir,
                                      void** fn, int* how, char* err, size_t errlen) {
  std::string error;
  try {
    if (Jit* jit = Jit::get(error)) {
      *fn = jit->kernel(key_text, ir, dir, how);
      return 0;
    }
  } catch (const JitError& e) {
    error = e.what;
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (errlen > 0) std::snprintf(err, errlen, "%s", error.c_str());
  return 1;
}
