// The CUDA device's capture backend (tensor/capture.h): stream capture of the device's one
// stream in global mode (cudaStreamBeginCapture/EndCapture), the graph instantiated once
// and replayed with cudaGraphLaunch; allocations during a capture come from a private pool
// of the device's caching allocator (cuda_allocator.h) that the graph keeps until it is
// destroyed. While a device captures, its backend's host<->device copies and synchronize()
// throw (cuda_device.cc), so a step that needs the host fails its capture instead of baking
// a staging buffer's address or a stale value into the graph. Installed by install_cuda.
#pragma once

#include <cstdint>

#include "tensor/capture.h"

namespace mycel::cuda {

CaptureBackend& cuda_capture_backend();

// A random kernel's draw recorded in a capture: next_random_stream's arguments
// (tensor/random.h). Each replay reserves every draw of its graph again, in the captured
// order, exactly as running the step op by op would (the host generators advance the same),
// and copies the (key, offset) pairs to the words the kernels read (kernels/cuda/random.h's
// PhiloxSeed) before it launches the graph.
struct CapturedDraw {
  int64_t seed = 0;
  int64_t seed2 = 0;
  uint64_t count = 0;
  int64_t instance = 0;
};
inline constexpr size_t kMaxCapturedDraws = 4096;  // per graph; more fail the capture

// While device `index` captures: records `d` and returns the device address of its two
// words; nullptr when the device is not capturing (the caller reserves the draw itself).
const uint64_t* capture_random_draw(int index, const CapturedDraw& d);

}  // namespace mycel::cuda
