// Shape logic of the NN family, shared by its inference rules (ops/infer_conv.cc,
// ops/infer_nn.cc) and kernels: the geometry of the windowed ops (Conv2D and its backward ops,
// pooling), the softmax axis split and the normalisation layouts. The rules compute it to
// check the inputs, the kernels again to run, trusting it: every check lives here, so a
// kernel never sees a window it cannot handle.
#pragma once

#include <cstdint>

#include "ops/op_table.h"

namespace mycel {

// A 2-d convolution over NCHW: x[N,C,H,W] * w[O,C/group,kh,kw] -> y[N,O,Ho,Wo]. Pads are in
// input pixels (top, bottom, left, right); dilation is the tap spacing (1 = dense).
struct ConvGeom {
  int64_t n, c, h, w;
  int64_t o, kh, kw;
  int64_t ho, wo;
  int64_t sh, sw, dh, dw;
  int64_t pt, pb, pl, pr;
  int64_t group;
  Shape x_shape() const { return {n, c, h, w}; }
  Shape w_shape() const { return {o, c / group, kh, kw}; }
  Shape y_shape() const { return {n, o, ho, wo}; }
};

// Validates the Conv2D attributes against input shape x and weight shape w (ValueError naming
// `op` and the shapes otherwise) and returns the geometry.
ConvGeom conv_geometry(const char* op, const Shape& x, const Shape& w, const Attrs& attrs);

// The geometry each conv op's kernel runs on, from its (already inferred) inputs.
ConvGeom conv2d_geometry(const KernelContext& ctx);                  // Conv2D(x, w)
ConvGeom conv2d_backprop_input_geometry(const KernelContext& ctx);   // (dout, w), input_size
ConvGeom conv2d_backprop_filter_geometry(const KernelContext& ctx);  // (dout, x), filter_size

// Pooling over the last two dims of NCHW x. Output row i covers input rows
// [i*sh - pt, i*sh - pt + kh), clipped to the input; for averages `clip_h/clip_w` are the
// extents that count towards the divisor (the padded extent where padding counts, else the
// input itself).
struct PoolGeom {
  int64_t n, c, h, w;
  int64_t kh, kw, sh, sw;
  int64_t pt, pb, pl, pr;
  int64_t ho, wo;
  bool count_pad;  // padding (up to the declared pads) counts in averages
  Shape y_shape() const { return {n, c, ho, wo}; }
  // Number of elements an average over window (i, j) divides by.
  int64_t divisor(int64_t i, int64_t j) const;
};

PoolGeom pool_geometry(const char* op, const Shape& x, const Attrs& attrs);

// x viewed as [outer, len, inner] around the softmax axis ("axis": one int, or a tuple of
// exactly one int for Softmax). A 0-d x is one element.
struct AxisSplit {
  int64_t outer, len, inner;
};
AxisSplit softmax_split(const char* op, const Shape& x, const Attrs& attrs);

// BatchNorm's x[N, C] or x[N, C, H, W] as [n, c, s] (s = H*W, or 1).
struct BatchNormGeom {
  int64_t n, c, s;
};
BatchNormGeom batch_norm_geometry(const char* op, const Shape& x);

// LayerNorm's x as `rows` rows of `cols` normalised elements; element f of x uses gamma/beta
// element f % params. `stat_shape` is the mean/rstd shape (normalised axes kept as 1).
struct LayerNormGeom {
  int64_t rows, cols, params;
  Shape param_shape, stat_shape;
};
LayerNormGeom layer_norm_geometry(const char* op, const Shape& x, const Attrs& attrs);

}  // namespace mycel
