// Reference MatMul / BatchMatMul (a triple loop per batch, batch coordinates unravelled and
// broadcast by hand; floats accumulate in double, integers in 64 bits, wrapping as the output
// dtype does) and BiasAdd (one add per element, the channel read from its coordinate).
#include <vector>

#include "kernels/ref/complex_ref.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

// Flat index of the matrix of an operand of shape s for output batch coordinates idx.
int64_t batch_offset(const Shape& s, const std::vector<int64_t>& idx) {
  const size_t nb = idx.size(), sb = s.size() - 2;
  int64_t off = 0;
  for (size_t i = 0; i < sb; ++i) {
    const int64_t d = s[i];
    const int64_t at = d == 1 ? 0 : idx[nb - sb + i];
    off = off * d + at;
  }
  return off * s[sb] * s[sb + 1];
}

}  // namespace

void ref_matmul(const KernelContext& ctx) {
  const Tensor& a = ctx.in[0];
  const Tensor& b = ctx.in[1];
  const Tensor& y = ctx.out[0];
  if (is_complex(y.dtype())) {
    ref::complex_matmul(ctx);
    return;
  }
  const bool ta = ctx.attrs.get_bool("transpose_a"), tb = ctx.attrs.get_bool("transpose_b");
  const size_t ra = a.shape().size(), rb = b.shape().size(), ry = y.shape().size();
  const int64_t M = y.shape()[ry - 2], N = y.shape()[ry - 1];
  const int64_t K = a.shape()[ra - (ta ? 2 : 1)];
  const int64_t lda = a.shape()[ra - 1], ldb = b.shape()[rb - 1];
  int64_t batches = 1;
  for (size_t i = 0; i + 2 < ry; ++i) batches *= y.shape()[i];
  dispatch_number(y.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* A = a.data<T>();
    const T* B = b.data<T>();
    T* Y = y.data<T>();
    std::vector<int64_t> idx(ry - 2, 0);
    for (int64_t t = 0; t < batches; ++t) {
      int64_t rest = t;
      for (size_t i = ry - 2; i-- > 0;) {
        idx[i] = rest % y.shape()[i];
        rest /= y.shape()[i];
      }
      const T* At = A + batch_offset(a.shape(), idx);
      const T* Bt = B + batch_offset(b.shape(), idx);
      T* Yt = Y + t * M * N;
      for (int64_t i = 0; i < M; ++i) {
        for (int64_t j = 0; j < N; ++j) {
          double fs = 0;
          uint64_t is = 0;
          for (int64_t k = 0; k < K; ++k) {
            const T av = ta ? At[k * lda + i] : At[i * lda + k];
            const T bv = tb ? Bt[j * ldb + k] : Bt[k * ldb + j];
            if constexpr (std::is_floating_point_v<C>) {
              fs +=
                  static_cast<double>(static_cast<C>(av)) * static_cast<double>(static_cast<C>(bv));
            } else {
              is += static_cast<uint64_t>(static_cast<int64_t>(av)) *
                    static_cast<uint64_t>(static_cast<int64_t>(bv));
            }
          }
          if constexpr (std::is_floating_point_v<C>)
            Yt[i * N + j] = T(static_cast<C>(fs));
          else
            Yt[i * N + j] = static_cast<T>(static_cast<int64_t>(is));
        }
      }
    }
  });
}

void ref_bias_add(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& b = ctx.in[1];
  const Tensor& y = ctx.out[0];
  const int64_t nd = x.ndim();
  const int64_t cdim = ctx.attrs.get_str("data_format") == "NHWC" ? nd - 1 : 1;
  int64_t inner = 1;
  for (int64_t d = cdim + 1; d < nd; ++d) inner *= x.dim(d);
  const int64_t channels = x.dim(cdim);
  if (is_complex(x.dtype())) {
    dispatch_complex(x.dtype(), ctx.op.name, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (int64_t i = 0; i < x.numel(); ++i)
        y.data<T>()[i] = x.data<T>()[i] + b.data<T>()[(i / inner) % channels];
    });
    return;
  }
  dispatch_number(x.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t c = (i / inner) % channels;
      y.data<T>()[i] =
          T(static_cast<C>(static_cast<C>(x.data<T>()[i]) + static_cast<C>(b.data<T>()[c])));
    }
  });
}

}  // namespace mycel
