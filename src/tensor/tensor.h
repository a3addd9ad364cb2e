// Tensor: a dtype, a shape, strides (in elements) and an offset into refcounted Storage.
//
// Tensor is a cheap handle (one shared_ptr); copies share data. Views (reshape of contiguous
// data, permute, slice, expand/squeeze of dims) share Storage with their base and never copy.
// Kernels see either strided tensors (the elementwise family, copies) or contiguous ones: the
// eager dispatcher makes inputs contiguous for ops that need it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tensor/device.h"
#include "tensor/dtype.h"
#include "tensor/shape.h"

namespace mycel {

// Bytes that tensors share, on one device. Either from a caching allocator (the host's or the
// device backend's) or wrapped host memory owned by someone else (a numpy array), released
// through a callback. migrate() moves the bytes to another device in place, so every view of
// the storage follows: a parameter moves to the GPU once, on first use (MindSpore's model of
// a tensor that lives where it was last used).
class Storage {
 public:
  using ReleaseFn = void (*)(void* ctx);
  static std::shared_ptr<Storage> allocate(size_t nbytes, Device device = Device::cpu());
  static std::shared_ptr<Storage> wrap(void* data, size_t nbytes, ReleaseFn release, void* ctx);
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage();

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  // Moves the bytes to `to` (a no-op when already there). Not thread-safe against readers of
  // the same storage: the dispatcher calls it under the GIL, before any kernel reads it.
  void migrate(Device to);

  Storage(void* data, size_t nbytes, ReleaseFn release, void* ctx, Device device = {})
      : data_(data), nbytes_(nbytes), release_(release), ctx_(ctx), device_(device) {}

 private:
  void free_bytes();

  void* data_;
  size_t nbytes_;
  ReleaseFn release_;  // nullptr: memory came from host_alloc or the device's allocator
  void* ctx_;
  Device device_;
};

// A Python-style scalar: the value of a 0-d tensor, a fill value, a scalar operand.
struct Scalar {
  ScalarKind kind = ScalarKind::Float;
  double f = 0;
  int64_t i = 0;

  Scalar() = default;
  static Scalar from_bool(bool v) { return {ScalarKind::Bool, v ? 1.0 : 0.0, v ? 1 : 0}; }
  static Scalar from_int(int64_t v) { return {ScalarKind::Int, static_cast<double>(v), v}; }
  static Scalar from_float(double v) { return {ScalarKind::Float, v, saturate_cast<int64_t>(v)}; }
  double to_double() const { return kind == ScalarKind::Float ? f : static_cast<double>(i); }
  // A float converts as the Cast op does (saturate_cast: truncation, NaN -> 0, saturation).
  int64_t to_int() const { return kind == ScalarKind::Float ? saturate_cast<int64_t>(f) : i; }
  template <class T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>)
      return to_double() != 0;
    else if constexpr (std::is_integral_v<T>)
      return kind == ScalarKind::Float ? saturate_cast<T>(f) : static_cast<T>(i);
    else if constexpr (std::is_floating_point_v<T>)
      return static_cast<T>(to_double());
    else if constexpr (is_complex_v<T>)
      return T(static_cast<typename T::value_type>(to_double()));  // imaginary part 0
    else
      return T(static_cast<float>(to_double()));  // float16, bfloat16
  }

 private:
  Scalar(ScalarKind k, double fv, int64_t iv) : kind(k), f(fv), i(iv) {}
};

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape shape;
  Shape strides;
  int64_t offset = 0;  // in elements
  DType dtype = DType::Float32;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // Uninitialised contiguous tensor (memory from the device's caching allocator).
  static Tensor empty(const Shape& shape, DType dtype, Device device = Device::cpu());
  static Tensor full(const Shape& shape, Scalar value, DType dtype, Device device = Device::cpu());
  static Tensor zeros(const Shape& shape, DType dtype, Device device = Device::cpu()) {
    return full(shape, Scalar::from_int(0), dtype, device);
  }
  static Tensor scalar(Scalar value, DType dtype) { return full({}, value, dtype); }
  // A view of existing storage; checks that the view stays inside it.
  static Tensor make_view(std::shared_ptr<Storage> storage, DType dtype, const Shape& shape,
                          const Shape& strides, int64_t offset);

  bool defined() const { return impl_ != nullptr; }
  DType dtype() const { return impl_->dtype; }
  const Shape& shape() const { return impl_->shape; }
  const Shape& strides() const { return impl_->strides; }
  int64_t offset() const { return impl_->offset; }
  int64_t ndim() const { return static_cast<int64_t>(impl_->shape.size()); }
  int64_t numel() const { return mycel::numel(impl_->shape); }
  int64_t dim(int64_t d) const { return impl_->shape[static_cast<size_t>(d)]; }
  size_t itemsize() const { return dtype_size(impl_->dtype); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * itemsize(); }
  const std::shared_ptr<Storage>& storage() const { return impl_->storage; }
  Device device() const { return impl_->storage->device(); }
  const std::shared_ptr<TensorImpl>& impl() const { return impl_; }
  bool same(const Tensor& o) const { return impl_ == o.impl_; }

  void* raw_data() const {
    return static_cast<char*>(impl_->storage->data()) +
           impl_->offset * static_cast<int64_t>(itemsize());
  }
  template <class T>
  T* data() const {
    MC_ASSERT(dtype_of<T>() == dtype(), "data<", dtype_name(dtype_of<T>()), "> on a ", dtype(),
              " tensor");
    return static_cast<T*>(raw_data());
  }

  bool is_contiguous() const;
  Tensor contiguous() const;    // this tensor if already contiguous, else a contiguous copy
  Tensor clone() const;         // always a fresh contiguous copy
  Tensor cast(DType to) const;  // this tensor if already `to`, else a converted copy
  // This tensor if already on `d`, else a contiguous copy there (waits for the bytes when
  // `d` is the host). cpu() is to(Device::cpu()): what anything reading bytes on the host
  // (printing, numpy, files) calls first.
  Tensor to(Device d) const;
  Tensor cpu() const { return to(Device::cpu()); }

  // Views. `op` names the user-facing op in error messages.
  Tensor reshape(const Shape& shape, std::string_view op = "Reshape") const;  // view if it can
  Tensor view(const Shape& shape, std::string_view op = "View") const;        // view or ValueError
  Tensor permute(const Shape& perm, std::string_view op = "Transpose") const;
  // Python slice semantics on normalised bounds (as slice.indices gives); step may be negative.
  Tensor slice(int64_t dim, int64_t start, int64_t stop, int64_t step) const;
  Tensor select(int64_t dim, int64_t index) const;  // drops dim
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze_dim(int64_t dim) const;
  Tensor expand(const Shape& shape, std::string_view op = "BroadcastTo") const;  // stride-0

  // Writes src into this tensor (broadcasting src, converting its dtype; src may be on
  // another device).
  void copy_from(const Tensor& src) const;
  void fill(Scalar value) const;

  // Element reads copy to the host first when the tensor is on a device.
  Scalar item() const;                                 // the one element, or a ValueError
  double element_as_double(int64_t flat_index) const;  // row-major index, for tests/printing

  std::string to_string() const;  // numpy/MindSpore style: "[ 4. 10. 18.]"
  std::string repr() const;       // "Tensor(shape=[3], dtype=Float32, value=[ 4. 10. 18.])"

 private:
  std::shared_ptr<TensorImpl> impl_;
};

// dst = src for two tensors of one dtype and shape on one device, with any strides (src may
// broadcast with stride 0; dst must not overlap itself). tensor/copy.cc; on a device, the
// backend's strided copy, so kernels built on views and strided_copy run on any device.
void strided_copy(const Tensor& dst, const Tensor& src);

// Reshape target with one -1 resolved; a ValueError names op and both shapes if impossible.
Shape infer_reshape(const Shape& from, const Shape& to, std::string_view op);

}  // namespace mycel
