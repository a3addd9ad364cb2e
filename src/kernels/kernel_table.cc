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

namespace {
std::span<const OpId> g_nondeterministic[kNumDeviceTypes];
std::atomic<bool> g_deterministic{false};
}  // namespace

void mark_device_nondeterministic(DeviceType type, std::span<const OpId> ops) {
  MC_ASSERT(type != DeviceType::CPU);
  g_nondeterministic[static_cast<int>(type)] = ops;
}

bool device_nondeterministic(const OpDef& op, DeviceType type) {
  for (OpId id : g_nondeterministic[static_cast<int>(type)])
    if (id == op.id) return true;
  return false;
}

void set_deterministic(bool on) { g_deterministic.store(on, std::memory_order_relaxed); }
bool deterministic() { return g_deterministic.load(std::memory_order_relaxed); }

KernelFn dispatch_device_kernel(const OpDef& op, DeviceType type) {
  if (deterministic() && device_nondeterministic(op, type)) return nullptr;
  return device_kernel(op, type);
}

}  // namespace mycel
