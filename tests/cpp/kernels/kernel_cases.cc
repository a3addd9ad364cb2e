#include "kernel_cases.h"

#include <cctype>
#include <cmath>
#include <sstream>

#include "ops/op_semantics.h"
#include "tensor/random.h"

namespace mycel::test {

Tensor make_input(const InputSpec& s, uint64_t seed) {
  if (is_complex(s.dtype)) {  // real and imaginary parts drawn independently
    InputSpec part = s;
    part.dtype = DType::Float64;
    const Tensor re = make_input(part, seed), im = make_input(part, seed ^ 0x9e3779b97f4a7c15ull);
    Tensor c = Tensor::empty(s.shape, DType::Complex128);
    for (int64_t i = 0; i < c.numel(); ++i)
      c.data<complex128>()[i] = {re.data<double>()[i], im.data<double>()[i]};
    return c.cast(s.dtype);
  }
  Tensor t = Tensor::empty(s.shape, DType::Float64);
  double* p = t.data<double>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    Philox4 r = philox(seed, 0, static_cast<uint64_t>(i));
    double u = uniform_double(r[0], r[1]);
    double u2 = uniform_double(r[2], r[3]);
    switch (s.gen) {
      case Gen::Normal:
        p[i] = std::sqrt(-2.0 * std::log(1.0 - u)) * std::cos(2 * M_PI * u2);
        break;
      case Gen::Positive:
        p[i] = 0.5 + 1.5 * u;
        break;
      case Gen::Unit:
        p[i] = 2.0 * u - 1.0;
        break;
      case Gen::Int:
        p[i] = static_cast<double>(s.lo + static_cast<int64_t>(u * (s.hi - s.lo)));
        break;
      case Gen::Bool:
        p[i] = u < 0.5 ? 0.0 : 1.0;
        break;
    }
  }
  return t.cast(s.dtype);
}

std::vector<KernelCase> all_kernel_cases() {
  std::vector<KernelCase> all;
  for (auto* f : {&elementwise_cases, &reduce_cases, &linalg_cases, &nn_cases, &array_cases,
                  &random_cases, &optim_cases}) {
    auto v = f();
    all.insert(all.end(), v.begin(), v.end());
  }
  return all;
}

std::vector<Tensor> inputs_for(const KernelCase& c, size_t index) {
  if (c.make_inputs) return c.make_inputs();
  std::vector<Tensor> ins;
  for (size_t i = 0; i < c.inputs.size(); ++i)
    ins.push_back(make_input(c.inputs[i], 1000 * index + i + 1));
  return ins;
}

std::vector<Tensor> kernel_inputs(const OpDef& op, const KernelCase& c,
                                  std::vector<TensorMeta>* metas) {
  std::vector<Tensor> ins = inputs_for(c, 7);
  metas->clear();
  for (const Tensor& t : ins) metas->push_back({t.dtype(), t.shape()});
  promote_inputs(op, *metas);
  for (size_t i = 0; i < ins.size(); ++i) {
    ins[i] = ins[i].cast((*metas)[i].dtype);
    if (!(op.flags & F_STRIDED)) ins[i] = ins[i].contiguous();
  }
  return ins;
}

std::string case_name(const KernelCase& c, size_t index) {
  std::string s = c.op + "_" + std::to_string(index);
  for (char& ch : s) {
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return s;
}

Attrs A(std::initializer_list<std::pair<const char*, AttrValue>> kv) {
  Attrs a;
  for (const auto& [k, v] : kv) a.set(k, v);
  return a;
}

std::string compare_tensors(const Tensor& got, const Tensor& want, double rtol, double atol) {
  std::ostringstream os;
  if (got.dtype() != want.dtype()) {
    os << "dtype " << got.dtype() << " vs " << want.dtype();
    return os.str();
  }
  if (!(got.shape() == want.shape())) {
    os << "shape " << got.shape() << " vs " << want.shape();
    return os.str();
  }
  if (is_complex(got.dtype())) {  // each part, against the tolerance of the modulus
    const Tensor g = got.cast(DType::Complex128).contiguous();
    const Tensor w = want.cast(DType::Complex128).contiguous();
    for (int64_t i = 0; i < got.numel(); ++i) {
      const complex128 a = g.data<complex128>()[i], b = w.data<complex128>()[i];
      for (int part = 0; part < 2; ++part) {
        const double x = part ? a.imag() : a.real(), y = part ? b.imag() : b.real();
        if ((std::isnan(x) && std::isnan(y)) || x == y) continue;
        if (!(std::fabs(x - y) <= atol + rtol * std::abs(b))) {
          os << "element " << i << (part ? " imag" : " real") << ": got " << x << ", want " << y
             << " (rtol " << rtol << ", atol " << atol << ")";
          return os.str();
        }
      }
    }
    return "";
  }
  for (int64_t i = 0; i < got.numel(); ++i) {
    double g = got.element_as_double(i), w = want.element_as_double(i);
    if (std::isnan(g) && std::isnan(w)) continue;
    if (g == w) continue;  // also equal infinities
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w))) {
      os << "element " << i << ": got " << g << ", want " << w << " (rtol " << rtol << ", atol "
         << atol << ")";
      return os.str();
    }
  }
  return "";
}

}  // namespace mycel::test
