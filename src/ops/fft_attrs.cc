// FFTN's attributes (ops/fft_attrs.h) and its shape rule.
//
// infer_fftn: the output is the input with each transformed axis of length out_len(i);
// dtypes: c2c float32/complex64 -> complex64, float64/complex128 -> complex128; r2c takes
// float32/float64 only; c2r takes any of the four (a real half spectrum is promoted) and gives
// the part dtype. Other dtypes are a TypeError (the Python functions compute integer and
// float16 inputs in float32 first, as MindSpore does).
#include "ops/fft_attrs.h"

#include <cmath>

#include "ops/op_table.h"

namespace mycel {

FftAttrs read_fft_attrs(const Attrs& attrs, int64_t rank, const char* op) {
  FftAttrs a;
  a.axes = attrs.get_ints("axes");
  a.sizes = attrs.get_ints("sizes");
  a.inverse = attrs.get_bool("inverse");
  a.norm = attrs.get_str("norm");
  const std::string& mode = attrs.get_str("mode");
  MC_CHECK(mode == "c2c" || mode == "r2c" || mode == "c2r", Value, "For '", op,
           "', mode must be 'c2c', 'r2c' or 'c2r', but got '", mode, "'.");
  a.mode = mode == "c2c" ? FftMode::C2C : mode == "r2c" ? FftMode::R2C : FftMode::C2R;
  MC_CHECK(a.norm == "backward" || a.norm == "forward" || a.norm == "ortho", Value, "For '", op,
           "', norm must be 'backward', 'forward' or 'ortho', but got '", a.norm, "'.");
  MC_CHECK(!a.axes.empty(), Value, "For '", op, "', axes must not be empty.");
  MC_CHECK(a.sizes.size() == a.axes.size(), Value, "For '", op, "', sizes has ", a.sizes.size(),
           " entries but axes has ", a.axes.size(), ".");
  for (size_t i = 0; i < a.axes.size(); ++i) {
    MC_CHECK(a.axes[i] >= 0 && a.axes[i] < rank, Value, "For '", op, "', axis ", a.axes[i],
             " is out of range for an input of rank ", rank, ".");
    for (size_t j = 0; j < i; ++j)
      MC_CHECK(a.axes[j] != a.axes[i], Value, "For '", op, "', axis ", a.axes[i],
               " appears twice in axes.");
    MC_CHECK(a.sizes[i] > 0, Value, "For '", op, "', the transform length along axis ", a.axes[i],
             " must be positive, but got ", a.sizes[i], ".");
  }
  return a;
}

double FftAttrs::scale() const {
  double n = 1;
  for (int64_t s : sizes) n *= static_cast<double>(s);
  if (norm == "ortho") return 1.0 / std::sqrt(n);
  const bool scaled = norm == "forward" ? !inverse : inverse;
  return scaled ? 1.0 / n : 1.0;
}

int64_t FftAttrs::in_len(size_t i) const {
  const bool last = i + 1 == axes.size();
  return last && mode == FftMode::C2R ? sizes[i] / 2 + 1 : sizes[i];
}

int64_t FftAttrs::out_len(size_t i) const {
  const bool last = i + 1 == axes.size();
  return last && mode == FftMode::R2C ? sizes[i] / 2 + 1 : sizes[i];
}

std::string fft_adjoint_norm(const std::string& norm) {
  if (norm == "backward") return "forward";
  if (norm == "forward") return "backward";
  return norm;
}

void infer_fftn(InferContext& ctx) {
  const TensorMeta& x = ctx.in[0];
  const FftAttrs a = read_fft_attrs(ctx.attrs, static_cast<int64_t>(x.shape.size()), ctx.op.name);
  const bool real = x.dtype == DType::Float32 || x.dtype == DType::Float64;
  MC_CHECK(real || is_complex(x.dtype), Type, "For '", ctx.op.name,
           "', the input must be float32, float64, complex64 or complex128, but got ", x.dtype,
           " of shape ", x.shape, ".");
  MC_CHECK(a.mode != FftMode::R2C || real, Type, "For '", ctx.op.name,
           "', a real-to-complex transform takes a float32 or float64 input, but got ", x.dtype,
           ".");
  const DType cx = real ? complex_dtype_of(x.dtype) : x.dtype;
  Shape shape = x.shape;
  for (size_t i = 0; i < a.axes.size(); ++i) shape[static_cast<size_t>(a.axes[i])] = a.out_len(i);
  ctx.out.push_back({a.mode == FftMode::C2R ? complex_part_dtype(cx) : cx, shape});
}

}  // namespace mycel
