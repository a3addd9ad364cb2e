// LFilter (every biquad of mindspore.dataset.audio runs on it), the fixed matrices applied
// along the frequency axis (MelScale, the DCT of MFCC / LFCC) and AmplitudeToDB; the helpers
// the audio transform files share.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "data/transforms_audio.h"
#include "tensor/size.h"

namespace mycel::data {

namespace audio {

DataType out_type(const Array& x) {
  return x.dtype() == DataType::Float64 ? DataType::Float64 : DataType::Float32;
}

std::vector<double> as_doubles(const Array& x, std::string_view op) {
  MC_CHECK(is_numeric(x.dtype()) && x.dtype() != DataType::Bool, Runtime, op,
           ": the data type of input tensor does not match the requirement of operator. "
           "Expecting tensor in type of [int, float, double]. But got ",
           describe(x), ".");
  std::vector<double> out(static_cast<size_t>(x.numel()));
  dispatch_data(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.data<T>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(src[i]);
  });
  return out;
}

Array from_doubles(const std::vector<double>& values, DataType t, const Shape& shape) {
  Array out = Array::empty(t, shape);
  if (t == DataType::Float64) {
    std::copy(values.begin(), values.end(), out.mutable_data<double>());
  } else {
    float* dst = out.mutable_data<float>();
    for (size_t i = 0; i < values.size(); ++i) dst[i] = static_cast<float>(values[i]);
  }
  return out;
}

}  // namespace audio

namespace {

class LFilter final : public UnaryTransform {
 public:
  LFilter(std::string op, std::vector<double> a, std::vector<double> b, bool clamp)
      : op_(std::move(op)), a_(std::move(a)), b_(std::move(b)), clamp_(clamp) {
    MC_CHECK(!a_.empty() && !b_.empty(), Value, op_, ": a_coeffs and b_coeffs must not be empty.");
    MC_CHECK(a_[0] != 0.0, Value, op_, ": the first value of a_coeffs must not be 0, but got 0.");
    for (size_t i = 1; i < a_.size(); ++i) a_[i] /= a_[0];
    for (double& v : b_) v /= a_[0];
  }
  std::string_view name() const override { return op_; }
  bool batchable() const override { return true; }

 protected:
  Array apply1(const Array& x, int, RowRandom*) const override {
    MC_CHECK(x.ndim() >= 1, Runtime, op_,
             ": the shape of input tensor does not match the requirement of operator. Expecting "
             "tensor in shape of <..., time>. But got ",
             describe(x), ".");
    std::vector<double> v = audio::as_doubles(x, op_);
    int64_t n = x.shape().back();
    int64_t rows = n == 0 ? 0 : x.numel() / n;
    std::vector<double> out(v.size());
    std::vector<double> y(static_cast<size_t>(n));
    auto na = static_cast<int64_t>(a_.size()), nb = static_cast<int64_t>(b_.size());
    for (int64_t r = 0; r < rows; ++r) {
      const double* in = v.data() + r * n;
      for (int64_t t = 0; t < n; ++t) {
        double acc = 0;
        for (int64_t k = 0; k < nb && k <= t; ++k) acc += b_[static_cast<size_t>(k)] * in[t - k];
        for (int64_t k = 1; k < na && k <= t; ++k)
          acc -= a_[static_cast<size_t>(k)] * y[static_cast<size_t>(t - k)];
        y[static_cast<size_t>(t)] = acc;  // the recursion keeps the unclipped value
        out[static_cast<size_t>(r * n + t)] = clamp_ ? std::clamp(acc, -1.0, 1.0) : acc;
      }
    }
    return audio::from_doubles(out, audio::out_type(x), x.shape());
  }

 private:
  std::string op_;
  std::vector<double> a_, b_;
  bool clamp_;
};

class FreqMatrix final : public UnaryTransform {
 public:
  FreqMatrix(std::string op, std::vector<double> matrix, int64_t rows, int64_t cols)
      : op_(std::move(op)), m_(std::move(matrix)), rows_(rows), cols_(cols) {
    MC_CHECK(rows >= 1 && cols >= 1 && static_cast<int64_t>(m_.size()) == rows * cols, Value, op_,
             ": the matrix must hold rows * cols values.");
  }
  std::string_view name() const override { return op_; }
  bool batchable() const override { return true; }

 protected:
  Array apply1(const Array& x, int, RowRandom*) const override {
    MC_CHECK(x.ndim() >= 2 && x.shape()[static_cast<size_t>(x.ndim() - 2)] == rows_, Runtime, op_,
             ": the shape of input tensor does not match the requirement of operator. Expecting "
             "tensor in shape of <..., freq, time> with freq = ",
             rows_, ". But got ", describe(x), ".");
    int64_t t = x.shape().back();
    int64_t batch = rows_ * t == 0 ? 0 : x.numel() / (rows_ * t);
    std::vector<double> v = audio::as_doubles(x, op_);
    std::vector<double> out(static_cast<size_t>(batch * cols_ * t), 0.0);
    for (int64_t b = 0; b < batch; ++b) {
      const double* src = v.data() + b * rows_ * t;
      double* dst = out.data() + b * cols_ * t;
      for (int64_t r = 0; r < rows_; ++r) {
        for (int64_t c = 0; c < cols_; ++c) {
          double w = m_[static_cast<size_t>(r * cols_ + c)];
          if (w == 0.0) continue;
          for (int64_t k = 0; k < t; ++k) dst[c * t + k] += w * src[r * t + k];
        }
      }
    }
    Shape shape = x.shape();
    shape[static_cast<size_t>(x.ndim() - 2)] = cols_;
    return audio::from_doubles(out, audio::out_type(x), shape);
  }

 private:
  std::string op_;
  std::vector<double> m_;
  int64_t rows_, cols_;
};

class AmplitudeToDB final : public UnaryTransform {
 public:
  AmplitudeToDB(std::string op, double multiplier, double amin, double db_multiplier, double top_db)
      : op_(std::move(op)),
        mult_(multiplier),
        amin_(amin),
        db_mult_(db_multiplier),
        top_db_(top_db) {
    MC_CHECK(amin > 0, Value, op_, ": amin must be positive, but got ", amin, ".");
  }
  std::string_view name() const override { return op_; }

 protected:
  Array apply1(const Array& x, int, RowRandom*) const override {
    MC_CHECK(x.ndim() >= 2, Runtime, op_,
             ": the shape of input tensor does not match the requirement of operator. Expecting "
             "tensor in shape of <..., freq, time>. But got ",
             describe(x), ".");
    std::vector<double> v = audio::as_doubles(x, op_);
    for (double& e : v) e = mult_ * (std::log10(std::max(e, amin_)) - db_mult_);
    if (top_db_ >= 0 && !v.empty()) {
      // The floor is per <channel, freq, time> block (the whole input when 2-D).
      const Shape& s = x.shape();
      size_t r = s.size();
      int64_t block = s[r - 1] * s[r - 2] * (r >= 3 ? s[r - 3] : 1);
      for (size_t start = 0; block > 0 && start < v.size(); start += static_cast<size_t>(block)) {
        auto first = v.begin() + static_cast<std::ptrdiff_t>(start);
        auto last = first + block;
        double floor = *std::max_element(first, last) - top_db_;
        for (auto it = first; it != last; ++it) *it = std::max(*it, floor);
      }
    }
    return audio::from_doubles(v, audio::out_type(x), x.shape());
  }

 private:
  std::string op_;
  double mult_, amin_, db_mult_, top_db_;
};

class LogOffset final : public UnaryTransform {
 public:
  LogOffset(std::string op, double offset) : op_(std::move(op)), offset_(offset) {}
  std::string_view name() const override { return op_; }
  bool batchable() const override { return true; }

 protected:
  Array apply1(const Array& x, int, RowRandom*) const override {
    std::vector<double> v = audio::as_doubles(x, op_);
    for (double& e : v) e = std::log(e + offset_);
    return audio::from_doubles(v, audio::out_type(x), x.shape());
  }

 private:
  std::string op_;
  double offset_;
};

}  // namespace

TransformPtr make_log_offset(std::string op, double offset) {
  return std::make_shared<LogOffset>(std::move(op), offset);
}

TransformPtr make_lfilter(std::string op, std::vector<double> a, std::vector<double> b,
                          bool clamp) {
  return std::make_shared<LFilter>(std::move(op), std::move(a), std::move(b), clamp);
}
TransformPtr make_freq_matrix(std::string op, std::vector<double> matrix, int64_t rows,
                              int64_t cols) {
  return std::make_shared<FreqMatrix>(std::move(op), std::move(matrix), rows, cols);
}
TransformPtr make_amplitude_to_db(std::string op, double multiplier, double amin,
                                  double db_multiplier, double top_db) {
  return std::make_shared<AmplitudeToDB>(std::move(op), multiplier, amin, db_multiplier, top_db);
}

}  // namespace mycel::data
