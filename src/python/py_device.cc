// Devices from Python: set_context(device_target="GPU", device_id=i) and the device
// functions of mycel.hal. The CUDA backend is installed on first use, not at import, so
// importing mycel never initialises CUDA.
#include "python/module.h"
#include "runtime/eager.h"
#include "tensor/device.h"
#include "tensor/op_precision.h"
#if defined(MYCEL_CUDA)
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cufft_status.h"
#endif

namespace pyb = pybind11;

namespace mycel::py {

namespace {

// The number of GPUs this build can use: 0 without CUDA, a driver or a device.
int gpu_count() {
#if defined(MYCEL_CUDA)
  static int n = cuda::install_cuda();
  return n;
#else
  return 0;
#endif
}

}  // namespace

Device parse_device(const std::string& target, int index) {
  if (target == "CPU") return Device::cpu();
  MC_CHECK(target == "GPU", Value, "device_target must be 'CPU' or 'GPU', but got '", target, "'.");
  int n = gpu_count();
#if defined(MYCEL_CUDA)
  MC_CHECK(n > 0, Runtime,
           "device_target 'GPU' needs an NVIDIA GPU, but the CUDA driver reports none.");
#else
  MC_CHECK(n > 0, Runtime,
           "device_target 'GPU' needs mycel built with CUDA; this build has no GPU backend.");
#endif
  MC_CHECK(index >= 0 && index < n, Value, "device_id ", index, " is out of range: ", n,
           " GPU device", n == 1 ? "" : "s", " found.");
  return Device::cuda(index);
}

void bind_device(pyb::module_& m) {
  m.def("_gpu_count", &gpu_count, "GPUs this build can use (0 without CUDA or a GPU).");
  m.def(
      "_cufft_available",
      []() {
#if defined(MYCEL_CUDA)
        return cuda::cufft_available();
#else
        return false;
#endif
      },
      "Whether FFTN runs through cuFFT on a GPU (libcufft found); without it on host copies.");
  m.def(
      "_set_device",
      [](const std::string& target, int index) { set_default_device(parse_device(target, index)); },
      "set_context(device_target, device_id): where ops with host inputs run.");
  m.def(
      "_synchronize",
      []() {
        Device d = default_device();
        if (!d.is_cpu()) backend_for(d).synchronize(d.index);
      },
      "Waits for the work queued on the current device.");
  // mycel.device_context.<target>.op_precision: the switches recorded for a device type's
  // kernels (tensor/op_precision.h); a CPU build records them too.
  m.def(
      "_set_op_precision",
      [](const std::string& target, const std::string& name, bool value) {
        MC_CHECK(target == "CPU" || target == "GPU", Value,
                 "device_target must be 'CPU' or 'GPU', but got '", target, "'.");
        const DeviceType t = target == "GPU" ? DeviceType::CUDA : DeviceType::CPU;
        OpPrecision p = op_precision(t);
        if (name == "matmul_allow_tf32") {
          p.matmul_allow_tf32 = value;
        } else {
          MC_CHECK(name == "conv_allow_tf32", Value,
                   "op_precision has 'matmul_allow_tf32' and 'conv_allow_tf32', but got '", name,
                   "'.");
          p.conv_allow_tf32 = value;
        }
        set_op_precision(t, p);
      },
      "Records one op_precision switch of a device type's kernels.");
  m.def(
      "_op_precision",
      [](const std::string& target) {
        MC_CHECK(target == "CPU" || target == "GPU", Value,
                 "device_target must be 'CPU' or 'GPU', but got '", target, "'.");
        OpPrecision p = op_precision(target == "GPU" ? DeviceType::CUDA : DeviceType::CPU);
        pyb::dict r;
        r["matmul_allow_tf32"] = p.matmul_allow_tf32;
        r["conv_allow_tf32"] = p.conv_allow_tf32;
        return r;
      },
      "The op_precision switches recorded for a device type.");
  m.def("_device_memory_stats", [](const std::string& target, int index) {
    Device d = parse_device(target, index);
    AllocatorStats s = d.is_cpu() ? allocator_stats() : backend_for(d).memory_stats(d.index);
    pyb::dict r;
    r["in_use"] = s.in_use;
    r["peak_in_use"] = s.peak_in_use;
    r["cached"] = s.cached;
    return r;
  });
}

}  // namespace mycel::py
