// CUDA kernels of the comparisons (Equal ... GreaterEqual: every dtype, bool output, the
// 16-bit floats compared in float, nan unequal to everything) and LogicalAnd/Or (bool).
// Their own file: 62 kernels, compiled beside elementwise_binary.cu.
#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/elementwise_loops.h"
#include "kernels/elementwise_forms.h"

namespace mycel::cuda::ew {

namespace {

// The comparisons and LogicalAnd/Or (kernels/elementwise_forms.h, shared with the CPU loops).
struct CmpBase {};
using EqualOp = mycel::ew::CompareForm<CmpBase, mycel::ew::Cmp::Equal>;
using NotEqualOp = mycel::ew::CompareForm<CmpBase, mycel::ew::Cmp::NotEqual>;
using LessOp = mycel::ew::CompareForm<CmpBase, mycel::ew::Cmp::Less>;
using LessEqualOp = mycel::ew::CompareForm<CmpBase, mycel::ew::Cmp::LessEqual>;
using GreaterOp = mycel::ew::CompareForm<CmpBase, mycel::ew::Cmp::Greater>;
using GreaterEqualOp = mycel::ew::CompareForm<CmpBase, mycel::ew::Cmp::GreaterEqual>;
using AndOp = mycel::ew::CompareForm<CmpBase, mycel::ew::Cmp::And>;
using OrOp = mycel::ew::CompareForm<CmpBase, mycel::ew::Cmp::Or>;

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
