// Compiling generated kernels: LLVM 14 ORC (LLJIT) in this process, behind a cache on disk.
//
// get_kernel(key_text, llvm_ir, name): the kernel's function `name` from the LLVM IR text
// `llvm_ir` (codegen/llvm_emit.h). The cache key is a hash of key_text (the loop IR's text),
// the LLVM version, the host CPU's name and features and the format version: kernels are
// compiled for this CPU (-O3 pipeline, vectorisation, no fast-math) into an object file, which
// is stored as <dir>/<key>.o and loaded into the JIT. The next process asking for the same key
// loads the object file without compiling; within a process each key is loaded once.
//
// The directory: $MYCEL_CACHE_DIR if set (a path; "0"/"off"/"false" turn the disk cache off),
// else $XDG_CACHE_HOME/mycel/kernels, else ~/.cache/mycel/kernels. Files are written to a
// temporary name and renamed, so concurrent writers never expose a partial file; each file
// carries a header (magic, key, payload length, checksum), and a file that fails it (truncated,
// damaged, another key) is ignored: the kernel is compiled again and the file rewritten. A
// cache that cannot be written is no error (the kernel is still compiled and used).
//
// The LLVM side is a plugin, libmycel_jit.so (codegen/jit_llvm.cc), loaded with dlopen on the
// first kernel, so that importing mycel does not load libLLVM; it is looked for beside the
// module holding this code (the extension in python/mycel), then where the build put it. A
// plugin that cannot be loaded is a RuntimeError (its graph kernels then run op by op).
// Thread-safe (one lock around the JIT); the JIT lives until the process exits.
#pragma once

#include <cstdint>
#include <string>

namespace mycel::codegen {

// (llvm_emit.h: the buffers, the steps [lo, hi) of dims[0], what to run)
using KernelFn = void (*)(char** bufs, int64_t lo, int64_t hi, int64_t flags);

// How get_kernel found the kernel.
enum class CacheResult { MemoryHit, DiskHit, Compiled };

struct JitKernel {
  KernelFn fn = nullptr;
  CacheResult how = CacheResult::Compiled;
};

JitKernel get_kernel(const std::string& key_text, const std::string& llvm_ir);

// The kernel function's name for a key text (unique per key: "mycel_gk_<hash>").
std::string kernel_name(const std::string& key_text);

// The disk cache's directory ("" when off), from the environment (see above).
std::string cache_dir();

}  // namespace mycel::codegen
