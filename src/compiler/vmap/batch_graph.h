// The batching transform of graphs (design in compiler/vmap/vmap.h): V(g) for a graph and the
// batch dims of its parameters.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ad/ir_builder.h"

namespace mycel::ir {

// Where a value carries the batch, shaped like its abstract: a leaf (a tensor with the batch
// on axis 0, or not batched; anything else is never batched, except the scalar a tensor
// condition becomes, kept as a [B] tensor) or one entry per element of a tuple or list.
struct BDims {
  bool batched = false;
  bool seq = false;
  std::vector<BDims> elems;

  static BDims leaf(bool b) { return BDims{b, false, {}}; }
  static BDims of(std::vector<BDims> el) { return BDims{false, true, std::move(el)}; }
  bool any() const;
  bool operator==(const BDims& o) const = default;
  std::string key() const;  // a text form, for the memo tables
};

// Every tensor of a value of abstract `a` batched.
BDims full_dims(const AbsPtr& a);
// Batched where either is.
BDims join(const BDims& a, const BDims& b);
// The abstract of a value of per-example abstract `a` batched as `d`.
AbsPtr batched_abs(const AbsPtr& a, const BDims& d, int64_t size);
// Element i of a tuple or list node.
Node* seq_item(IrBuilder& b, Node* x, size_t i);
// x (per-example abstract `a`, batched as `have`) broadcast where `want` is batched and
// `have` is not.
Node* broadcast_dims(IrBuilder& b, Node* x, const AbsPtr& a, const BDims& have, const BDims& want,
                     int64_t size);

class Batcher {
 public:
  Batcher(Module& m, int64_t size) : m_(m), size_(size) {}
  struct Batched {
    FuncGraph* g;               // V(g)
    std::vector<BDims> params;  // its parameters' dims (a recursive graph's: all batched)
    BDims out;                  // its result's
  };
  // V(g) for parameters batched as `in` (or more: see Batched::params). g must be lifted,
  // normalised (k_transform.h's normalize_calls) and free of vjp and vmap.
  Batched batch(FuncGraph* g, const std::vector<BDims>& in);
  int64_t size() const { return size_; }
  // Whether g is being batched (a call of it now is recursion).
  bool active(FuncGraph* g) const;

 private:
  friend class GraphBatcher;
  Module& m_;
  int64_t size_;
  std::map<std::pair<FuncGraph*, std::string>, Batched> done_;
  std::map<std::pair<FuncGraph*, std::string>, Batched> active_;
  std::set<FuncGraph*> recursive_;
};

}  // namespace mycel::ir
