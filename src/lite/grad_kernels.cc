#include "lite/grad_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/error.h"
#include "lite/kernels.h"

namespace mycel::lite {

namespace {

// dL/d(pre-activation) from dL/dy and y = act(pre).
float act_grad(float y, float g, Act a) {
  switch (a) {
    case Act::None:
      return g;
    case Act::ReLU:
      return y > 0.f ? g : 0.f;
    case Act::ReLU6:
      return y > 0.f && y < 6.f ? g : 0.f;
    case Act::Sigmoid:
      return g * y * (1.f - y);
    case Act::Tanh:
      return g * (1.f - y * y);
  }
  return g;
}

// The gradient before the node's fused activation (dy itself when there is none).
const float* pre_act(const float* y, const float* dy, int64_t n, Act a, std::vector<float>* buf) {
  if (a == Act::None) return dy;
  buf->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) (*buf)[i] = act_grad(y[i], dy[i], a);
  return buf->data();
}

struct Shapes {
  const NodeDesc& n;
  const std::vector<Dims>& in;
  const Dims& out;
};

void conv_grad(const Shapes& s, const float* const* x, const float* g, float* const* dx) {
  const OpAttrs& a = s.n.a;
  const Dims &xs = s.in[0], &w = s.in[1];
  const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], O = w[0], CG = w[1], KH = w[2],
                KW = w[3], OH = s.out[2], OW = s.out[3], OG = O / a.group;
  for (int64_t b = 0; b < N; ++b)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          const float go = g[((b * O + o) * OH + oh) * OW + ow];
          if (s.in.size() == 3 && dx[2]) dx[2][o] += go;
          const int64_t c0 = (o / OG) * CG;
          for (int64_t c = 0; c < CG; ++c)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t h = oh * a.stride[0] - a.pad[0] + kh * a.dilation[0];
                const int64_t ww = ow * a.stride[1] - a.pad[2] + kw * a.dilation[1];
                if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
                const int64_t xi = ((b * C + c0 + c) * H + h) * W + ww;
                const int64_t wi = ((o * CG + c) * KH + kh) * KW + kw;
                if (dx[0]) dx[0][xi] += go * x[1][wi];
                if (dx[1]) dx[1][wi] += go * x[0][xi];
              }
        }
}

// FullyConnected and MatMul: y[i, j] = sum_k A(i, k) B(k, j) (+ bias[j]).
void gemm_grad(const Shapes& s, const float* const* x, const float* g, float* const* dx) {
  const bool fc = s.n.op == OpType::FullyConnected;
  const bool ta = !fc && s.n.a.transpose_a, tb = fc || s.n.a.transpose_b;
  const int64_t M = s.out[0], N = s.out[1], K = ta ? s.in[0][0] : s.in[0][1];
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      const float gij = g[i * N + j];
      if (fc && s.in.size() == 3 && dx[2]) dx[2][j] += gij;
      for (int64_t k = 0; k < K; ++k) {
        const int64_t ai = ta ? k * M + i : i * K + k, bi = tb ? j * K + k : k * N + j;
        if (dx[0]) dx[0][ai] += gij * x[1][bi];
        if (dx[1]) dx[1][bi] += gij * x[0][ai];
      }
    }
}

void pool_grad(const Shapes& s, const float* const* x, const float* g, float* dx) {
  const OpAttrs& a = s.n.a;
  const Dims& xs = s.in[0];
  const int64_t H = xs[2], W = xs[3], OH = s.out[2], OW = s.out[3];
  const bool avg = a.pool == PoolKind::Avg;
  for (int64_t p = 0; p < xs[0] * xs[1]; ++p) {
    const float* src = x[0] + p * H * W;
    float* d = dx + p * H * W;
    for (int64_t oh = 0; oh < OH; ++oh) {
      for (int64_t ow = 0; ow < OW; ++ow) {
        const PoolWindow pw = pool_window(a, H, W, oh, ow);
        const float go = g[(p * OH + oh) * OW + ow];
        if (avg) {
          if (pw.count <= 0) continue;
          for (int64_t h = pw.hs; h < pw.he; ++h)
            for (int64_t w = pw.ws; w < pw.we; ++w)
              d[h * W + w] += go / static_cast<float>(pw.count);
        } else {
          float best = -std::numeric_limits<float>::infinity();
          int64_t at = -1;
          for (int64_t h = pw.hs; h < pw.he; ++h)
            for (int64_t w = pw.ws; w < pw.we; ++w)
              if (at < 0 || src[h * W + w] > best) best = src[h * W + w], at = h * W + w;
          if (at >= 0) d[at] += go;
        }
      }
    }
  }
}

// Each input's strides over the output's dimensions (0 where it is broadcast).
std::vector<int64_t> bcast_strides(const Dims& d, const Dims& out) {
  std::vector<int64_t> st(out.size(), 0);
  int64_t stride = 1;
  for (size_t i = d.size(); i-- > 0;) {
    st[i + (out.size() - d.size())] = d[i] == 1 ? 0 : stride;
    stride *= d[i];
  }
  return st;
}

void eltwise_grad(const Shapes& s, const float* const* x, const float* g, float* const* dx) {
  const Dims& out = s.out;
  const size_t r = out.size();
  const std::vector<int64_t> sa = bcast_strides(s.in[0], out), sb = bcast_strides(s.in[1], out);
  std::vector<int64_t> idx(r, 0);
  int64_t ia = 0, ib = 0;
  const int64_t total = numel(out);
  for (int64_t i = 0; i < total; ++i) {
    const float u = x[0][ia], v = x[1][ib], gi = g[i];
    float da = gi, db = gi;
    switch (s.n.a.elt) {
      case EltKind::Add:
        break;
      case EltKind::Sub:
        db = -gi;
        break;
      case EltKind::Mul:
        da = gi * v, db = gi * u;
        break;
      case EltKind::Div:
        da = gi / v, db = -gi * u / (v * v);
        break;
    }
    if (dx[0]) dx[0][ia] += da;
    if (dx[1]) dx[1][ib] += db;
    for (size_t j = r; j-- > 0;) {
      ia += sa[j], ib += sb[j];
      if (++idx[j] < out[j]) break;
      ia -= sa[j] * out[j], ib -= sb[j] * out[j];
      idx[j] = 0;
    }
  }
}

void transpose_grad(const Shapes& s, const float* g, float* dx) {
  const Dims& x = s.in[0];
  const size_t r = x.size();
  std::vector<int64_t> xs(r, 1), st(r), idx(r, 0);
  for (size_t i = r; i-- > 1;) xs[i - 1] = xs[i] * x[i];
  for (size_t i = 0; i < r; ++i) st[i] = xs[s.n.a.perm[i]];
  int64_t off = 0;
  for (int64_t i = 0; i < numel(s.out); ++i) {
    dx[off] += g[i];
    for (size_t j = r; j-- > 0;) {
      off += st[j];
      if (++idx[j] < s.out[j]) break;
      off -= st[j] * s.out[j];
      idx[j] = 0;
    }
  }
}

void softmax_grad(const Shapes& s, const float* y, const float* g, float* dx) {
  const int64_t r = static_cast<int64_t>(s.out.size());
  const int64_t axis = s.n.a.axis < 0 ? s.n.a.axis + r : s.n.a.axis;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= s.out[i];
  for (int64_t i = axis + 1; i < r; ++i) inner *= s.out[i];
  const int64_t mid = s.out[axis];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * mid * inner + i;
      float dot = 0.f;
      for (int64_t k = 0; k < mid; ++k) dot += g[base + k * inner] * y[base + k * inner];
      for (int64_t k = 0; k < mid; ++k)
        dx[base + k * inner] += y[base + k * inner] * (g[base + k * inner] - dot);
    }
}

// BiasAdd (x + b) and inference BatchNorm ((x - mean) / sqrt(var + eps) * scale + bias).
void channel_grad(const Shapes& s, const float* const* x, const float* g, float* const* dx) {
  const Dims& out = s.out;
  int64_t outer = out[0], c = out[1], inner = 1;
  for (size_t i = 2; i < out.size(); ++i) inner *= out[i];
  const bool bn = s.n.op == OpType::BatchNorm;
  for (int64_t j = 0; j < c; ++j) {
    const float inv = bn ? 1.f / std::sqrt(x[4][j] + s.n.a.epsilon) : 1.f;
    const float mul = bn ? x[1][j] * inv : 1.f;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t at = (o * c + j) * inner + i;
        if (dx[0]) dx[0][at] += g[at] * mul;
        if (bn) {
          if (dx[1]) dx[1][j] += g[at] * (x[0][at] - x[3][j]) * inv;
          if (dx[2]) dx[2][j] += g[at];
        } else if (dx[1]) {
          dx[1][j] += g[at];
        }
      }
  }
}

}  // namespace

void backward(const NodeDesc& n, const std::vector<Dims>& in, const Dims& out,
              const float* const* x, const float* y, const float* dy, float* const* dx) {
  const Shapes s{n, in, out};
  const int64_t total = numel(out);
  std::vector<float> buf;
  switch (n.op) {
    case OpType::Conv2D:
      return conv_grad(s, x, pre_act(y, dy, total, n.a.act, &buf), dx);
    case OpType::FullyConnected:
      return gemm_grad(s, x, pre_act(y, dy, total, n.a.act, &buf), dx);
    case OpType::MatMul:
      return gemm_grad(s, x, dy, dx);
    case OpType::Eltwise:
      return eltwise_grad(s, x, pre_act(y, dy, total, n.a.act, &buf), dx);
    case OpType::Act:
      if (dx[0])
        for (int64_t i = 0; i < total; ++i) dx[0][i] += act_grad(y[i], dy[i], n.a.act);
      return;
    case OpType::Reshape:
      if (dx[0])
        for (int64_t i = 0; i < total; ++i) dx[0][i] += dy[i];
      return;
    case OpType::Pool:
      if (dx[0]) pool_grad(s, x, dy, dx[0]);
      return;
    case OpType::Transpose:
      if (dx[0]) transpose_grad(s, dy, dx[0]);
      return;
    case OpType::Softmax:
      if (dx[0]) softmax_grad(s, y, dy, dx[0]);
      return;
    case OpType::BiasAdd:
    case OpType::BatchNorm:
      return channel_grad(s, x, dy, dx);
  }
  MC_ASSERT(false, "no gradient for ", op_type_name(n.op));
}

}  // namespace mycel::lite
