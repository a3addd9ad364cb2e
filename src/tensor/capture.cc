#include "tensor/capture.h"

#include <atomic>

#include "base/error.h"

namespace mycel {

namespace {
std::atomic<CaptureBackend*> g_capture[kNumDeviceTypes] = {};
}

CaptureBackend* capture_backend(DeviceType type) {
  return g_capture[static_cast<int>(type)].load(std::memory_order_acquire);
}

void install_capture_backend(DeviceType type, CaptureBackend* backend) {
  MC_ASSERT(type != DeviceType::CPU, "the host captures nothing");
  g_capture[static_cast<int>(type)].store(backend, std::memory_order_release);
}

}  // namespace mycel
