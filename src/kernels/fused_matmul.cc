// The installed fused MatMul epilogue functions (fused_matmul.h).
#include "kernels/fused_matmul.h"

#include <atomic>

namespace mycel {

namespace {

std::atomic<FusedMatmulFn>& slot(DeviceType type) {
  static std::atomic<FusedMatmulFn> fns[kNumDeviceTypes] = {};
  return fns[static_cast<int>(type)];
}

}  // namespace

FusedMatmulFn fused_matmul(DeviceType type) {
  return type == DeviceType::CPU ? nullptr : slot(type).load(std::memory_order_acquire);
}

void install_fused_matmul(DeviceType type, FusedMatmulFn fn) {
  slot(type).store(fn, std::memory_order_release);
}

}  // namespace mycel
