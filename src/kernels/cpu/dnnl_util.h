// oneDNN plumbing shared by the NN kernels: one CPU engine for the process, a stream per
// thread (streams are not thread-safe), and a cache of primitives keyed by every shape and
// attribute that went into them. Creating a primitive costs tens of microseconds, more than
// running a small one, so each distinct configuration is built once.
//
// Cached primitives are shared by every thread that runs ops, so they use user-managed
// scratchpads: with the library-managed default (under oneDNN's default build options,
// DNNL_ENABLE_CONCURRENT_EXEC off) a primitive must run on the thread that created it. Each
// run gets its scratchpad from mycel's caching allocator instead.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "tensor/tensor.h"

namespace mycel::dnnl_util {

dnnl::engine& engine();
dnnl::stream& stream();

// The cache key: a tag naming the primitive family first, then the shapes and attributes.
using Key = std::vector<int64_t>;

// The families' tags (a family may add a small sub-tag, e.g. the convolution pass).
constexpr int64_t kTagConv = 0x100;
constexpr int64_t kTagMatmul = 0x200;

// The cached object for `key`, made by `make` on first use. Entries live for the process
// (the cache is cleared when it grows past a thousand configurations).
std::shared_ptr<void> lookup_or_make(const Key& key,
                                     const std::function<std::shared_ptr<void>()>& make);

template <class T, class F>
std::shared_ptr<T> cached(const Key& key, F&& make) {
  return std::static_pointer_cast<T>(
      lookup_or_make(key, [&]() -> std::shared_ptr<void> { return make(); }));
}

// A dnnl memory over `t`'s data (which must match `md` in size).
dnnl::memory wrap(const dnnl::memory::desc& md, const Tensor& t);

// Scratch memory for md, from mycel's caching allocator; the storage keeps it alive.
struct Scratch {
  std::shared_ptr<Storage> storage;
  dnnl::memory mem;
};
Scratch scratch(const dnnl::memory::desc& md);

// Attributes every primitive here is built with: a user-managed scratchpad.
dnnl::primitive_attr attr();

// A primitive and the scratchpad it needs per run.
struct Prim {
  dnnl::primitive prim;
  dnnl::memory::desc scratchpad;
  explicit operator bool() const { return static_cast<bool>(prim); }
  // Runs on `s` with its own scratchpad, kept alive in `keep` until the caller waits on s.
  void execute(dnnl::stream& s, std::unordered_map<int, dnnl::memory> args,
               std::vector<Scratch>* keep) const;
};

template <class PrimitiveT, class Pd>
Prim make_prim(const Pd& pd) {
  return {PrimitiveT(pd), pd.scratchpad_desc()};
}

// A reorder between two layouts of the same tensor.
Prim make_reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to);

}  // namespace mycel::dnnl_util
