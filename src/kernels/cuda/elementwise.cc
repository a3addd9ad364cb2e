// CUDA kernels of the elementwise family (ops/defs/elementwise.def): the host side. Each
// wrapper checks the dtype exactly as the CPU kernel does (same unsupported-dtype errors),
// turns the tensors into pointers and Strided<K> descriptors over the output's shape, and
// calls a launcher of elementwise.h on the device's stream.
//
// Complex inputs go to complex.cc's complex forms.
//
// Integer FloorDiv, Mod, FloorMod and Pow run the CPU kernel on host copies instead: their
// results depend on a data check (a zero divisor, a negative exponent) that raises a
// ValueError on the CPU, which a kernel queued without waiting cannot do. Their float forms
// run on the device.
#include <vector>

#include "device/cuda/cuda_device.h"
#include "device/cuda/cuda_tensor.h"
#include "kernels/cuda/complex.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/elementwise.h"

namespace mycel::cuda {

namespace {

// The dtype families of the CPU kernels' dispatch (tensor/dtype.h).
enum class Family { All, Number, Float, Bool, Bitwise };

void check_family(Family f, DType t, const OpDef& op) {
  const auto none = [](auto) {};
  switch (f) {
    case Family::All:
      dispatch_all(t, op.name, none);
      break;
    case Family::Number:
      dispatch_number(t, op.name, none);
      break;
    case Family::Float:
      dispatch_float(t, op.name, none);
      break;
    case Family::Bool:
      MC_ASSERT(t == DType::Bool, op.name, " on ", t);
      break;
    case Family::Bitwise:  // kernels/cpu/elementwise_binary.cc's pick_bitwise
      MC_CHECK(!is_floating(t), Type, "For '", op.name,
               "', the inputs must be bool or integer tensors, but got dtype ", t, ".");
      dispatch_all(t, op.name, none);
      break;
  }
}

// The op's CPU kernel on host copies of the inputs; the outputs copied back to the device.
void run_on_host(const KernelContext& ctx) {
  std::vector<Tensor> hin, hout;
  for (const Tensor& t : ctx.in) hin.push_back(t.to(Device::cpu()));
  for (const Tensor& o : ctx.out) hout.push_back(Tensor::empty(o.shape(), o.dtype()));
  KernelContext hctx{ctx.op, hin, hout, ctx.attrs, Device::cpu(), ctx.comm};
  cpu_kernel(ctx.op)(hctx);
  for (size_t i = 0; i < hout.size(); ++i) ctx.out[i].copy_from(hout[i]);
}

// The strides of t broadcast to `shape`, as one operand of a descriptor.
struct Bcast {
  Shape st;
  Bcast(const Tensor& t, const Shape& shape) : st(broadcast_strides_to(t, shape)) {}
};

}  // namespace

void cuda_unary(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  const DType t = x.dtype();
  if (is_complex(t)) {
    cuda_complex_unary(ctx);
    return;
  }
  ew::Unary op = ew::Unary::Neg;
  Family fam = Family::Float;
  switch (ctx.op.id) {
#define MC_NUM(Id, Op)    \
  case OpId::Id:          \
    op = ew::Unary::Op;   \
    fam = Family::Number; \
    break;
#define MC_FLT(Id, Op)  \
  case OpId::Id:        \
    op = ew::Unary::Op; \
    break;
    MC_NUM(Neg, Neg)
    MC_NUM(Abs, Abs)
    MC_NUM(Sign, Sign)
    MC_NUM(Square, Square)
    MC_NUM(ReLU, Relu)
    MC_NUM(ReLU6, Relu6)
    MC_NUM(Floor, Floor)
    MC_NUM(Ceil, Ceil)
    MC_NUM(Round, Rint)  // halves to even, as the CPU's Round
    MC_NUM(Rint, Rint)
    MC_FLT(Exp, Exp)
    MC_FLT(Log, Log)
    MC_FLT(Log1p, Log1p)
    MC_FLT(Sqrt, Sqrt)
    MC_FLT(Rsqrt, Rsqrt)
    MC_FLT(Reciprocal, Reciprocal)
    MC_FLT(Sin, Sin)
    MC_FLT(Cos, Cos)
    MC_FLT(Tanh, Tanh)
    MC_FLT(Sigmoid, Sigmoid)
    MC_FLT(Erf, Erf)
    MC_FLT(SiLU, Silu)
    MC_FLT(Softplus, Softplus)
    MC_FLT(ACos, Acos)
    MC_FLT(Asin, Asin)
    MC_FLT(Atan, Atan)
    MC_FLT(Acosh, Acosh)
    MC_FLT(Asinh, Asinh)
    MC_FLT(Atanh, Atanh)
    MC_FLT(Sinh, Sinh)
    MC_FLT(Cosh, Cosh)
    MC_FLT(Tan, Tan)
    MC_FLT(Expm1, Expm1)
    MC_FLT(Erfc, Erfc)
#undef MC_NUM
#undef MC_FLT
    case OpId::GeLU:
      op = ctx.attrs.get_str("approximate") == "tanh" ? ew::Unary::GeluTanh : ew::Unary::GeluErf;
      break;
    case OpId::LogicalNot:
      op = ew::Unary::Not;
      fam = Family::Bool;
      break;
    default:
      MC_ASSERT(false, "cuda_unary has no kernel for ", ctx.op.name);
  }
  check_family(fam, t, ctx.op);
  const int64_t n = y.numel();
  if (n == 0) return;
  const Bcast bx(x, y.shape());
  const Strided<1> s = strided_of<1>(y.shape(), {&bx.st});
  ew::launch_unary(op, code(t), y.raw_data(), x.raw_data(), s, n, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_binary(const KernelContext& ctx) {
  const Tensor& a = ctx.in[0];
  const Tensor& b = ctx.in[1];
  const Tensor& o = ctx.out[0];
  MC_ASSERT(a.dtype() == b.dtype(), ctx.op.name, " inputs must arrive promoted");
  const DType t = a.dtype();
  if (is_complex(t)) {
    cuda_complex_binary(ctx);
    return;
  }
  ew::Binary op = ew::Binary::Add;
  Family fam = Family::All;
  bool int_on_host = false;  // integer forms check their data: CPU kernel on host copies
  bool compare = false;      // bool output: launch_compare
  switch (ctx.op.id) {
#define MC_CASE(Id, F, host, cmp) \
  case OpId::Id:                  \
    op = ew::Binary::Id;          \
    fam = Family::F;              \
    int_on_host = host;           \
    compare = cmp;                \
    break;
    MC_CASE(Add, All, false, false)
    MC_CASE(Sub, Number, false, false)
    MC_CASE(Mul, All, false, false)
    MC_CASE(Div, Float, false, false)
    MC_CASE(FloorDiv, Number, true, false)
    MC_CASE(Mod, Number, true, false)
    MC_CASE(FloorMod, Number, true, false)
    MC_CASE(Pow, Number, true, false)
    MC_CASE(ReluGrad, Number, false, false)
    MC_CASE(Maximum, All, false, false)
    MC_CASE(Minimum, All, false, false)
    MC_CASE(Equal, All, false, true)
    MC_CASE(NotEqual, All, false, true)
    MC_CASE(Less, All, false, true)
    MC_CASE(LessEqual, All, false, true)
    MC_CASE(Greater, All, false, true)
    MC_CASE(GreaterEqual, All, false, true)
#undef MC_CASE
    case OpId::BitwiseAnd:
    case OpId::BitwiseOr:
    case OpId::BitwiseXor:
      op = ctx.op.id == OpId::BitwiseAnd  ? ew::Binary::BitAnd
           : ctx.op.id == OpId::BitwiseOr ? ew::Binary::BitOr
                                          : ew::Binary::BitXor;
      fam = Family::Bitwise;
      break;
    case OpId::LogicalAnd:
    case OpId::LogicalOr:
      op = ctx.op.id == OpId::LogicalAnd ? ew::Binary::And : ew::Binary::Or;
      fam = Family::Bool;
      compare = true;
      break;
    default:
      MC_ASSERT(false, "cuda_binary has no kernel for ", ctx.op.name);
  }
  check_family(fam, t, ctx.op);
  const int64_t n = o.numel();
  if (n == 0) return;
  if (int_on_host && !is_floating(t)) {
    run_on_host(ctx);
    return;
  }
  const Bcast ba(a, o.shape()), bb(b, o.shape());
  const Strided<2> s = strided_of<2>(o.shape(), {&ba.st, &bb.st});
  cudaStream_t st = stream(ctx.device.index);
  if (compare)
    ew::launch_compare(op, code(t), static_cast<bool*>(o.raw_data()), a.raw_data(), b.raw_data(), s,
                       n, st);
  else
    ew::launch_binary(op, code(t), o.raw_data(), a.raw_data(), b.raw_data(), s, n, st);
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_select(const KernelContext& ctx) {
  const Tensor& c = ctx.in[0];
  const Tensor& x = ctx.in[1];
  const Tensor& y = ctx.in[2];
  const Tensor& o = ctx.out[0];
  const int64_t n = o.numel();
  if (n == 0) return;
  MC_ASSERT(c.dtype() == DType::Bool && x.dtype() == o.dtype() && y.dtype() == o.dtype(),
            "Select's inputs must arrive as (bool, T, T)");
  const Bcast bc(c, o.shape()), bx(x, o.shape()), by(y, o.shape());
  const Strided<3> s = strided_of<3>(o.shape(), {&bc.st, &bx.st, &by.st});
  ew::launch_select(static_cast<int>(o.itemsize()), o.raw_data(),
                    static_cast<const bool*>(c.raw_data()), x.raw_data(), y.raw_data(), s, n,
                    stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

// Cast: the device's strided copy, which converts with the Cast op's rules (cast_to).
void cuda_cast(const KernelContext& ctx) { ctx.out[0].copy_from(ctx.in[0]); }

void cuda_fill(const KernelContext& ctx) {
  const Tensor& o = ctx.out[0];
  const int64_t n = o.numel();
  if (n == 0) return;
  cudaStream_t st = stream(ctx.device.index);
  switch (ctx.op.id) {
    case OpId::ZerosLike:
      // Zero is all-zero bits in every dtype.
      MC_CUDA_CHECK(cudaMemsetAsync(o.raw_data(), 0, o.nbytes(), st));
      return;
    case OpId::OnesLike:
      ew::launch_fill(code(o.dtype()), o.raw_data(), 1.0, n, st);
      break;
    case OpId::Fill:
      ew::launch_fill(code(o.dtype()), o.raw_data(), ctx.attrs.get_float("value"), n, st);
      break;
    default:
      MC_ASSERT(false, "cuda_fill has no kernel for ", ctx.op.name);
  }
  MC_CUDA_LAUNCH_CHECK();
}

}  // namespace mycel::cuda
