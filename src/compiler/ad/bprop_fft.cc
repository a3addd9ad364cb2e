// The backward rule of FFTN (ops/defs/linalg.def), in PyTorch's convention for complex
// cotangents (bprop_complex.cc): for a map linear over the reals, dx = A^H dy, and for a real x
// the real part of it.
//
// Notation: P pads/truncates each input line to the transform's input length (P^T truncates /
// zero-pads back: `fit` below), F_s the transform of FFTN (direction, norm scale s). The
// adjoint of the unscaled forward DFT is the unscaled inverse one, so F_s^H is FFTN with the
// opposite direction and the adjoint norm (backward <-> forward, ortho stays): the same s.
//   c2c: y = F_s P x                  dx = P^T F_s^H dy               (real x: its real part)
//   r2c: y = C F_s P x, C keeping the first h = n // 2 + 1 bins of the last axis (x real):
//        dx = Re(P^T F_s^H C^T dy), C^T zero-padding dy to n bins along the last axis, which
//        FFTN's own padding does (sizes = n).
//   c2r: y = Re(F_s E P x), E extending the half spectrum z (h bins) to the full Hermitian
//        z_{n-k} = conj(z_k). With dL/dRe + i dL/dIm, the bin z_k (k < h) gets conj(G_jk) dy_j
//        summed over j from its own place and, for the mirrored bins 1 <= k <= n - h, as much
//        again from z_{n-k} (G_{j,n-k} = conj(G_jk) and dy is real). So
//        dx = P^T (w * R(dy)), R the r2c FFTN with the opposite direction and adjoint norm,
//        w_k = 2 for 1 <= k <= n - h, else 1 (DC and, n even, Nyquist once: their imaginary
//        parts do not reach y, and R gives them none).
// Verified against torch.autograd and finite differences in tests/python/test_fft.py.
#include "compiler/ad/ad.h"
#include "compiler/ad/bprop.h"
#include "ops/fft_attrs.h"

namespace mycel::ir {

namespace {

// z with each axis axes[i] truncated or zero-padded to len[i] (P^T).
Node* fit(IrBuilder& b, Node* z, const std::vector<int64_t>& axes,
          const std::vector<int64_t>& len) {
  for (size_t i = 0; i < axes.size(); ++i) {
    const Shape& s = IrBuilder::shape_of(z);
    const size_t ax = static_cast<size_t>(axes[i]);
    const int64_t cur = s[ax];
    if (cur == len[i]) continue;
    MC_CHECK(cur >= 0 && len[i] >= 0, Value,
             "For 'FFTN', the gradient needs static lengths along the transformed axes, but got ",
             s, ".");
    if (cur > len[i]) {
      std::vector<int64_t> begin(s.size(), 0), end(s.begin(), s.end()), strides(s.size(), 1);
      end[ax] = len[i];
      z = b.strided_slice(z, begin, end, strides);
    } else {
      Shape zs = s;
      zs[ax] = len[i] - cur;
      z = b.concat({z, b.constant(Tensor::zeros(zs, IrBuilder::dtype_of(z)))}, axes[i]);
    }
  }
  return z;
}

Attrs fft_attrs(const FftAttrs& a, const char* mode) {
  Attrs at;
  at.set("axes", a.axes);
  at.set("sizes", a.sizes);
  at.set("inverse", !a.inverse);
  at.set("norm", fft_adjoint_norm(a.norm));
  at.set("mode", std::string(mode));
  return at;
}

// The c2r weights w along the last transformed axis, shaped to broadcast against z.
Node* mirror_weights(IrBuilder& b, Node* z, int64_t axis, int64_t n) {
  const Shape& s = IrBuilder::shape_of(z);
  const int64_t h = n / 2 + 1;
  Shape ws(s.size() - static_cast<size_t>(axis), 1);
  ws[0] = h;
  const DType t = IrBuilder::dtype_of(z);
  Tensor w = Tensor::empty(ws, t);
  for (int64_t k = 0; k < h; ++k) {
    const double v = k >= 1 && k <= n - h ? 2.0 : 1.0;
    if (t == DType::Complex64)
      w.data<complex64>()[k] = complex64(static_cast<float>(v), 0.0f);
    else
      w.data<complex128>()[k] = complex128(v, 0.0);
  }
  return b.constant(w);
}

}  // namespace

std::vector<Node*> bprop_fftn(BpropArgs& a) {
  IrBuilder& b = a.b;
  Node* x = a.in[0];
  const Shape& xs = IrBuilder::shape_of(x);
  const FftAttrs f = read_fft_attrs(a.attrs, static_cast<int64_t>(xs.size()), "FFTN");
  std::vector<int64_t> in_len;
  for (int64_t ax : f.axes) in_len.push_back(xs[static_cast<size_t>(ax)]);
  const bool real_x = !is_complex(IrBuilder::dtype_of(x));
  Node* z = nullptr;
  switch (f.mode) {
    case FftMode::C2C:
    case FftMode::R2C:
      z = b.prim(OpId::FFTN, {a.dout}, fft_attrs(f, "c2c"));
      break;
    case FftMode::C2R:
      z = b.prim(OpId::FFTN, {a.dout}, fft_attrs(f, "r2c"));
      z = b.mul(z, mirror_weights(b, z, f.axes.back(), f.sizes.back()));
      break;
  }
  if (real_x) z = b.prim(OpId::Real, {z});
  return {fit(b, z, f.axes, in_len)};
}

}  // namespace mycel::ir
