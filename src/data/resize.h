// The separable resize kernels behind vision.Resize and RandomResizedCrop (resize.cc). Per-axis
// source indices and weights are computed once per call; a horizontal gather and a vertical
// blend run in float (double for float64 images) and the result is rounded to T. OpenCV's
// modes (Linear, Cubic, Area) use a fixed number of taps; PIL's (Antialias, PilCubic) widen
// the filter with the scale when shrinking and round to T between the two passes, as PIL does.
// Linear on uint8 is OpenCV's fixed-point arithmetic instead (weights in 1/2048, an int32
// horizontal pass, OpenCV's rounding of the vertical blend), so results equal cv::resize's.
#pragma once

#include <cstdint>

#include "data/transforms.h"

namespace mycel::data {

// Resizes the in_h x in_w window at src (HWC, c channels, rows src_stride elements apart) to
// out_h x out_w, written contiguously at dst. interp is not Nearest (a plain gather, done by
// the caller). T: uint8_t, uint16_t, int16_t, float or double.
template <class T>
void resize_separable(const T* src, int64_t src_stride, int64_t c, int64_t in_h, int64_t in_w,
                      int64_t out_h, int64_t out_w, Interp interp, T* dst);

}  // namespace mycel::data
