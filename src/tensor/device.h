// Devices: where a tensor's bytes live, and the narrow interface a non-CPU backend implements.
//
// A Storage belongs to one Device. The tensor layer handles host memory itself and reaches
// device memory only through a DeviceBackend: allocation, copies in stream order, a strided
// copy with dtype conversion (contiguous(), cast(), copy_from() on a device), a
// synchronisation point. Nothing above the device backends names CUDA: the runtime asks a
// tensor for its Device and the backend for its kernels (runtime/device_dispatch.h).
//
// Backends are installed explicitly (device/cuda: install_cuda(), called by the Python
// module's init and the tests' main), never by static initialisation. MindSpore calls CUDA
// devices "GPU", and so do user-facing names here ("GPU:0").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tensor/allocator.h"

namespace mycel {

class Tensor;

enum class DeviceType : uint8_t { CPU = 0, CUDA = 1 };
inline constexpr int kNumDeviceTypes = 2;

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;

  static Device cpu() { return {}; }
  static Device cuda(int index = 0) { return {DeviceType::CUDA, index}; }
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
};

std::string device_name(Device d);  // "CPU", "GPU:0"

// What a device backend provides to the tensor layer. All copies are ordered on the
// device's one compute stream, so a kernel launched after a copy sees its bytes; copy_d2h
// returns only when the bytes have arrived on the host. Errors are mycel::Error (Runtime,
// with the backend's message; an allocation that cannot be met after emptying the cache is
// a Runtime error naming the size and what is in use).
class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  virtual int device_count() = 0;  // 0 when the driver sees no device
  // Device memory from the backend's caching allocator; nbytes > 0.
  virtual void* allocate(int index, size_t nbytes) = 0;
  virtual void release(int index, void* p, size_t nbytes) = 0;  // nbytes as allocated
  virtual void copy_h2d(int index, void* dst, const void* src, size_t nbytes) = 0;
  virtual void copy_d2h(int index, void* dst, const void* src, size_t nbytes) = 0;
  virtual void copy_d2d(int index, void* dst, const void* src, size_t nbytes) = 0;
  // dst = src on one device: same shape, any strides (src may broadcast with stride 0), and
  // the dtype conversion of the Cast op when the dtypes differ. dst does not overlap src.
  virtual void strided_copy(const Tensor& dst, const Tensor& src) = 0;
  virtual void synchronize(int index) = 0;  // waits for all work queued on the device
  virtual AllocatorStats memory_stats(int index) = 0;
  virtual void reset_peak_memory(int index) = 0;
  virtual void empty_cache(int index) = 0;
};

// The installed backend of a type, or nullptr (always nullptr for CPU).
DeviceBackend* device_backend(DeviceType type);
void install_device_backend(DeviceType type, DeviceBackend* backend);
// The backend of `d`, or a RuntimeError naming the device ("no GPU backend in this build",
// "GPU:3 does not exist: 1 device found") when there is none.
DeviceBackend& backend_for(Device d);

}  // namespace mycel
