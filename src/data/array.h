// Values of the data engine. A dataset row (Row) holds one Array per column. An Array is an
// n-d block of numbers (contiguous, row-major) or an n-d block of strings. Numeric Arrays live
// in mycel Storage and may be views into a bigger block: a source hands out its rows as views
// of the loaded file, and a batch becomes a mycel Tensor without a copy.
//
// The element types are numpy's (unsigned types included: MNIST labels are uint32, and the
// engine must hand back what a file holds); String is numpy's str. Object is a value the engine
// carries without looking inside (a Python dict in a row, as MindSpore allows): a 0-d Array
// holding one Object (below).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "tensor/half.h"
#include "tensor/shape.h"
#include "tensor/tensor.h"

namespace mycel::data {

// X(Enum, C++ type, numpy name)
#define MYCEL_DATA_TYPES(X)      \
  X(Bool, bool, "bool")          \
  X(Int8, int8_t, "int8")        \
  X(UInt8, uint8_t, "uint8")     \
  X(Int16, int16_t, "int16")     \
  X(UInt16, uint16_t, "uint16")  \
  X(Int32, int32_t, "int32")     \
  X(UInt32, uint32_t, "uint32")  \
  X(Int64, int64_t, "int64")     \
  X(UInt64, uint64_t, "uint64")  \
  X(Float16, float16, "float16") \
  X(Float32, float, "float32")   \
  X(Float64, double, "float64")

enum class DataType : uint8_t {
#define MC_X(e, t, n) e,
  MYCEL_DATA_TYPES(MC_X)
#undef MC_X
      String,
  Object,
};

size_t data_type_size(DataType t);            // 0 for String
std::string_view data_type_name(DataType t);  // numpy's name: "uint8", "str" for String
bool data_type_from_name(std::string_view name, DataType* out);
inline bool is_numeric(DataType t) { return t != DataType::String && t != DataType::Object; }
inline bool is_float(DataType t) { return t >= DataType::Float16 && t <= DataType::Float64; }

// The mycel dtype a column converts to (the same type: mycel has every numeric DataType), or
// false for strings.
bool to_mycel_dtype(DataType t, mycel::DType* out);

template <class T>
constexpr DataType data_type_of();
#define MC_X(e, t, n)                    \
  template <>                            \
  constexpr DataType data_type_of<t>() { \
    return DataType::e;                  \
  }
MYCEL_DATA_TYPES(MC_X)
#undef MC_X

template <class T>
struct DataTag {
  using type = T;
};

// Calls fn(DataTag<T>{}) for the C++ type of a numeric DataType; a TypeError naming op for
// String.
template <class F>
decltype(auto) dispatch_data(DataType t, std::string_view op, F&& fn) {
  switch (t) {
#define MC_X(e, ty, n) \
  case DataType::e:    \
    return fn(DataTag<ty>{});
    MYCEL_DATA_TYPES(MC_X)
#undef MC_X
    case DataType::String:
      break;
    case DataType::Object:
      MC_THROW(Type, op, ": expected a numeric array, but got a Python object (dict) column.");
  }
  MC_THROW(Type, op, ": expected a numeric array, but got a string array.");
}

// A value of an Object column. The engine only moves it between ops (shuffle, repeat,
// project, rename, zip, concat, skip, take), hands it to Python callables (map, filter,
// per_batch_map) and batches it through batch(); numeric ops refuse it with a TypeError. Made
// by the Python layer (src/python/py_data_object.cc), which makes destruction safe on any
// engine thread (it takes the GIL to drop its reference).
class Object {
 public:
  virtual ~Object() = default;
  // The rows' objects of one batch as one object (batch and padded_batch; rows is never
  // empty). as_lists: the rows came out of a per_batch_map (MindSpore then gathers a dict's
  // values into lists, otherwise into stacked arrays). Errors: mycel::Error naming batch.
  virtual std::shared_ptr<const Object> batch(
      const std::vector<std::shared_ptr<const Object>>& rows, bool as_lists) const = 0;
  // The value's type for messages ("dict").
  virtual std::string type_name() const = 0;
};
using ObjectPtr = std::shared_ptr<const Object>;

class Array {
 public:
  Array() = default;

  // A new numeric array (uninitialised bytes).
  static Array empty(DataType t, const Shape& shape);
  // A numeric array of existing bytes: shape's elements starting at byte offset of storage.
  static Array view(std::shared_ptr<Storage> storage, size_t byte_offset, DataType t,
                    const Shape& shape);
  // A string array (numel(shape) == values.size()). bytes: its values are numpy bytes (dtype
  // 'S', MindSpore's bytes) and go back to Python as bytes; otherwise str (UTF-8 text).
  static Array strings(std::vector<std::string> values, const Shape& shape, bool bytes = false);
  // A 0-d array holding one Object (dtype Object).
  static Array object(ObjectPtr value);
  // A 0-d array holding one number.
  template <class T>
  static Array scalar(T v) {
    Array a = empty(data_type_of<T>(), {});
    *a.mutable_data<T>() = v;
    return a;
  }

  bool defined() const { return storage_ != nullptr || strings_ != nullptr || object_ != nullptr; }
  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t ndim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const { return mycel::numel(shape_); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * data_type_size(dtype_); }

  // Numeric bytes. mutable_data is for the array's producer, before anyone else sees it.
  const void* raw() const {
    MC_ASSERT(storage_ != nullptr, "the bytes of a ", data_type_name(dtype_), " array");
    return static_cast<const char*>(storage_->data()) + offset_;
  }
  void* mutable_raw() const {
    MC_ASSERT(storage_ != nullptr, "the bytes of a ", data_type_name(dtype_), " array");
    return static_cast<char*>(storage_->data()) + offset_;
  }
  template <class T>
  const T* data() const {
    MC_ASSERT(data_type_of<T>() == dtype_, "data<", data_type_name(data_type_of<T>()), "> on a ",
              data_type_name(dtype_), " array");
    return static_cast<const T*>(raw());
  }
  template <class T>
  T* mutable_data() const {
    MC_ASSERT(data_type_of<T>() == dtype_, "mutable_data on a ", data_type_name(dtype_), " array");
    return static_cast<T*>(mutable_raw());
  }
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  size_t byte_offset() const { return offset_; }

  // String elements (row-major).
  const std::vector<std::string>& str() const { return *strings_; }
  // Whether a string array holds bytes rather than text (strings()).
  bool bytes() const { return bytes_; }
  // The value of an Object array (null for other arrays).
  const ObjectPtr& object() const { return object_; }

  // The same elements under another shape (same element count).
  Array reshaped(const Shape& shape) const;
  // Element i along axis 0, as a view (numeric) or a copy (strings).
  Array row(int64_t i) const;
  // A mycel Tensor sharing the bytes.
  Tensor to_tensor(std::string_view op) const;

 private:
  DataType dtype_ = DataType::Float32;
  Shape shape_;
  std::shared_ptr<Storage> storage_;
  size_t offset_ = 0;
  std::shared_ptr<const std::vector<std::string>> strings_;
  bool bytes_ = false;
  ObjectPtr object_;
};

// A row: one Array per column, in the pipeline's column order.
using Row = std::vector<Array>;

// "uint8 [28, 28, 1]" for messages ("Python dict" for an Object array).
std::string describe(const Array& a);

}  // namespace mycel::data
