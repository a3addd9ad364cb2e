// Launchers of StandardNormal, UniformReal, RandomPoisson and Dropout on the device (random.cu),
// called by random.cc.
//
// The stream format is the CPU's (kernels/cpu/random_format.h): element i comes from the four
// words of Philox4x32-10 (key, counter offset + i / P) alone. The host reserves the counters
// (next_random_stream, exactly as the CPU kernel does); the device computes one counter per
// thread.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace mycel::cuda {

// Where a random kernel's stream starts: (key, offset) by value, or, in a captured graph
// (dev != nullptr), the two words at dev, which every replay of the graph fills before it
// launches (the draws reserved again from the host's generators, as op by op:
// device/cuda/cuda_capture.h), so a replay draws new numbers.
struct PhiloxSeed {
  uint64_t key = 0;
  uint64_t offset = 0;
  const uint64_t* dev = nullptr;
};

// n elements of dtype code `code` (a float dtype) from counters offset, offset + 1, ...
void launch_standard_normal(int code, void* out, int64_t n, PhiloxSeed seed, cudaStream_t s);
void launch_uniform_real(int code, void* out, int64_t n, PhiloxSeed seed, cudaStream_t s);

// RandomPoisson (kernels/cpu/random_format.h's stream): element i of n (dtype code out_code,
// not bool) is a count of rate[i % nr] (nr contiguous rates of dtype code rate_code, not
// bool) drawn from counter offset + i, with the CPU's sampler (base/poisson_draw.h).
void launch_random_poisson(int rate_code, const void* rate, int64_t nr, int out_code, void* out,
                           int64_t n, PhiloxSeed seed, cudaStream_t s);

// Dropout (kernels/cpu/dropout.cc's stream): element i is kept iff word i % 4 of counter
// offset + i / 4, as a uniform float, is below keep; mask[i] = kept, y[i] = x[i] * (kept *
// (1 / keep)) in the compute type (float for float32 and narrower, double for float64).
// x, y, mask: n contiguous elements of float dtype `code`.
void launch_dropout(int code, const void* x, void* y, void* mask, int64_t n, double keep,
                    PhiloxSeed seed, cudaStream_t s);

}  // namespace mycel::cuda
