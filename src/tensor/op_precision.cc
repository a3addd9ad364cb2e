// The recorded precision switches of each device type (op_precision.h).
#include "tensor/op_precision.h"

#include <atomic>

namespace mycel {

namespace {

struct Switches {
  std::atomic<bool> matmul_tf32{false};
  std::atomic<bool> conv_tf32{false};
};

Switches& switches(DeviceType type) {
  static Switches s[kNumDeviceTypes];
  return s[static_cast<int>(type)];
}

}  // namespace

OpPrecision op_precision(DeviceType type) {
  const Switches& s = switches(type);
  return {s.matmul_tf32.load(std::memory_order_relaxed),
          s.conv_tf32.load(std::memory_order_relaxed)};
}

void set_op_precision(DeviceType type, const OpPrecision& p) {
  Switches& s = switches(type);
  s.matmul_tf32.store(p.matmul_allow_tf32, std::memory_order_relaxed);
  s.conv_tf32.store(p.conv_allow_tf32, std::memory_order_relaxed);
}

}  // namespace mycel
