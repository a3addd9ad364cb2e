#include "data/array.h"
#include "data/transform.h"
#include "tensor/size.h"

#include <cstring>

namespace mycel::data {

size_t data_type_size(DataType t) {
  switch (t) {
#define MC_X(e, ty, n) \
  case DataType::e:    \
    return sizeof(ty);
    MYCEL_DATA_TYPES(MC_X)
#undef MC_X
    case DataType::String:
    case DataType::Object:
      return 0;
  }
  return 0;
}

std::string_view data_type_name(DataType t) {
  switch (t) {
#define MC_X(e, ty, n) \
  case DataType::e:    \
    return n;
    MYCEL_DATA_TYPES(MC_X)
#undef MC_X
    case DataType::String:
      return "str";
    case DataType::Object:
      return "object";
  }
  return "?";
}

bool data_type_from_name(std::string_view name, DataType* out) {
#define MC_X(e, ty, n)  \
  if (name == n) {      \
    *out = DataType::e; \
    return true;        \
  }
  MYCEL_DATA_TYPES(MC_X)
#undef MC_X
  if (name == "str" || name == "string") {
    *out = DataType::String;
    return true;
  }
  return false;
}

bool to_mycel_dtype(DataType t, mycel::DType* out) {
  switch (t) {
    case DataType::Bool:
      *out = DType::Bool;
      return true;
    case DataType::Int8:
      *out = DType::Int8;
      return true;
    case DataType::UInt8:
      *out = DType::UInt8;
      return true;
    case DataType::Int16:
      *out = DType::Int16;
      return true;
    case DataType::UInt16:
      *out = DType::UInt16;
      return true;
    case DataType::Int32:
      *out = DType::Int32;
      return true;
    case DataType::UInt32:
      *out = DType::UInt32;
      return true;
    case DataType::Int64:
      *out = DType::Int64;
      return true;
    case DataType::UInt64:
      *out = DType::UInt64;
      return true;
    case DataType::Float16:
      *out = DType::Float16;
      return true;
    case DataType::Float32:
      *out = DType::Float32;
      return true;
    case DataType::Float64:
      *out = DType::Float64;
      return true;
    case DataType::String:
    case DataType::Object:
      return false;
  }
  return false;
}

Array Array::empty(DataType t, const Shape& shape) {
  MC_ASSERT(is_numeric(t), "Array::empty of strings");
  const int64_t nbytes = checked_nbytes(shape, data_type_size(t), "Array");
  Array a;
  a.dtype_ = t;
  a.shape_ = shape;
  // At least one byte: Storage of size 0 still has a valid address.
  a.storage_ = Storage::allocate(std::max<size_t>(static_cast<size_t>(nbytes), 1));
  return a;
}

Array Array::view(std::shared_ptr<Storage> storage, size_t byte_offset, DataType t,
                  const Shape& shape) {
  Array a;
  a.dtype_ = t;
  a.shape_ = shape;
  MC_ASSERT(storage && byte_offset + a.nbytes() <= storage->nbytes(), "Array::view of ", a.nbytes(),
            " bytes at ", byte_offset, " outside its storage");
  a.storage_ = std::move(storage);
  a.offset_ = byte_offset;
  return a;
}

Array Array::strings(std::vector<std::string> values, const Shape& shape, bool bytes) {
  MC_ASSERT(static_cast<int64_t>(values.size()) == mycel::numel(shape),
            "Array::strings: ", values.size(), " values for shape ", shape);
  Array a;
  a.dtype_ = DataType::String;
  a.shape_ = shape;
  a.strings_ = std::make_shared<const std::vector<std::string>>(std::move(values));
  a.bytes_ = bytes;
  return a;
}

Array Array::object(ObjectPtr value) {
  MC_ASSERT(value != nullptr, "Array::object of null");
  Array a;
  a.dtype_ = DataType::Object;
  a.object_ = std::move(value);
  return a;
}

Array Array::reshaped(const Shape& shape) const {
  MC_ASSERT(mycel::numel(shape) == numel(), "reshape ", shape_, " to ", shape);
  Array a = *this;
  a.shape_ = shape;
  return a;
}

Array Array::row(int64_t i) const {
  MC_CHECK(dtype_ != DataType::Object, Type, "a Python ", object_->type_name(),
           " value has no rows to split (it is not an array).");
  MC_ASSERT(ndim() >= 1 && i >= 0 && i < shape_[0], "row ", i, " of ", shape_);
  Shape s(shape_.begin() + 1, shape_.end());
  if (dtype_ == DataType::String) {
    int64_t n = mycel::numel(s);
    const auto& all = *strings_;
    return strings(std::vector<std::string>(all.begin() + i * n, all.begin() + (i + 1) * n), s,
                   bytes_);
  }
  size_t row_bytes = static_cast<size_t>(mycel::numel(s)) * data_type_size(dtype_);
  return view(storage_, offset_ + static_cast<size_t>(i) * row_bytes, dtype_, s);
}

Tensor Array::to_tensor(std::string_view op) const {
  DType t;
  MC_CHECK(dtype_ != DataType::Object, Type, op, ": a Python ", object_->type_name(),
           " column cannot become a mycel Tensor.");
  MC_CHECK(to_mycel_dtype(dtype_, &t), Type, op, ": a column of strings (", describe(*this),
           ") cannot become a mycel Tensor; use output_numpy=True.");
  return Tensor::make_view(storage_, t, shape_, contiguous_strides(shape_),
                           static_cast<int64_t>(offset_ / data_type_size(dtype_)));
}

std::string describe(const Array& a) {
  if (a.dtype() == DataType::Object) return "Python " + a.object()->type_name();
  return str(data_type_name(a.dtype()), " ", shape_str(a.shape()));
}

std::vector<Array> UnaryTransform::apply(std::vector<Array> inputs, int lead,
                                         RowRandom* rng) const {
  MC_CHECK(inputs.size() == 1, Type, name(), ": expects one input column, but got ", inputs.size(),
           ".");
  return {apply1(inputs[0], lead, rng)};
}

}  // namespace mycel::data
