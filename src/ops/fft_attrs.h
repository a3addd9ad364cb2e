// The attributes of FFTN (ops/defs/linalg.def), checked and read once: shared by its shape
// rule (ops/infer_linalg.cc), its kernels (kernels/cpu/fft.cc, kernels/ref/fft.cc) and its
// backward rule (compiler/ad/bprop_fft.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/attrs.h"
#include "tensor/tensor.h"

namespace mycel {

enum class FftMode : uint8_t { C2C, R2C, C2R };

struct FftAttrs {
  std::vector<int64_t> axes;   // distinct, in [0, rank)
  std::vector<int64_t> sizes;  // the logical transform length per axis, > 0
  bool inverse = false;
  std::string norm;  // "backward" | "forward" | "ortho"
  FftMode mode = FftMode::C2C;

  // The scale the result is multiplied by: 1, 1/N or 1/sqrt(N), N the product of sizes.
  double scale() const;
  // The length each input line along axes[i] is padded or truncated to before the
  // transform: sizes[i], except the last axis of c2r, whose input is the half spectrum
  // (sizes[-1] // 2 + 1 bins).
  int64_t in_len(size_t i) const;
  // The output length along axes[i]: sizes[i], except the last axis of r2c (half spectrum).
  int64_t out_len(size_t i) const;
};

// Reads and checks the attributes for an input of rank `rank` (ValueError naming `op` for
// axes out of range or repeated, sizes <= 0 or of another length than axes, an unknown norm
// or mode).
FftAttrs read_fft_attrs(const Attrs& attrs, int64_t rank, const char* op);

// The name norm has when its direction flips (the adjoint's): backward <-> forward.
std::string fft_adjoint_norm(const std::string& norm);

}  // namespace mycel
