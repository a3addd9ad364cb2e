// A direct int8 convolution of a single input channel (LeNet's first layer on MNIST-like
// images), for the int8 Conv2D kernel (kernels_int8.cc). oneDNN's int8 convolutions reduce
// over input channels four at a time (VNNI's dot product of four bytes), so one channel wastes
// three quarters of every dot product: its int8 kernel runs slower than its float32 one. This
// kernel reduces over the kernel's columns instead: sixteen output pixels of a row at a time,
// each lane's four bytes gathered from one input row by a byte permutation (AVX-512 VBMI),
// multiplied with four weights of each output channel (VNNI), the requantization in registers
// and the channels interleaved into NHWC by a second permutation. Integer sums, then exactly
// the epilogue of lite/kernels_int8.cc: it equals the reference byte for byte.
#pragma once

#include <cstdint>
#include <vector>

namespace mycel::lite {

// The shapes it takes: one input channel, stride 1, no dilation, group 1, kernel height <= 8
// and width <= 8, at most 8 output channels, a uint8 output; `available()` says whether the
// CPU has AVX-512 BW, VBMI and VNNI.
struct Conv1ch {
  static bool available();
  static bool takes(int64_t in_channels, int64_t out_channels, int64_t kh, int64_t kw,
                    const int64_t stride[2], const int64_t dilation[2], int64_t group);
  // Bytes the input plane's buffer must hold past its last row (whole 64-byte rows are read).
  static constexpr int64_t kSlack = 64;

  // w: [O, 1, KH, KW] int8; comp and scale per output channel (lite/kernels_int8.cc); the
  // output's zero point and clamp [lo, hi].
  Conv1ch(const int8_t* w, int64_t O, int64_t KH, int64_t KW, const std::vector<int64_t>& comp,
          const std::vector<float>& scale, int32_t zy, int32_t lo, int32_t hi);

  // x: N planes [Hp, Wp] of uint8 codes, already padded; y: [N, Hp - KH + 1, Wp - KW + 1, O]
  // uint8 codes (NHWC).
  void run(const uint8_t* x, int64_t N, int64_t Hp, int64_t Wp, uint8_t* y) const;

 private:
  int64_t O, KH, KW, G;        // G: groups of four kernel columns (1 or 2)
  std::vector<uint8_t> perm_;  // the byte permutations (conv_1ch.cc)
  std::vector<int32_t> wdw;    // [O rounded up to 4][KH * G] four weights per dword
  std::vector<float> comp_f;   // float(comp[o]), O rounded up to 4
  std::vector<float> scale_;   // as comp_f
  float zy, lo_z, hi_z;        // zy, lo - zy, hi - zy
  void row(const uint8_t* x, int64_t Wp, int64_t OW, uint8_t* y) const;
};

}  // namespace mycel::lite
