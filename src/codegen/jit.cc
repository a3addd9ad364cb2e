#include "codegen/jit.h"

#include <cstdlib>
#include <mutex>

#include "base/env.h"
#include "base/error.h"
#include "base/plugin.h"

#ifndef MYCEL_JIT_PLUGIN
#define MYCEL_JIT_PLUGIN "libmycel_jit.so"
#endif

namespace mycel::codegen {

namespace {

using NameFn = int (*)(const char*, char*, size_t);
using KernelFnC = int (*)(const char*, const char*, const char*, void**, int*, char*, size_t);

// The plugin's two functions, loaded once (codegen/jit_llvm.cc).
struct Plugin {
  NameFn name = nullptr;
  KernelFnC kernel = nullptr;
  std::string error;  // why it could not be loaded
};

const Plugin& plugin() {
  static Plugin p;
  static std::once_flag once;
  std::call_once(once, [] {
    // libmycel_jit.so beside the extension (base/plugin.h), or where the build put it.
    void* h = open_plugin("libmycel_jit.so", MYCEL_JIT_PLUGIN, false, &p.error);
    if (h == nullptr) return;
    p.name = reinterpret_cast<NameFn>(plugin_function(h, "mycel_jit_name"));
    p.kernel = reinterpret_cast<KernelFnC>(plugin_function(h, "mycel_jit_kernel"));
    if (p.name == nullptr || p.kernel == nullptr) p.error = "the kernel JIT lacks its functions";
  });
  MC_CHECK(p.error.empty(), Runtime, "graph kernel: ", p.error);
  return p;
}

}  // namespace

std::string cache_dir() {
  const char* env = std::getenv("MYCEL_CACHE_DIR");
  if (env != nullptr) return *env != '\0' && flag_value_on(env) ? std::string(env) : "";
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return std::string(xdg) + "/mycel/kernels";
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return "";
  return std::string(home) + "/.cache/mycel/kernels";
}

std::string kernel_name(const std::string& key_text) {
  char buf[64];
  MC_CHECK(plugin().name(key_text.c_str(), buf, sizeof buf) == 0, Runtime,
           "graph kernel: LLVM cannot target this host");
  return buf;
}

JitKernel get_kernel(const std::string& key_text, const std::string& llvm_ir) {
  const Plugin& p = plugin();
  void* fn = nullptr;
  int how = 2;
  char err[1024] = "";
  std::string dir = cache_dir();
  MC_CHECK(
      p.kernel(key_text.c_str(), llvm_ir.c_str(), dir.c_str(), &fn, &how, err, sizeof err) == 0,
      Runtime, "graph kernel: ", err);
  static constexpr CacheResult kHow[] = {CacheResult::MemoryHit, CacheResult::DiskHit,
                                         CacheResult::Compiled};
  return {reinterpret_cast<KernelFn>(fn), kHow[how]};
}

}  // namespace mycel::codegen
