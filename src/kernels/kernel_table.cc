// The CPU and reference kernel tables, generated from the kernel and ref columns of the op
// table's .def lines (kernel_table.h), and the installed device tables.
#include "kernels/kernel_table.h"

#include <atomic>

namespace mycel {

constinit const KernelFn kCpuKernels[kNumOps] = {
#define OP(name, nin, nout, infer, kernel, ref, ...) &kernel,
#include "ops/defs/all.def"
#undef OP
};

constinit const KernelFn kRefKernels[kNumOps] = {
#define OP(name, nin, nout, infer, kernel, ref, ...) &ref,
#include "ops/defs/all.def"
#undef OP
};

namespace {
std::span<const KernelFn> g_device_kernels[kNumDeviceTypes];
std::atomic<DeviceDtypeRule> g_dtype_rules[kNumDeviceTypes];
}  // namespace

void install_device_kernels(DeviceType type, std::span<const KernelFn> table) {
  MC_ASSERT(type != DeviceType::CPU && table.size() == kNumOps);
  g_device_kernels[static_cast<int>(type)] = table;
}

KernelFn device_kernel(const OpDef& op, DeviceType type) {
  std::span<const KernelFn> t = g_device_kernels[static_cast<int>(type)];
  return t.empty() ? nullptr : t[static_cast<size_t>(op.id)];
}

void install_device_dtype_rule(DeviceType type, DeviceDtypeRule rule) {
  MC_ASSERT(type != DeviceType::CPU);
  g_dtype_rules[static_cast<int>(type)].store(rule);
}

bool device_takes_dtype(const OpDef& op, DeviceType type, DType t) {
  const bool host_only =
      t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64 || is_complex(t);
  if (!host_only) return true;
  DeviceDtypeRule rule = g_dtype_rules[static_cast<int>(type)].load();
  return rule != nullptr && rule(op, t);
}

}  // namespace mycel
