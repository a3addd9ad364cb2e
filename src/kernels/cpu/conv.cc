// Conv2D and its backward ops (Conv2DBackpropInput, Conv2DBackpropFilter) over NCHW.
//
// float32 runs on oneDNN's convolution primitives. Each primitive is built once per geometry
// (dnnl_util's cache) and picks its memory layouts by trying, in order:
//   1. x plain NCHW, weights and output in oneDNN's blocked layout,
//   2. everything blocked,
//   3. everything plain;
// taking the first that gets a direct JIT kernel rather than oneDNN's im2col + GEMM fallback.
// Measured on LeNet's layers (batch 64, one thread, reorders to and from our plain tensors
// included): conv 1->6 5x5 on 32x32 forward 0.53 ms vs 1.09 ms with plain layouts, filter
// gradient 0.55 vs 1.55 ms; conv 6->16 on 14x14 forward 0.27 vs 1.26 ms, data gradient 0.68 vs
// 1.44 ms, filter gradient 0.59 vs 1.32 ms. The plain-x variant saves the input reorder where
// oneDNN reads NCHW directly (few input channels). Backward data with fewer than 4 input
// channels per group stays plain: the blocked layout pads channels to 16, and writing 16
// planes to keep a few is slower than the GEMM path (5.8 ms vs 1.3 ms for LeNet's first layer;
// about even at 4 channels, 2x faster blocked at 6).
//
// Passes with enough work for several threads split their images across them, one
// single-threaded primitive per share (run_dnnl_by_images). Exception: small outputs (at most 4
// positions, as in ResNet's last stage) run as one sgemm over the batch on the plain tensors
// (run_batched_gemm).
//
// bfloat16 runs on oneDNN's bf16 primitives the same way (float32 accumulation inside, AVX-512
// BF16 / AMX where the CPU has them) for passes with enough channels to win (bf16_wins) that get
// a direct kernel; otherwise it and float16 convert to float32 around the float32 path. float64
// runs on an im2col + loop-nest product of our own; a float32 geometry oneDNN has no implementation
// for runs through the float64 path.
#include <omp.h>

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "base/parallel.h"
#include "kernels/cpu/dnnl_util.h"
#include "ops/infer_nn.h"

namespace mycel {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;

enum class Pass : int64_t { Fwd = 1, BwdData = 2, BwdWeights = 3 };

using dnn_t = memory::data_type;

memory::desc md_of(const memory::dims& d, dnn_t type, Tag t) { return memory::desc(d, type, t); }
memory::dims x_dims(const ConvGeom& g) { return {g.n, g.c, g.h, g.w}; }
memory::dims y_dims(const ConvGeom& g) { return {g.n, g.o, g.ho, g.wo}; }
memory::dims w_dims(const ConvGeom& g) {
  if (g.group == 1) return {g.o, g.c, g.kh, g.kw};
  return {g.group, g.o / g.group, g.c / g.group, g.kh, g.kw};
}
memory::desc x_plain(const ConvGeom& g, dnn_t type) { return md_of(x_dims(g), type, Tag::nchw); }
memory::desc y_plain(const ConvGeom& g, dnn_t type) { return md_of(y_dims(g), type, Tag::nchw); }
memory::desc w_plain(const ConvGeom& g, dnn_t type) {
  return md_of(w_dims(g), type, g.group == 1 ? Tag::oihw : Tag::goihw);
}

// A primitive with the layouts it chose, and the reorders between those and our plain ones
// (empty where the layout is plain already).
struct ConvPrim {
  dnnl_util::Prim prim;
  memory::desc md[3];          // x, w, y as the primitive wants them
  dnnl_util::Prim to_prim[3];  // plain -> primitive layout, for the inputs of the pass
  dnnl_util::Prim to_user[3];  // primitive layout -> plain, for the output of the pass
  bool reorder[3] = {false, false, false};
};

bool is_direct(const char* impl) {
  std::string s(impl);
  return s.find("gemm") == std::string::npos && s.rfind("ref", 0) != 0;
}

// Builds the primitive for one layout choice (true = let oneDNN choose), or returns false when
// the implementation it gets is not a direct one and `need_direct` is set.
bool try_make(Pass pass, const ConvGeom& g, dnn_t type, const bool any[3], bool need_direct,
              ConvPrim* out) {
  dnnl::engine& eng = dnnl_util::engine();
  memory::desc plain[3] = {x_plain(g, type), w_plain(g, type), y_plain(g, type)};
  memory::desc want[3] = {any[0] ? md_of(x_dims(g), type, Tag::any) : plain[0],
                          any[1] ? md_of(w_dims(g), type, Tag::any) : plain[1],
                          any[2] ? md_of(y_dims(g), type, Tag::any) : plain[2]};
  memory::dims strides{g.sh, g.sw}, dil{g.dh - 1, g.dw - 1}, pad_l{g.pt, g.pl}, pad_r{g.pb, g.pr};
  auto alg = dnnl::algorithm::convolution_direct;
  dnnl::convolution_forward::primitive_desc fwd(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, alg, want[0], want[1],
                                      want[2], strides, dil, pad_l, pad_r),
      dnnl_util::attr(), eng);
  ConvPrim p;
  int out_index = 0;
  // The pass's primitive from its descriptor pd, with the layouts it chose for x, w and y;
  // operand `out` is what the pass writes.
  auto take = [&]<class P>(std::type_identity<P>, const typename P::primitive_desc& pd,
                           memory::desc x, memory::desc w, memory::desc y, int out) {
    p.md[0] = x, p.md[1] = w, p.md[2] = y;
    if (need_direct && !is_direct(pd.impl_info_str())) return false;
    p.prim = dnnl_util::make_prim<P>(pd);
    out_index = out;
    return true;
  };
  bool made;
  if (pass == Pass::Fwd) {
    made = take(std::type_identity<dnnl::convolution_forward>{}, fwd, fwd.src_desc(),
                fwd.weights_desc(), fwd.dst_desc(), 2);
  } else if (pass == Pass::BwdData) {
    dnnl::convolution_backward_data::primitive_desc pd(
        dnnl::convolution_backward_data::desc(alg, want[0], want[1], want[2], strides, dil, pad_l,
                                              pad_r),
        dnnl_util::attr(), eng, fwd);
    made = take(std::type_identity<dnnl::convolution_backward_data>{}, pd, pd.diff_src_desc(),
                pd.weights_desc(), pd.diff_dst_desc(), 0);
  } else {
    dnnl::convolution_backward_weights::primitive_desc pd(
        dnnl::convolution_backward_weights::desc(alg, want[0], want[1], want[2], strides, dil,
                                                 pad_l, pad_r),
        dnnl_util::attr(), eng, fwd);
    made = take(std::type_identity<dnnl::convolution_backward_weights>{}, pd, pd.src_desc(),
                pd.diff_weights_desc(), pd.diff_dst_desc(), 1);
  }
  if (!made) return false;
  for (int i = 0; i < 3; ++i) {
    if (p.md[i] == plain[i]) continue;
    p.reorder[i] = true;
    if (i == out_index) {
      p.to_user[i] = dnnl_util::make_reorder(p.md[i], plain[i]);
    } else {
      p.to_prim[i] = dnnl_util::make_reorder(plain[i], p.md[i]);
    }
  }
  *out = std::move(p);
  return true;
}

// The first layout choice that works (see the top of the file); an empty primitive when
// oneDNN has no implementation for the geometry at all, or, for bfloat16, no direct one (the
// caller then runs it in float32, faster than a reference bf16 kernel).
std::shared_ptr<ConvPrim> make_prim(Pass pass, const ConvGeom& g, dnn_t type) {
  auto p = std::make_shared<ConvPrim>();
  const bool x_plain_rest_any[3] = {false, true, true};
  const bool all_any[3] = {true, true, true};
  const bool all_plain[3] = {false, false, false};
  auto attempt = [&](const bool any[3], bool need_direct) {
    try {
      return try_make(pass, g, type, any, need_direct, p.get());
    } catch (const dnnl::error&) {
      return false;
    }
  };
  bool small_dx = pass == Pass::BwdData && g.c / g.group < 4;
  if (!small_dx && (attempt(x_plain_rest_any, true) || attempt(all_any, true))) return p;
  if (type != dnn_t::f32 || !attempt(all_plain, false)) p->prim = dnnl_util::Prim();
  return p;
}

// Everything the primitive depends on, the thread count included: oneDNN sizes a primitive's
// work split and scratchpad for the OpenMP threads available when it is created.
dnnl_util::Key conv_key(Pass pass, const ConvGeom& g, dnn_t type) {
  int64_t p = dnnl_util::kTagConv + static_cast<int64_t>(pass);
  return {p,
          static_cast<int64_t>(type),
          g.n,
          g.c,
          g.h,
          g.w,
          g.o,
          g.kh,
          g.kw,
          g.sh,
          g.sw,
          g.dh,
          g.dw,
          g.pt,
          g.pb,
          g.pl,
          g.pr,
          g.group,
          omp_get_max_threads()};
}

// The cached primitive for pass over g (made on first use for the current thread count).
std::shared_ptr<ConvPrim> conv_prim(Pass pass, const ConvGeom& g, dnn_t type) {
  return dnnl_util::cached<ConvPrim>(conv_key(pass, g, type),
                                     [&] { return make_prim(pass, g, type); });
}

// Runs p on x, w, y (one of which is the pass's output): reorders in, the primitive, reorders
// out, on the calling thread's stream. `w_blocked` (optional): the weights (or, for the filter
// gradient, the buffer it is written to) already in the primitive's layout p.md[1], which then
// skips w's reorder (run_dnnl_by_images reorders them once for all its shares).
void execute(const ConvPrim& p, Pass pass, const ConvGeom& g, dnn_t type, const Tensor& x,
             const Tensor& w, const Tensor& y, const memory* w_blocked = nullptr) {
  dnnl::stream& s = dnnl_util::stream();
  memory user[3] = {dnnl_util::wrap(x_plain(g, type), x), dnnl_util::wrap(w_plain(g, type), w),
                    dnnl_util::wrap(y_plain(g, type), y)};
  memory used[3];
  std::vector<dnnl_util::Scratch> keep;
  keep.reserve(8);
  for (int i = 0; i < 3; ++i) {
    if (i == 1 && w_blocked != nullptr) {
      used[i] = *w_blocked;
      continue;
    }
    if (!p.reorder[i]) {
      used[i] = user[i];
      continue;
    }
    keep.push_back(dnnl_util::scratch(p.md[i]));
    used[i] = keep.back().mem;
    if (p.to_prim[i]) {
      p.to_prim[i].execute(s, {{DNNL_ARG_FROM, user[i]}, {DNNL_ARG_TO, used[i]}}, &keep);
    }
  }
  const int args[3][3] = {{DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST},
                          {DNNL_ARG_DIFF_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_DST},
                          {DNNL_ARG_SRC, DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_DST}};
  const int* a = args[static_cast<int>(pass) - 1];
  p.prim.execute(s, {{a[0], used[0]}, {a[1], used[1]}, {a[2], used[2]}}, &keep);
  for (int i = 0; i < 3; ++i) {
    if (i == 1 && w_blocked != nullptr) continue;
    if (p.to_user[i]) {
      p.to_user[i].execute(s, {{DNNL_ARG_FROM, used[i]}, {DNNL_ARG_TO, user[i]}}, &keep);
    }
  }
  s.wait();
}

// The weights' reorder between the plain layout and `blocked` (the shares' primitives'
// layout) for all threads at once: to the primitive's layout for the forward and data-gradient
// passes, back to plain for the filter gradient. Cached per pass, geometry and thread count.
std::shared_ptr<dnnl_util::Prim> weight_reorder(Pass pass, const ConvGeom& g,
                                                const memory::desc& blocked) {
  dnnl_util::Key key = conv_key(pass, g, dnn_t::f32);
  key[0] += 8;  // the pass's tag, moved past the three passes' own
  return dnnl_util::cached<dnnl_util::Prim>(key, [&] {
    const memory::desc plain = w_plain(g, dnn_t::f32);
    return std::make_shared<dnnl_util::Prim>(pass == Pass::BwdWeights
                                                 ? dnnl_util::make_reorder(blocked, plain)
                                                 : dnnl_util::make_reorder(plain, blocked));
  });
}

// A float32 pass with its images split across the threads: each thread runs a one-thread
// primitive (reorders included) on its share, writing its images' part of y or x directly; the
// filter gradient takes a partial sum per share, added in share order. oneDNN's own threading
// of a primitive synchronises its threads inside (spinning barriers in the filter gradient's
// reduction), which on this shared 2-core machine turned a 1.3 ms single-threaded filter
// gradient (64->64 3x3 on 16x16, batch 16) into 5-12 ms whenever the other thread was
// descheduled; independent shares wait only at the end. False (nothing run) when the
// primitives are not available.
//
// Where the shares' primitives want the weights in the same blocked layout, the weights are
// reordered once, by all threads, rather than by every share (forward, data gradient), and the
// filter gradient's partial sums are added in that layout and reordered back once: each share
// reordered the whole weight tensor before, the largest of a step's reorders with 256 and 512
// channels. The sums are the same, in the same order.
bool run_dnnl_by_images(Pass pass, const ConvGeom& g, const Tensor& x, const Tensor& w,
                        const Tensor& y) {
  const int64_t parts = std::min<int64_t>(num_threads(), g.n);
  ConvGeom share[2] = {g, g};  // the smaller and the larger share (sizes differ by at most 1)
  share[0].n = g.n / parts;
  share[1].n = (g.n + parts - 1) / parts;
  std::shared_ptr<ConvPrim> prim[2];
  {
    SerialBelow one_thread(0);  // built for the thread that runs them
    for (int i = 0; i < 2; ++i) prim[i] = conv_prim(pass, share[i], dnn_t::f32);
  }
  if (!prim[0]->prim || !prim[1]->prim) return false;
  const bool shared_w =
      parts > 1 && prim[0]->reorder[1] && prim[1]->reorder[1] && prim[0]->md[1] == prim[1]->md[1];
  std::vector<dnnl_util::Scratch> keep;
  std::vector<memory> blocked;  // shared_w: the weights (one) or the partial sums (per share)
  std::shared_ptr<dnnl_util::Prim> reorder_w;
  if (shared_w) {
    reorder_w = weight_reorder(pass, share[1], prim[1]->md[1]);
    const int64_t n = pass == Pass::BwdWeights ? parts : 1;
    for (int64_t i = 0; i < n; ++i) {
      keep.push_back(dnnl_util::scratch(prim[1]->md[1]));
      blocked.push_back(keep.back().mem);
    }
    if (pass != Pass::BwdWeights) {
      dnnl::stream& s = dnnl_util::stream();
      reorder_w->execute(
          s,
          {{DNNL_ARG_FROM, dnnl_util::wrap(w_plain(g, dnn_t::f32), w)}, {DNNL_ARG_TO, blocked[0]}},
          &keep);
      s.wait();
    }
  }
  std::vector<Tensor> partial(static_cast<size_t>(parts), w);
  if (pass == Pass::BwdWeights && !shared_w) {
    for (int64_t i = 1; i < parts; ++i) partial[i] = Tensor::empty(w.shape(), w.dtype());
  }
  parallel_for(0, parts, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t n0 = g.n * i / parts, n1 = g.n * (i + 1) / parts;
      const int k = n1 - n0 == share[0].n ? 0 : 1;
      const memory* wb = !shared_w ? nullptr : &blocked[pass == Pass::BwdWeights ? i : 0];
      execute(*prim[k], pass, share[k], dnn_t::f32, x.slice(0, n0, n1, 1), partial[i],
              y.slice(0, n0, n1, 1), wb);
    }
  });
  if (pass != Pass::BwdWeights) return true;
  // The partial sums added in share order: into w, or into the first blocked buffer, which
  // is then reordered into w.
  const int64_t count =
      shared_w ? static_cast<int64_t>(prim[1]->md[1].get_size() / sizeof(float)) : w.numel();
  auto data = [&](int64_t i) {
    return shared_w ? static_cast<float*>(blocked[i].get_data_handle()) : partial[i].data<float>();
  };
  float* out = data(0);
  parallel_for(0, count, 16384, [&](int64_t b, int64_t e) {
    for (int64_t i = 1; i < parts; ++i) {
      const float* part = data(i);
      for (int64_t j = b; j < e; ++j) out[j] += part[j];
    }
  });
  if (shared_w) {
    dnnl::stream& s = dnnl_util::stream();
    reorder_w->execute(
        s, {{DNNL_ARG_FROM, blocked[0]}, {DNNL_ARG_TO, dnnl_util::wrap(w_plain(g, dnn_t::f32), w)}},
        &keep);
    s.wait();
  }
  return true;
}

// Runs one pass on float32 or bfloat16 tensors x, w, y (one of which is the pass's output);
// false when oneDNN cannot run this geometry (for bfloat16: has no direct kernel for it).
// float32 passes with enough work for several threads go through run_dnnl_by_images.
bool run_dnnl(Pass pass, const ConvGeom& g, const Tensor& x, const Tensor& w, const Tensor& y) {
  const dnn_t type = x.dtype() == DType::BFloat16 ? dnn_t::bf16 : dnn_t::f32;
  const int64_t work = g.n * g.o * g.ho * g.wo * (g.c / g.group) * g.kh * g.kw;
  if (type == dnn_t::f32 && work >= kSerialWork && g.n >= 2 && num_threads() >= 2 &&
      !in_parallel_region() && run_dnnl_by_images(pass, g, x, w, y)) {
    return true;
  }
  SerialBelow serial(work);
  std::shared_ptr<ConvPrim> p = conv_prim(pass, g, type);
  if (!p->prim) return false;
  execute(*p, pass, g, type, x, w, y);
  return true;
}

// ---- float64: im2col + loop-nest products ----

// Division rounding down / up, for numerators of either sign (positive d).
int64_t floor_div(int64_t a, int64_t d) { return a >= 0 ? a / d : -((-a + d - 1) / d); }
int64_t ceil_div(int64_t a, int64_t d) { return -floor_div(-a, d); }

// col[(c*kh + i)*kw + j][oh*wo + ow] = x[c][oh*sh - pt + i*dh][ow*sw - pl + j*dw] (0 outside),
// for the `cg` channels starting at x; rows of col are `ld` elements apart (ho*wo for one
// image's matrix, more where several images sit side by side). Each tap's columns inside the
// input, [lo, hi), are found once: a copy (a contiguous one at stride 1) between zero edges.
template <class T>
void im2col(const T* x, const ConvGeom& g, int64_t cg, T* col, int64_t ld) {
  for (int64_t j = 0; j < g.kw; ++j) {
    const int64_t shift = j * g.dw - g.pl;  // iw = ow*sw + shift
    const int64_t lo = std::clamp<int64_t>(ceil_div(-shift, g.sw), 0, g.wo);
    const int64_t hi = std::clamp<int64_t>(floor_div(g.w - 1 - shift, g.sw) + 1, lo, g.wo);
    for (int64_t c = 0; c < cg; ++c) {
      for (int64_t i = 0; i < g.kh; ++i) {
        T* row = col + ((c * g.kh + i) * g.kw + j) * ld;
        for (int64_t oh = 0; oh < g.ho; ++oh) {
          int64_t ih = oh * g.sh - g.pt + i * g.dh;
          T* r = row + oh * g.wo;
          if (ih < 0 || ih >= g.h) {
            std::fill(r, r + g.wo, T(0));
            continue;
          }
          const T* xr = x + (c * g.h + ih) * g.w;
          std::fill(r, r + lo, T(0));
          if (g.sw == 1) {
            std::copy(xr + lo + shift, xr + hi + shift, r + lo);
          } else {
            for (int64_t ow = lo; ow < hi; ++ow) r[ow] = xr[ow * g.sw + shift];
          }
          std::fill(r + hi, r + g.wo, T(0));
        }
      }
    }
  }
}

// The adjoint of im2col: dx[c][ih][iw] += col[...] over every tap that read it.
void col2im(const double* col, const ConvGeom& g, int64_t cg, double* dx) {
  int64_t p = g.ho * g.wo;
  for (int64_t c = 0; c < cg; ++c) {
    for (int64_t i = 0; i < g.kh; ++i) {
      for (int64_t j = 0; j < g.kw; ++j) {
        const double* row = col + ((c * g.kh + i) * g.kw + j) * p;
        for (int64_t oh = 0; oh < g.ho; ++oh) {
          int64_t ih = oh * g.sh - g.pt + i * g.dh;
          if (ih < 0 || ih >= g.h) continue;
          double* xr = dx + (c * g.h + ih) * g.w;
          const double* r = row + oh * g.wo;
          for (int64_t ow = 0; ow < g.wo; ++ow) {
            int64_t iw = ow * g.sw - g.pl + j * g.dw;
            if (iw >= 0 && iw < g.w) xr[iw] += r[ow];
          }
        }
      }
    }
  }
}

// c[m][n] (+)= sum_k a[m][k] * b[k][n]; a is m x k, b is k x n, all row-major.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void gemm_nn(
    int64_t m, int64_t n, int64_t k, const double* a, const double* b, double* c, bool accumulate) {
  for (int64_t i = 0; i < m; ++i) {
    double* ci = c + i * n;
    if (!accumulate) std::fill(ci, ci + n, 0.0);
    for (int64_t kk = 0; kk < k; ++kk) {
      double av = a[i * k + kk];
      const double* bk = b + kk * n;
      for (int64_t j = 0; j < n; ++j) ci[j] += av * bk[j];
    }
  }
}

// c[k][n] = sum_m a[m][k] * b[m][n] (a transposed); a is m x k.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void gemm_tn(
    int64_t m, int64_t n, int64_t k, const double* a, const double* b, double* c) {
  std::fill(c, c + k * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    const double* bi = b + i * n;
    for (int64_t kk = 0; kk < k; ++kk) {
      double av = a[i * k + kk];
      double* ck = c + kk * n;
      for (int64_t j = 0; j < n; ++j) ck[j] += av * bi[j];
    }
  }
}

// c[m][k] += sum_n a[m][n] * b[k][n] (b transposed).
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void gemm_nt(
    int64_t m, int64_t n, int64_t k, const double* a, const double* b, double* c) {
  for (int64_t i = 0; i < m; ++i) {
    const double* ai = a + i * n;
    for (int64_t kk = 0; kk < k; ++kk) {
      const double* bk = b + kk * n;
      double s = 0;
#pragma omp simd reduction(+ : s)
      for (int64_t j = 0; j < n; ++j) s += ai[j] * bk[j];
      c[i * k + kk] += s;
    }
  }
}

int64_t image_grain(const ConvGeom& g) {
  int64_t work = g.o * g.ho * g.wo * (g.c / g.group) * g.kh * g.kw;
  return std::max<int64_t>(1, 65536 / std::max<int64_t>(1, work));
}

void run_f64(Pass pass, const ConvGeom& g, const Tensor& x, const Tensor& w, const Tensor& y) {
  const int64_t cg = g.c / g.group, og = g.o / g.group;
  const int64_t kdim = cg * g.kh * g.kw, p = g.ho * g.wo;
  double* xp = x.data<double>();
  double* wp = w.data<double>();
  double* yp = y.data<double>();
  if (pass == Pass::BwdWeights) {
    // Fixed chunks of images, each with its own partial sum, added in order: the result
    // depends on the thread count only through that count.
    int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(num_threads(), g.n));
    std::vector<std::vector<double>> partial(static_cast<size_t>(chunks));
    int64_t wsize = g.o * kdim;
    parallel_for(0, chunks, 1, [&](int64_t cb, int64_t ce) {
      std::vector<double> col(static_cast<size_t>(kdim * p));
      for (int64_t ch = cb; ch < ce; ++ch) {
        std::vector<double>& acc = partial[static_cast<size_t>(ch)];
        acc.assign(static_cast<size_t>(wsize), 0.0);
        for (int64_t n = g.n * ch / chunks; n < g.n * (ch + 1) / chunks; ++n) {
          for (int64_t gr = 0; gr < g.group; ++gr) {
            im2col(xp + (n * g.c + gr * cg) * g.h * g.w, g, cg, col.data(), p);
            gemm_nt(og, p, kdim, yp + (n * g.o + gr * og) * p, col.data(),
                    acc.data() + gr * og * kdim);
          }
        }
      }
    });
    std::fill(wp, wp + wsize, 0.0);
    for (const auto& acc : partial) {
      if (acc.empty()) continue;
      for (int64_t i = 0; i < wsize; ++i) wp[i] += acc[static_cast<size_t>(i)];
    }
    return;
  }
  parallel_for(0, g.n, image_grain(g), [&](int64_t b, int64_t e) {
    std::vector<double> col(static_cast<size_t>(kdim * p));
    for (int64_t n = b; n < e; ++n) {
      if (pass == Pass::BwdData)
        std::fill(xp + n * g.c * g.h * g.w, xp + (n + 1) * g.c * g.h * g.w, 0.0);
      for (int64_t gr = 0; gr < g.group; ++gr) {
        double* xg = xp + (n * g.c + gr * cg) * g.h * g.w;
        double* yg = yp + (n * g.o + gr * og) * p;
        const double* wg = wp + gr * og * kdim;
        if (pass == Pass::Fwd) {
          im2col(xg, g, cg, col.data(), p);
          gemm_nn(og, p, kdim, wg, col.data(), yg, false);
        } else {
          gemm_tn(og, p, kdim, wg, yg, col.data());
          col2im(col.data(), g, cg, xg);
        }
      }
    }
  });
}

// ---- float32 on small outputs: one sgemm over a batch of images ----

// Whether a float32 pass runs as run_batched_gemm rather than on oneDNN's direct kernels: every
// pass of an ungrouped convolution whose output has at most 4 positions (ResNet's last stage:
// 2x2 at 64x64 inputs). There the direct kernels spend their time on padding and on reordering
// the large weights into oneDNN's blocked layouts (a different one per pass, and the filter
// gradient back), while one product over the whole batch reads the plain weights where they
// lie. Measured here (batch 16, one thread, ms, oneDNN with its reorders vs batched gemm):
// 512->512 3x3 on 2x2 forward 6.1-8.1 vs 2.2-2.3, filter gradient 20.6-34.1 vs 2.2-2.4, data
// gradient 2.8-9.5 (in a training step: 1.9 ms of it the weights' reorder) vs 2.1 (1.8 of it the
// product); 256->512 stride 2 on 4x4 forward 1.6-2.0 vs 1.1, filter gradient 4.5-5.9 vs 1.1,
// data gradient 2.0-2.3 vs 1.3-1.4. Larger outputs stay on oneDNN (4x4 256->256: 1.7 vs 2.0-2.2
// forward, 1.4 vs 2.3-2.7 data gradient).
// The filter gradient also takes the batched gemm up to 16 output positions (ResNet-18's 4x4
// stage) for kernels larger than 1x1: with two threads oneDNN splits the images, each share
// reordering the weights' gradient and the shares summed, while the one product needs neither.
// Measured (batch 16, two threads, process CPU ms, oneDNN vs batched gemm): 256->256 3x3 on 4x4
// 3.3-3.4 vs 2.4-2.5, 128->256 3x3 stride 2 to 4x4 1.56-1.68 vs 1.22-1.26; one thread 2.6-2.9 vs
// 2.5-2.6 and 1.33 vs 1.29; 1x1 128->256 stride 2 0.20 vs 0.22-0.23 (stays on oneDNN); 8x8
// outputs lose (128->128 3x3 1.8 vs 3.4-3.7).
bool batched_gemm_wins(Pass pass, const ConvGeom& g) {
  if (g.group != 1) return false;
  const int64_t positions = g.ho * g.wo;
  return positions <= 4 || (pass == Pass::BwdWeights && positions <= 16 && g.kh * g.kw > 1);
}

// The taps of output position (oh, ow): for tap t = i*kw + j, in[t] = ih*w + iw, the element of
// a channel's plane it reads (ih = oh*sh - pt + i*dh, iw = ow*sw - pl + j*dw), or -1 where it
// falls in the padding. Found once per position, so the loops over the channels below run
// without bounds checks (with them per channel and tap, the layout change took about as long
// as the product for ResNet's 512-channel 3x3 layers on 2x2).
void position_taps(const ConvGeom& g, int64_t oh, int64_t ow, int64_t* in) {
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t ih = oh * g.sh - g.pt + i * g.dh;
    for (int64_t j = 0; j < g.kw; ++j) {
      const int64_t iw = ow * g.sw - g.pl + j * g.dw;
      const bool inside = ih >= 0 && ih < g.h && iw >= 0 && iw < g.w;
      in[i * g.kw + j] = inside ? ih * g.w + iw : -1;
    }
  }
}

// One image's transposed im2col matrix, colt[oh*wo + ow][(c*kh + i)*kw + j] (0 where the tap
// falls in the padding), and its adjoint, which sums colt's entries into x (for each element
// of x in the order of (oh, ow, i, j), as a loop over the taps of each position would).
void im2col_transposed(const float* x, const ConvGeom& g, float* colt) {
  const int64_t taps = g.kh * g.kw, kdim = g.c * taps, plane = g.h * g.w;
  std::vector<int64_t> in(static_cast<size_t>(taps));
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      float* r = colt + (oh * g.wo + ow) * kdim;
      position_taps(g, oh, ow, in.data());
      for (int64_t t = 0; t < taps; ++t) {
        const int64_t q = in[static_cast<size_t>(t)];
        if (q < 0) {
          for (int64_t c = 0; c < g.c; ++c) r[c * taps + t] = 0.0f;
        } else {
          for (int64_t c = 0; c < g.c; ++c) r[c * taps + t] = x[c * plane + q];
        }
      }
    }
  }
}
void col2im_transposed(const float* colt, const ConvGeom& g, float* x) {
  const int64_t taps = g.kh * g.kw, kdim = g.c * taps, plane = g.h * g.w;
  std::vector<int64_t> in(static_cast<size_t>(taps));
  std::fill(x, x + g.c * plane, 0.0f);
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      const float* r = colt + (oh * g.wo + ow) * kdim;
      position_taps(g, oh, ow, in.data());
      for (int64_t t = 0; t < taps; ++t) {
        const int64_t q = in[static_cast<size_t>(t)];
        if (q < 0) continue;
        for (int64_t c = 0; c < g.c; ++c) x[c * plane + q] += r[c * taps + t];
      }
    }
  }
}

// The three passes over a chunk of images, with colt [images*ho*wo x c*kh*kw] their transposed
// im2col matrices (one row per output position, written or read in place by each image) and
// yt [o x images*ho*wo] the output or its gradient gathered by channel. Forward: yt = w . colt^T,
// scattered to NCHW y. Data gradient: colt = yt^T . w, summed into x per image. Filter gradient:
// w = yt . colt, accumulated over the chunks (colt stays under kColBytes: 4 MiB, ResNet-18's
// batch 16 in one chunk).
void run_batched_gemm(Pass pass, const ConvGeom& g, const Tensor& x, const Tensor& w,
                      const Tensor& y) {
  constexpr int64_t kColBytes = int64_t{4} << 20;
  const int64_t p = g.ho * g.wo, kdim = g.c * g.kh * g.kw, xsize = g.c * g.h * g.w;
  const int64_t chunk = std::clamp<int64_t>(kColBytes / (4 * kdim * p), 1, g.n);
  SerialBelow serial(g.n * p * g.o * kdim);
  std::shared_ptr<Storage> col_s = Storage::allocate(sizeof(float) * kdim * p * chunk);
  std::shared_ptr<Storage> yt_s = Storage::allocate(sizeof(float) * g.o * p * chunk);
  float* colt = static_cast<float*>(col_s->data());
  float* yt = static_cast<float*>(yt_s->data());
  float* xp = x.data<float>();
  float* wp = w.data<float>();
  float* yp = y.data<float>();
  for (int64_t n0 = 0; n0 < g.n; n0 += chunk) {
    const int64_t nc = std::min(chunk, g.n - n0), np = nc * p;
    // fn(image's x, its rows of colt) for each image of the chunk, in parallel.
    auto per_image = [&](auto&& fn) {
      parallel_for(0, nc, std::max<int64_t>(1, 32768 / (kdim * p)), [&](int64_t b, int64_t e) {
        for (int64_t n = b; n < e; ++n) fn(xp + (n0 + n) * xsize, colt + n * p * kdim);
      });
    };
    // yt[o][n*p + q] <-> y[n0 + n][o][q], one p-long run per (n, o).
    auto move_y = [&](bool to_yt) {
      parallel_for(0, nc * g.o, std::max<int64_t>(1, 32768 / p), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          float* t = yt + (i % g.o) * np + (i / g.o) * p;
          float* u = yp + (n0 * g.o + i) * p;
          if (to_yt) {
            std::copy(u, u + p, t);
          } else {
            std::copy(t, t + p, u);
          }
        }
      });
    };
    dnnl_status_t st;
    if (pass == Pass::BwdData) {
      move_y(true);
      st = dnnl_sgemm('T', 'N', np, kdim, g.o, 1.0f, yt, np, wp, kdim, 0.0f, colt, kdim);
      per_image([&](float* xi, const float* ci) { col2im_transposed(ci, g, xi); });
    } else {
      per_image([&](const float* xi, float* ci) { im2col_transposed(xi, g, ci); });
      if (pass == Pass::Fwd) {
        st = dnnl_sgemm('N', 'T', g.o, np, kdim, 1.0f, wp, kdim, colt, kdim, 0.0f, yt, np);
        move_y(false);
      } else {
        move_y(true);
        st = dnnl_sgemm('N', 'N', g.o, kdim, np, 1.0f, yt, np, colt, kdim, n0 == 0 ? 0.0f : 1.0f,
                        wp, kdim);
      }
    }
    MC_ASSERT(st == dnnl_success, "dnnl_sgemm failed (", static_cast<int>(st), ")");
  }
}

// Runs `run` on copies of x, w, y converted to `via`, then writes the pass's output back: for
// the types we do not run natively (float16, bfloat16 via float32), and for float32
// geometries oneDNN has no implementation for (via float64).
template <class F>
void run_converted(Pass pass, DType via, const Tensor& x, const Tensor& w, const Tensor& y,
                   F&& run) {
  const Tensor* t[3] = {&x, &w, &y};
  int oi = pass == Pass::Fwd ? 2 : pass == Pass::BwdData ? 0 : 1;
  Tensor f[3];
  for (int i = 0; i < 3; ++i) {
    f[i] = i == oi ? Tensor::empty(t[i]->shape(), via) : t[i]->cast(via);
  }
  run(f[0], f[1], f[2]);
  t[oi]->copy_from(f[oi]);
}

// Whether oneDNN's bf16 kernel beats converting to float32 for this pass: it does once the
// channels fill its vectors. Measured here (batch 64 / 32, one pass, microseconds, float32 vs
// bf16): forward 1->6 5x5 1877/1619, 6->16 341/773, 16->32 3x3 5193/1781, 64->64 23383/4478;
// data gradient 6->16 979/243, 16->32 5840/1713; filter gradient 1->6 3704/10926, 6->16
// 699/6399, 16->32 9510/11343, 64->64 27538/14617.
bool bf16_wins(Pass pass, const ConvGeom& g) {
  const int64_t cg = g.c / g.group, og = g.o / g.group;
  switch (pass) {
    case Pass::Fwd:
      return cg >= 16;
    case Pass::BwdData:
      return og >= 16 && cg >= 4;
    case Pass::BwdWeights:
      return cg >= 32 && og >= 32;
  }
  return false;
}

// Dispatches one pass on x, w, y (the pass's output among them, already allocated).
void run_pass(const char* op, Pass pass, const ConvGeom& g, const Tensor& x, const Tensor& w,
              const Tensor& y) {
  const Tensor& out = pass == Pass::Fwd ? y : pass == Pass::BwdData ? x : w;
  if (out.numel() == 0) return;
  if (g.n == 0) {  // only the filter gradient is nonempty: no images contribute
    out.fill(Scalar::from_int(0));
    return;
  }
  auto f64 = [&](const Tensor& a, const Tensor& b, const Tensor& c) { run_f64(pass, g, a, b, c); };
  auto f32 = [&](const Tensor& a, const Tensor& b, const Tensor& c) {
    if (batched_gemm_wins(pass, g)) {
      run_batched_gemm(pass, g, a, b, c);
    } else if (!run_dnnl(pass, g, a, b, c)) {
      run_converted(pass, DType::Float64, a, b, c, f64);
    }
  };
  dispatch_float(out.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float>) {
      f32(x, w, y);
    } else if constexpr (std::is_same_v<T, double>) {
      f64(x, w, y);
    } else if (std::is_same_v<T, bfloat16> && bf16_wins(pass, g) && run_dnnl(pass, g, x, w, y)) {
      return;
    } else {
      run_converted(pass, DType::Float32, x, w, y, f32);
    }
  });
}

}  // namespace

void cpu_conv2d(const KernelContext& ctx) {
  ConvGeom g = conv2d_geometry(ctx);
  run_pass(ctx.op.name, Pass::Fwd, g, ctx.in[0], ctx.in[1], ctx.out[0]);
}

void cpu_conv2d_backprop_input(const KernelContext& ctx) {
  ConvGeom g = conv2d_backprop_input_geometry(ctx);
  run_pass(ctx.op.name, Pass::BwdData, g, ctx.out[0], ctx.in[1], ctx.in[0]);
}

void cpu_conv2d_backprop_filter(const KernelContext& ctx) {
  ConvGeom g = conv2d_backprop_filter_geometry(ctx);
  run_pass(ctx.op.name, Pass::BwdWeights, g, ctx.in[1], ctx.out[0], ctx.in[0]);
}

}  // namespace mycel
