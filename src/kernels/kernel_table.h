// The kernels of each op: the binding of the op table (ops/op_table.h) to the kernel layer.
//
// The kernel and ref columns of an op's line in ops/defs/*.def name its optimised CPU kernel
// (kernels/cpu/) and its reference kernel (kernels/ref/). The declarations below and the
// tables in kernel_table.cc are generated from those lines, so a kernel that is named but
// not written fails to link. The op table itself (names, attributes, inference) knows no
// kernel: the layers above ops look kernels up here (the runtime's dispatcher, tests).
//
// A device's kernels (kernels/cuda) are a table indexed by OpId that its library installs
// when the device is found (cuda::install_cuda()); a host without one has none, and the
// dispatcher runs the CPU kernel on copies (runtime/eager.h, launch_kernel).
//
// Every lookup is an array index: no registration at static-initialisation time, and nothing
// to install for the CPU.
#pragma once

#include <span>

#include "ops/op_table.h"

namespace mycel {

// One declaration per kernel and reference named in the .def files.
#define OP(name, nin, nout, infer, kernel, ref, ...) \
  void kernel(const KernelContext&);                 \
  void ref(const KernelContext&);
#include "ops/defs/all.def"
#undef OP

// Indexed by OpId, constant-initialised from the .def lines (kernel_table.cc).
extern const KernelFn kCpuKernels[kNumOps];
extern const KernelFn kRefKernels[kNumOps];

// The op's optimised CPU kernel, and its naive reference kernel (the oracle tests compare
// the kernels against). Never nullptr.
inline KernelFn cpu_kernel(const OpDef& op) { return kCpuKernels[static_cast<size_t>(op.id)]; }
inline KernelFn ref_kernel(const OpDef& op) { return kRefKernels[static_cast<size_t>(op.id)]; }

// A non-CPU device's kernels, indexed by OpId, nullptr where the device has none. Installed
// by the device's kernel library (kernels/cuda: install_cuda()); `table` must outlive every
// op call (a static table).
void install_device_kernels(DeviceType type, std::span<const KernelFn> table);
KernelFn device_kernel(const OpDef& op, DeviceType type);  // nullptr for none, and for CPU

// Which dtypes a device kernel takes. Without a rule installed, a device's kernels take every
// dtype but the host-only ones (uint16, uint32, uint64 and the complex dtypes: its kernels
// are not built for them); a device library that runs some ops on more dtypes installs a rule
// (kernels/cuda: the complex ops, and FFTN where cuFFT loads). The dispatcher runs an op on
// host copies when any of its tensors has a dtype its device kernel does not take
// (runtime/eager.cc), and whole-step capture refuses it (runtime/vm_capture.cc). `rule` is
// asked only for the host-only dtypes; nullptr removes it.
using DeviceDtypeRule = bool (*)(const OpDef& op, DType t);
void install_device_dtype_rule(DeviceType type, DeviceDtypeRule rule);
bool device_takes_dtype(const OpDef& op, DeviceType type, DType t);

// Deterministic mode (mycel.set_deterministic, MindSpore's). Every CPU kernel gives the same
// bits on every run (reductions split the same way whatever the thread count); some device
// kernels do not: those that accumulate floats with atomics, whose order varies from run to
// run (on CUDA: GatherDGrad, UnsortedSegmentSum, ScatterNd). A device's kernel library names
// them (a static list, like its table); while deterministic mode is on, the dispatcher runs
// them on the host with copies instead (runtime/eager.cc launch_kernel), and a CUDA Graph
// capture leaves them out (runtime/vm_capture.cc).
void mark_device_nondeterministic(DeviceType type, std::span<const OpId> ops);
bool device_nondeterministic(const OpDef& op, DeviceType type);
void set_deterministic(bool on);
bool deterministic();
// The device kernel the dispatcher uses: device_kernel, or nullptr (the host with copies) for
// a nondeterministic one in deterministic mode.
KernelFn dispatch_device_kernel(const OpDef& op, DeviceType type);

}  // namespace mycel
