// Built-in map transforms (vision.Decode, Resize, Normalize, transforms.TypeCast, ...): the
// C++ side of MindSpore's TensorOperation. A transform is immutable after construction and
// shared by every worker of a map op, so apply() must be thread-safe.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "data/array.h"
#include "data/random.h"

namespace mycel::data {

class Transform {
 public:
  virtual ~Transform() = default;
  // MindSpore's class name, for messages ("Resize").
  virtual std::string_view name() const = 0;
  // Applies the transform to the input columns of one row. The first `lead` axes of every
  // input are batch axes (lead is 0, or 1 for batchable transforms run on a whole batch).
  // Random transforms draw from rng (never null when random()); others ignore it.
  // Errors: mycel::Error (ValueError/TypeError...) naming the transform and the input shape.
  virtual std::vector<Array> apply(std::vector<Array> inputs, int lead, RowRandom* rng) const = 0;
  // Whether applying to a stacked batch (lead 1) equals applying to each sample and stacking:
  // true for per-sample, shape-preserving, non-random transforms (Normalize, TypeCast).
  virtual bool batchable() const { return false; }
  virtual bool random() const { return false; }
  // Whether apply() takes Object columns (Python dicts): only Python callables do; the map
  // op refuses them to every other transform with a TypeError naming it.
  virtual bool takes_objects() const { return false; }
};

// The usual case: one column in, one column out.
class UnaryTransform : public Transform {
 public:
  std::vector<Array> apply(std::vector<Array> inputs, int lead, RowRandom* rng) const final;

 protected:
  virtual Array apply1(const Array& x, int lead, RowRandom* rng) const = 0;
};

using TransformPtr = std::shared_ptr<Transform>;  // non-const for pybind11 holders

}  // namespace mycel::data
