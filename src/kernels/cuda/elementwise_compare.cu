// CUDA kernels of the comparisons (Equal ... GreaterEqual: every dtype, bool output, the
// 16-bit floats compared in float, nan unequal to everything) and LogicalAnd/Or (bool).
// Their own file: 62 kernels, compiled beside elementwise_binary.cu.
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/elementwise_loops.h"

namespace mycel::cuda::ew {

namespace {

#define MC_EW_CMP(Name, expr)                \
  struct Name {                              \
    static constexpr bool kCompare = true;   \
    template <class C>                       \
    __device__ static bool f(C a, C b) {     \
      return expr;                           \
    }                                        \
  };
MC_EW_CMP(EqualOp, a == b)
MC_EW_CMP(NotEqualOp, a != b)
MC_EW_CMP(LessOp, a < b)
MC_EW_CMP(LessEqualOp, a <= b)
MC_EW_CMP(GreaterOp, a > b)
MC_EW_CMP(GreaterEqualOp, a >= b)
MC_EW_CMP(AndOp, a && b)
MC_EW_CMP(OrOp, a || b)
#undef MC_EW_CMP

template <class Op>
void all(int code, bool* o, const void* a, const void* b, const Strided<2>& s, int64_t n,
         cudaStream_t st) {
  for_all(code, [&](auto v) { run_binary<Op, decltype(v)>(o, a, b, s, n, st); });
}

}  // namespace

void launch_compare(Binary op, int code, bool* o, const void* a, const void* b,
                    const Strided<2>& s, int64_t n, cudaStream_t stream) {
  switch (op) {
    case Binary::Equal: all<EqualOp>(code, o, a, b, s, n, stream); break;
    case Binary::NotEqual: all<NotEqualOp>(code, o, a, b, s, n, stream); break;
    case Binary::Less: all<LessOp>(code, o, a, b, s, n, stream); break;
    case Binary::LessEqual: all<LessEqualOp>(code, o, a, b, s, n, stream); break;
    case Binary::Greater: all<GreaterOp>(code, o, a, b, s, n, stream); break;
    case Binary::GreaterEqual: all<GreaterEqualOp>(code, o, a, b, s, n, stream); break;
    case Binary::And:
      if (code == kBool) run_binary<AndOp, bool>(o, a, b, s, n, stream);
      break;
    case Binary::Or:
      if (code == kBool) run_binary<OrOp, bool>(o, a, b, s, n, stream);
      break;
    default: break;  // arithmetic: launch_binary
  }
}

}  // namespace mycel::cuda::ew
