// mindspore.dataset.transforms' TypeCast and OneHot: element-wise and per-sample, so both are
// batchable (a leading batch axis gives the stacked per-sample results).
#include <type_traits>

#include "data/transforms.h"
#include "tensor/dtype.h"
#include "tensor/size.h"

namespace mycel::data {
namespace {

class TypeCast final : public UnaryTransform {
 public:
  explicit TypeCast(DataType to) : to_(to) {
    MC_CHECK(is_numeric(to), Type, "TypeCast: data_type must be a numeric type, but got str.");
  }
  std::string_view name() const override { return "TypeCast"; }
  bool batchable() const override { return true; }

 protected:
  Array apply1(const Array& x, int, RowRandom*) const override {
    MC_CHECK(is_numeric(x.dtype()), Type, "TypeCast: cannot cast a string array ", describe(x),
             " to ", data_type_name(to_), ".");
    if (x.dtype() == to_) return x;
    Array out = Array::empty(to_, x.shape());
    int64_t n = x.numel();
    dispatch_data(x.dtype(), name(), [&](auto src_tag) {
      using S = typename decltype(src_tag)::type;
      dispatch_data(to_, name(), [&](auto dst_tag) {
        using D = typename decltype(dst_tag)::type;
        const S* src = x.data<S>();
        D* dst = out.mutable_data<D>();
        for (int64_t i = 0; i < n; ++i) dst[i] = saturate_cast<D, S>(src[i]);  // the Cast op's rule
      });
    });
    return out;
  }

 private:
  DataType to_;
};

class OneHot final : public UnaryTransform {
 public:
  OneHot(int64_t num_classes, double smoothing_rate)
      : classes_(num_classes), smoothing_(smoothing_rate) {
    MC_CHECK(num_classes >= 1, Value, "OneHot: num_classes must be positive, but got ", num_classes,
             ".");
    MC_CHECK(smoothing_rate >= 0 && smoothing_rate <= 1, Value,
             "OneHot: smoothing_rate must be in [0.0, 1.0], but got ", smoothing_rate, ".");
  }
  std::string_view name() const override { return "OneHot"; }
  bool batchable() const override { return true; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    Shape sample(x.shape().begin() + lead, x.shape().end());
    int kept = 0;
    for (int64_t d : sample) kept += d != 1;
    MC_CHECK(kept <= 1, Value, "OneHot: the label must be a scalar or 1-D, but got shape ",
             shape_str(sample), ".");
    bool integer =
        x.dtype() != DataType::String && x.dtype() != DataType::Bool && !is_float(x.dtype());
    MC_CHECK(integer, Type, "OneHot: the label must be an integer type, but got ",
             data_type_name(x.dtype()), ".");
    // [lead..., k, classes] with the size-1 axes squeezed, as MindSpore.
    Shape shape(x.shape().begin(), x.shape().begin() + lead);
    int64_t k = mycel::numel(sample), c = classes_;
    if (k != 1) shape.push_back(k);
    if (c != 1) shape.push_back(c);
    bool smooth = smoothing_ != 0.0;
    const DataType out_type = smooth ? DataType::Float32 : x.dtype();
    checked_nbytes(shape, data_type_size(out_type), name());  // num_classes is the user's
    Array out = Array::empty(out_type, shape);
    int64_t n = x.numel();
    dispatch_data(x.dtype(), name(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<T>) {
        const T* labels = x.data<T>();
        for (int64_t i = 0; i < n; ++i) {
          // A negative label wraps to a huge unsigned value.
          MC_CHECK(static_cast<uint64_t>(labels[i]) < static_cast<uint64_t>(c), Value,
                   "OneHot: label ", +labels[i], " is out of range [0, ", c, ").");
        }
        auto fill = [&](auto on, auto off, auto* dst) {
          for (int64_t i = 0; i < n; ++i) {
            for (int64_t j = 0; j < c; ++j) dst[i * c + j] = off;
            dst[i * c + static_cast<int64_t>(labels[i])] = on;
          }
        };
        if (smooth) {  // numpy's float32 arithmetic: (1 - s) * hot + s / c
          float s = static_cast<float>(smoothing_), off = s / static_cast<float>(c);
          fill((1.0f - s) + off, off, out.mutable_data<float>());
        } else {
          fill(T(1), T(0), out.mutable_data<T>());
        }
      }
    });
    return out;
  }

 private:
  int64_t classes_;
  double smoothing_;
};

}  // namespace

TransformPtr make_type_cast(DataType to) { return std::make_shared<TypeCast>(to); }
TransformPtr make_one_hot(int64_t num_classes, double smoothing_rate) {
  return std::make_shared<OneHot>(num_classes, smoothing_rate);
}

}  // namespace mycel::data
