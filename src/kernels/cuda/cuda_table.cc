#include <array>

#include "device/cuda/cuda_capture.h"
#include "device/cuda/cuda_device.h"
#include "kernels/cuda/array_index.h"
#include "kernels/cuda/complex.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/kernel_table.h"

namespace mycel::cuda {

namespace {
std::array<KernelFn, kNumOps> make_table() {
  std::array<KernelFn, kNumOps> t{};
#define CUDA_OP(op, fn) t[static_cast<size_t>(OpId::op)] = &fn;
#include "kernels/cuda/all.def"
#undef CUDA_OP
  return t;
}

// The dtypes beyond the real ones the CUDA kernels take (kernels/kernel_table.h): complex
// for the ops complex.h names; uint16/32/64 nowhere.
bool cuda_takes_dtype(const OpDef& op, DType t) { return is_complex(t) && cuda_takes_complex(op); }
}  // namespace

std::span<const KernelFn> kernel_table() {
  static const std::array<KernelFn, kNumOps> table = make_table();
  return table;
}

int install_cuda() {
  int n = 0;
  try {
    n = cuda_backend().device_count();
  } catch (const std::exception&) {
    return 0;
  }
  if (n == 0) return 0;
  // Index errors the indexing kernels recorded on the device are raised when the host next
  // waits for it too (array_index.h), not only by the next indexing op.
  set_after_sync(&check_index_errors);
  install_device_backend(DeviceType::CUDA, &cuda_backend());
  install_device_kernels(DeviceType::CUDA, kernel_table());
  install_device_dtype_rule(DeviceType::CUDA, &cuda_takes_dtype);
  // Float sums with atomicAdd in an order that varies from run to run (array_index.cu).
  static constexpr OpId kNondeterministic[] = {OpId::GatherDGrad, OpId::UnsortedSegmentSum,
                                               OpId::ScatterNd};
  mark_device_nondeterministic(DeviceType::CUDA, kNondeterministic);
  install_fused_matmul(DeviceType::CUDA, &cuda_fused_matmul);
  install_capture_backend(DeviceType::CUDA, &cuda_capture_backend());
  return n;
}

}  // namespace mycel::cuda
