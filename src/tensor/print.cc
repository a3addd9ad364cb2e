// Tensor printing.
//
// to_string() is numpy's str(array) with numpy 1.24's default options, which is what
// MindSpore's print(Tensor) shows: "[ 4. 10. 18.]". Floats print with the shortest digits that
// identify the value in its own dtype, at most 8 after the point, padded to one width;
// scientific notation when the magnitudes call for it (max >= 1e8, min < 1e-4, or
// max/min > 1e3); arrays over 1000 elements show 3 items at each end of every long axis around
// "..."; rows wrap at 75 columns. A 0-d tensor prints as numpy's scalar str ("3.0").
//
// repr() is MindSpore's Tensor repr: "Tensor(shape=[3], dtype=Float32, value= [...])" with the
// values in its own style: floats in %.8e (float16 and bfloat16 %.4e) right-aligned in 15 (11)
// columns, comma separated, long axes cut to 3 + 3 items.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <sstream>
#include <vector>

#include "tensor/tensor.h"

namespace mycel {

namespace {

// ---- element access --------------------------------------------------------------------

struct Elem {
  double f = 0;   // floats (exact: every dtype's value is a double); complex: the real part
  double im = 0;  // complex: the imaginary part
  int64_t i = 0;  // integers and bools
};

Elem read_elem(const Tensor& t, int64_t off) {
  return dispatch_any(t.dtype(), "print", [&](auto tag) -> Elem {
    using T = typename decltype(tag)::type;
    const T v = static_cast<const T*>(t.storage()->data())[t.offset() + off];
    Elem e;
    if constexpr (is_complex_v<T>) {
      e.f = static_cast<double>(v.real());
      e.im = static_cast<double>(v.imag());
    } else if constexpr (std::is_integral_v<T>) {
      e.i = static_cast<int64_t>(v);
    } else {
      e.f = static_cast<double>(static_cast<compute_t<T>>(v));
    }
    return e;
  });
}

// An integer element's digits (uint64 values above int64's range are held as their bits).
std::string int_text(DType t, int64_t i) {
  return t == DType::UInt64 ? std::to_string(static_cast<uint64_t>(i)) : std::to_string(i);
}

// The displayed indices of an axis: all of them, or (cut) the first and last `edge` around a
// gap marked -1.
using Shown = std::vector<std::vector<int64_t>>;

std::vector<int64_t> shown_axis(int64_t n, bool cut, int64_t edge) {
  std::vector<int64_t> v;
  if (cut) {
    for (int64_t i = 0; i < edge; ++i) v.push_back(i);
    v.push_back(-1);
    for (int64_t i = n - edge; i < n; ++i) v.push_back(i);
  } else {
    for (int64_t i = 0; i < n; ++i) v.push_back(i);
  }
  return v;
}

// Element offsets of the displayed elements, row-major over the displayed indices.
void collect(const Tensor& t, const Shown& shown, size_t axis, int64_t off,
             std::vector<int64_t>* out) {
  if (axis == shown.size()) {
    out->push_back(off);
    return;
  }
  for (int64_t i : shown[axis]) {
    if (i >= 0) collect(t, shown, axis + 1, off + i * t.strides()[axis], out);
  }
}

// ---- shortest digits ---------------------------------------------------------------------

// A finite value as sign, significant digits d1 d2 ... and exponent: d1.d2... x 10^exp.
struct Digits {
  bool neg = false;
  std::string d;
  int exp = 0;
};

Digits parse_sci(const char* b, const char* e) {
  Digits r;
  const char* p = b;
  if (*p == '-') {
    r.neg = true;
    ++p;
  }
  for (; p < e && *p != 'e'; ++p) {
    if (*p != '.') r.d += *p;
  }
  if (p < e) {
    ++p;
    if (p < e && *p == '+') ++p;
    std::from_chars(p, e, r.exp);
  }
  while (r.d.size() > 1 && r.d.back() == '0') r.d.pop_back();
  return r;
}

// Whether the decimal `cand` reads back as the 16-bit float v.
bool round_trips(double cand, double v, DType t) {
  const float c = static_cast<float>(cand), x = static_cast<float>(v);
  if (t == DType::Float16) return float16(c).bits == float16(x).bits;
  return bfloat16(c).bits == bfloat16(x).bits;
}

// The shortest digits that read back as v in dtype t (the closest such when several).
Digits shortest(double v, DType t) {
  char buf[64];
  if (t == DType::Float64 || t == DType::Float32) {
    auto r = t == DType::Float64
                 ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific)
                 : std::to_chars(buf, buf + sizeof buf, static_cast<float>(v),
                                 std::chars_format::scientific);
    return parse_sci(buf, r.ptr);
  }
  if (v == 0) {
    Digits z;
    z.neg = std::signbit(v);
    z.d = "0";
    return z;
  }
  // p significant digits: the correctly rounded candidate, or at a power of two (where the
  // gap below is half the gap above) the one a unit above or below it.
  for (int p = 1; p <= 9; ++p) {
    int n = std::snprintf(buf, sizeof buf, "%.*e", p - 1, v);
    Digits g = parse_sci(buf, buf + n);
    std::string mant = g.d + std::string(static_cast<size_t>(p) - g.d.size(), '0');
    const long long m = std::atoll(mant.c_str());
    const int scale = g.exp - p + 1;
    for (long long cand : {m, m + 1, m - 1}) {
      if (cand <= 0) continue;
      char cb[64];
      std::snprintf(cb, sizeof cb, "%llde%d", cand, scale);
      if (!round_trips(std::strtod(cb, nullptr), std::fabs(v), t)) continue;
      int cn = std::snprintf(buf, sizeof buf, "%s%.*e", v < 0 ? "-" : "", p - 1,
                             std::strtod(cb, nullptr));
      return parse_sci(buf, buf + cn);
    }
  }
  int n = std::snprintf(buf, sizeof buf, "%.8e", v);
  return parse_sci(buf, buf + n);
}

// v rounded (exactly, from its binary value) to `frac` digits after the point / in the
// mantissa, trailing zeros dropped.
Digits rounded(double v, int frac, bool sci) {
  char buf[400];
  int n = std::snprintf(buf, sizeof buf, sci ? "%.*e" : "%.*f", frac, v);
  if (sci) return parse_sci(buf, buf + n);
  // Positional text back to digits/exponent.
  Digits r;
  const char* p = buf;
  if (*p == '-') {
    r.neg = true;
    ++p;
  }
  std::string all;
  int int_len = 0;
  bool dot = false;
  for (; *p; ++p) {
    if (*p == '.') {
      dot = true;
      continue;
    }
    all += *p;
    if (!dot) ++int_len;
  }
  size_t first = all.find_first_not_of('0');
  if (first == std::string::npos) {
    r.d = "0";
    r.exp = 0;
    return r;
  }
  r.exp = int_len - 1 - static_cast<int>(first);
  r.d = all.substr(first);
  while (r.d.size() > 1 && r.d.back() == '0') r.d.pop_back();
  return r;
}

// Positional parts ("-12", "5") of d: integer part with sign, fraction digits.
void positional(const Digits& g, std::string* ip, std::string* fp) {
  const int n = static_cast<int>(g.d.size());
  std::string i, f;
  if (g.exp >= 0) {
    for (int k = 0; k <= g.exp; ++k) i += k < n ? g.d[k] : '0';
    if (n > g.exp + 1) f = g.d.substr(g.exp + 1);
  } else {
    i = "0";
    f = std::string(-g.exp - 1, '0') + g.d;
  }
  if (g.d == "0") f.clear();
  *ip = (g.neg ? "-" : "") + i;
  *fp = f;
}

// numpy's dragon4 with unique=True, precision=8: the shortest digits, but at most 8 fraction
// digits (positional) or mantissa digits (scientific), correctly rounded past that.
Digits numpy_digits(double v, DType t, bool sci) {
  Digits g = shortest(v, t);
  const int n = static_cast<int>(g.d.size());
  const int frac = sci ? n - 1 : std::max(0, n - 1 - g.exp);
  if (frac <= 8) return g;
  Digits r = rounded(v, 8, sci);
  r.neg = std::signbit(v);
  return r;
}

std::string exp_digits(int e, int width) {
  std::string s = std::to_string(std::abs(e));
  if (static_cast<int>(s.size()) < width) s = std::string(width - s.size(), '0') + s;
  return (e < 0 ? "-" : "+") + s;
}

// ---- numpy float format ----------------------------------------------------------------

// The ratio test of fillFormat happens in the array's own dtype.
double ratio_in(DType t, double a, double b) {
  switch (t) {
    case DType::Float16:
      return static_cast<float>(float16(static_cast<float>(a) / static_cast<float>(b)));
    case DType::BFloat16:
      return static_cast<float>(bfloat16(static_cast<float>(a) / static_cast<float>(b)));
    case DType::Float32:
      return static_cast<float>(a) / static_cast<float>(b);
    default:
      return a / b;
  }
}

std::vector<std::string> format_floats(const std::vector<double>& vals, DType t) {
  bool any_finite = false, sci = false, neg_inf = false, any_nonfinite = false;
  double maxv = 0, minv = 0;
  bool any_nonzero = false;
  for (double v : vals) {
    if (!std::isfinite(v)) {
      any_nonfinite = true;
      neg_inf |= std::isinf(v) && v < 0;
      continue;
    }
    any_finite = true;
    double a = std::fabs(v);
    if (a == 0) continue;
    if (!any_nonzero) maxv = minv = a;
    maxv = std::max(maxv, a);
    minv = std::min(minv, a);
    any_nonzero = true;
  }
  if (any_nonzero) sci = maxv >= 1e8 || minv < 1e-4 || ratio_in(t, maxv, minv) > 1000.0;

  std::vector<Digits> digits(vals.size());
  int pad_left = 0, pad_right = 0, prec = 0, exp_size = 0;
  for (size_t k = 0; k < vals.size(); ++k) {
    if (!std::isfinite(vals[k])) continue;
    digits[k] = numpy_digits(vals[k], t, sci);
    if (sci) {
      pad_left = std::max(pad_left, digits[k].neg ? 2 : 1);
      prec = std::max(prec, static_cast<int>(digits[k].d.size()) - 1);
      exp_size = std::max(exp_size, static_cast<int>(exp_digits(digits[k].exp, 2).size()) - 1);
    } else {
      std::string ip, fp;
      positional(digits[k], &ip, &fp);
      pad_left = std::max(pad_left, static_cast<int>(ip.size()));
      pad_right = std::max(pad_right, static_cast<int>(fp.size()));
    }
  }
  if (sci) pad_right = exp_size + 2 + prec;
  if (!any_finite) pad_left = pad_right = 0;
  if (any_nonfinite) {
    const int offset = pad_right + 1;
    pad_left = std::max({pad_left, 3 - offset, 3 + (neg_inf ? 1 : 0) - offset});
  }

  std::vector<std::string> cells;
  cells.reserve(vals.size());
  for (size_t k = 0; k < vals.size(); ++k) {
    const double v = vals[k];
    std::string s;
    if (!std::isfinite(v)) {
      std::string r = std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
      s = std::string(std::max(0, pad_left + pad_right + 1 - static_cast<int>(r.size())), ' ') + r;
    } else if (sci) {
      // min_digits = precision: digits past the unique ones continue the exact value.
      Digits g = rounded(v, prec, true);
      g.d += std::string(static_cast<size_t>(prec + 1) - g.d.size(), '0');
      std::string ip = (g.neg ? "-" : "") + g.d.substr(0, 1);
      s = std::string(pad_left - ip.size(), ' ') + ip + "." + g.d.substr(1) + "e" +
          exp_digits(g.exp, exp_size);
    } else {
      std::string ip, fp;
      positional(digits[k], &ip, &fp);
      // Printing with min_digits=0 spells the integer part out exactly (float16 57728 prints
      // as 57728., not its shortest 57730.); a value whose shortest form has no fraction
      // digits is an integer.
      if (fp.empty()) {
        char buf[400];
        std::snprintf(buf, sizeof buf, "%.0f", v);
        ip = buf;
      }
      s = std::string(pad_left - ip.size(), ' ') + ip + "." + fp +
          std::string(pad_right - fp.size(), ' ');
    }
    cells.push_back(std::move(s));
  }
  return cells;
}

// numpy's str of a float scalar: positional for 1e-4 <= |v| < 1e16 (and 0) keeping one zero
// after the point, else scientific without trailing zeros.
std::string float_scalar_str(double v, DType t) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  Digits g = shortest(v, t);
  const double a = std::fabs(v);
  if (a == 0 || (a < 1e16 && a >= 1e-4)) {
    std::string ip, fp;
    positional(g, &ip, &fp);
    return ip + "." + (fp.empty() ? "0" : fp);
  }
  std::string m = (g.neg ? "-" : "") + g.d.substr(0, 1);
  if (g.d.size() > 1) m += "." + g.d.substr(1);
  return m + "e" + exp_digits(g.exp, 2);
}

// ---- numpy layout (arrayprint._formatArray) ----------------------------------------------

constexpr int kLineWidth = 75;

struct NumpyLayout {
  const Shape& shape;
  const Shown& shown;
  const std::vector<std::string>& cells;
  size_t pos = 0;

  static void extend(std::string& s, std::string& line, const std::string& word, size_t width,
                     const std::string& prefix) {
    bool wrap = line.size() + word.size() > width && line.size() > prefix.size();
    if (wrap) {
      size_t end = line.find_last_not_of(' ');
      s += line.substr(0, end == std::string::npos ? 0 : end + 1) + "\n";
      line = prefix;
    }
    line += word;
  }

  std::string rec(size_t axis, const std::string& hang, int width) {
    if (axis == shape.size()) return cells[pos++];
    const std::string next_hang = hang + ' ';
    const int next_width = width - 1;
    std::string s;
    const auto& idx = shown[axis];
    if (axis + 1 == shape.size()) {
      const size_t elem_width = static_cast<size_t>(width - 1);
      std::string line = hang;
      for (size_t k = 0; k < idx.size(); ++k) {
        std::string word = idx[k] < 0 ? "..." : rec(axis + 1, next_hang, next_width);
        extend(s, line, word, elem_width, hang);
        if (k + 1 < idx.size()) line += ' ';
      }
      s += line;
    } else {
      const std::string line_sep(shape.size() - axis - 1, '\n');
      for (size_t k = 0; k < idx.size(); ++k) {
        s += hang + (idx[k] < 0 ? "..." : rec(axis + 1, next_hang, next_width));
        if (k + 1 < idx.size()) s += line_sep;
      }
    }
    return "[" + s.substr(hang.size()) + "]";
  }
};

// ---- MindSpore's repr values (ir/tensor.cc, TensorStringifier) ---------------------------

struct MsPrinter {
  MsPrinter(const Tensor& x, bool f, bool b, bool h) : t(x), is_float(f), is_bool(b), half(h) {}
  const Tensor& t;
  bool is_float, is_bool, half;
  int int_width = 0;
  bool measure = true;
  std::ostringstream os;

  void value(int64_t off) {
    Elem e = read_elem(t, off);
    if (is_float) {
      os << std::setw(half ? 11 : 15) << std::setprecision(half ? 4 : 8) << std::scientific
         << std::right << e.f;
    } else if (is_bool) {
      os << std::setw(5) << std::right << (e.i ? "True" : "False");
    } else {
      std::string s = int_text(t.dtype(), e.i);
      if (measure) int_width = std::max(int_width, static_cast<int>(s.size()));
      os << std::string(int_width - s.size(), ' ') << s;
    }
  }

  // Elements [b, e) of the last axis, 1-d rows breaking every 12 floats/bools or 24 ints.
  void run(int64_t base, int64_t b, int64_t e) {
    const int64_t st = t.strides().back();
    const int64_t every = is_float || is_bool ? 12 : 24;
    for (int64_t i = b; i < e; ++i) {
      value(base + i * st);
      if (i != e - 1) os << ", ";
      if (t.ndim() == 1 && e - b > 3 && (i + 1) % every == 0) os << "\n ";
    }
  }

  void rec(size_t depth, int64_t base) {
    const int64_t n = t.dim(static_cast<int64_t>(depth));
    const int64_t st = t.strides()[depth];
    const std::string indent(depth + 1, ' ');
    os << '[';
    if (depth + 1 == static_cast<size_t>(t.ndim())) {
      if ((n > 6 && t.ndim() > 1) || (n > 1000 && t.ndim() == 1)) {
        run(base, 0, 3);
        os << " ... ";
        run(base, n - 3, n);
      } else {
        run(base, 0, n);
      }
    } else {
      for (int64_t i = 0; i < std::min<int64_t>(3, n); ++i) {
        if (i > 0) os << ",\n" << indent;
        rec(depth + 1, base + i * st);
      }
      if (n > 6) os << ",\n" << indent << "...";
      if (n > 3) {
        const int64_t tail = std::min<int64_t>(n - 3, 3);
        for (int64_t i = 0; i < tail; ++i) {
          if (i != 0 || n <= 6) os << ',';
          os << '\n' << indent;
          rec(depth + 1, base + (n - tail + i) * st);
        }
      }
    }
    os << ']';
  }
};

// numpy's str of a complex scalar: "(1+2j)", "(1.5-0.25j)", "(nan+infj)"; the parts in their
// shortest digits (a whole number without ".0").
std::string complex_scalar_str(double re, double im, DType part) {
  auto text = [part](double v) {
    std::string s = float_scalar_str(v, part);
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
    return s;
  };
  const bool neg = std::signbit(im) && !std::isnan(im);
  return "(" + (re == 0 && !std::signbit(re) ? std::string() : text(re)) +
         (re == 0 && !std::signbit(re) ? (neg ? "-" : "") : (neg ? "-" : "+")) +
         text(std::fabs(im)) + "j)";
}

// numpy's cells of a complex array: the real parts formatted together (one width), the
// imaginary parts likewise with their sign, then "j": "1.5+2.j ".
std::vector<std::string> complex_cells(const Tensor& t, const std::vector<int64_t>& offs) {
  std::vector<double> re, im;
  for (int64_t o : offs) {
    const Elem e = read_elem(t, o);
    re.push_back(e.f);
    im.push_back(std::fabs(e.im));
  }
  const DType part = complex_part_dtype(t.dtype());
  std::vector<std::string> rs = format_floats(re, part), is = format_floats(im, part);
  std::vector<std::string> cells;
  for (size_t k = 0; k < offs.size(); ++k) {
    const Elem e = read_elem(t, offs[k]);
    std::string ip = is[k];
    const size_t lead = ip.find_first_not_of(' ');
    ip = ip.substr(lead == std::string::npos ? 0 : lead);
    const bool neg = std::signbit(e.im) && !std::isnan(e.im);
    cells.push_back(rs[k] + (neg ? "-" : "+") + ip + "j");
  }
  size_t w = 0;
  for (const auto& c : cells) w = std::max(w, c.size());
  for (auto& c : cells) c += std::string(w - c.size(), ' ');
  return cells;
}

std::string ms_values(const Tensor& t) {
  if (t.numel() == 0) return "";
  if (is_complex(t.dtype())) return t.to_string();  // numpy's layout
  const bool is_float = is_floating(t.dtype());
  if (t.ndim() == 0) {
    Elem e = read_elem(t, 0);
    std::ostringstream os;
    if (is_float)
      os << e.f;
    else if (is_bool(t.dtype()))
      os << (e.i ? "True" : "False");
    else
      os << e.i;
    return os.str();
  }
  MsPrinter p(t, is_float, is_bool(t.dtype()),
              t.dtype() == DType::Float16 || t.dtype() == DType::BFloat16);
  p.rec(0, 0);
  p.measure = false;
  p.os.str("");
  p.os.clear();
  p.rec(0, 0);
  return p.os.str();
}

}  // namespace

std::string Tensor::to_string() const {
  if (!device().is_cpu()) return cpu().to_string();
  const int64_t n = numel();
  if (ndim() == 0) {
    Elem e = read_elem(*this, 0);
    if (is_floating(dtype())) return float_scalar_str(e.f, dtype());
    if (is_complex(dtype())) return complex_scalar_str(e.f, e.im, complex_part_dtype(dtype()));
    if (is_bool(dtype())) return e.i ? "True" : "False";
    return int_text(dtype(), e.i);
  }
  if (n == 0) return "[]";
  const bool summarize = n > 1000;
  Shown shown;
  for (int64_t d = 0; d < ndim(); ++d)
    shown.push_back(shown_axis(dim(d), summarize && dim(d) > 6, 3));
  std::vector<int64_t> offs;
  collect(*this, shown, 0, 0, &offs);

  std::vector<std::string> cells;
  cells.reserve(offs.size());
  if (is_complex(dtype())) {
    cells = complex_cells(*this, offs);
  } else if (is_floating(dtype())) {
    std::vector<double> vals;
    vals.reserve(offs.size());
    for (int64_t o : offs) vals.push_back(read_elem(*this, o).f);
    cells = format_floats(vals, dtype());
  } else if (is_bool(dtype())) {
    for (int64_t o : offs) cells.push_back(read_elem(*this, o).i ? " True" : "False");
  } else {
    size_t w = 0;
    for (int64_t o : offs) {
      cells.push_back(int_text(dtype(), read_elem(*this, o).i));
      w = std::max(w, cells.back().size());
    }
    for (auto& c : cells) c = std::string(w - c.size(), ' ') + c;
  }
  NumpyLayout layout{shape(), shown, cells};
  return layout.rec(0, " ", kLineWidth);
}

std::string Tensor::repr() const {
  return str("Tensor(shape=", shape(), ", dtype=", dtype(), ", value=", ndim() > 1 ? "\n" : " ",
             ms_values(*this), ")");
}

}  // namespace mycel
