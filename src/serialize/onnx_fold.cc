// serialize::eager_fold (serialize/onnx_import.h): ONNX import's constant folding through the
// eager dispatcher. A file of its own so that builds without kernels (the fuzz targets) leave
// it out.
#include "runtime/eager.h"
#include "serialize/onnx_import.h"

namespace mycel::serialize {

std::vector<Tensor> eager_fold(const OpDef& op, std::span<const Tensor> in, const Attrs& attrs) {
  TensorList out = run_op(op, in, attrs);
  return std::vector<Tensor>(out.begin(), out.end());
}

}  // namespace mycel::serialize
