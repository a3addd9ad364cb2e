// Tensor printing in numpy's default style, which is MindSpore's: print(Tensor) shows
// "[ 4. 10. 18.]". Floats print positionally with the shortest digits that round-trip (at
// most 8 after the point), all padded to one width; scientific notation when the magnitudes
// call for it (max >= 1e8, min < 1e-4, or max/min > 1e3), as numpy does.
#include <charconv>
#include <cmath>
#include <sstream>
#include <vector>

#include "tensor/tensor.h"

namespace mycel {

namespace {

// Shortest round-trip digits of v (as float when is_f32), in the given format.
std::string shortest(double v, bool is_f32, std::chars_format fmt) {
  char buf[64];
  auto r = is_f32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v), fmt)
                  : std::to_chars(buf, buf + sizeof buf, v, fmt);
  return std::string(buf, r.ptr);
}

struct FloatFormat {
  bool sci = false;
  int frac = 0;       // digits after the point (positional) or in the mantissa (scientific)
  int int_width = 0;  // width of the part before the point, sign included
  bool is_f32 = true;
};

std::string nonfinite(double v) {
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

// Positional digits of v with at most 8 fraction digits, shortest that round-trip.
void positional_parts(double v, bool is_f32, std::string* ip, std::string* fp) {
  std::string s = shortest(v, is_f32, std::chars_format::fixed);
  size_t dot = s.find('.');
  std::string i = dot == std::string::npos ? s : s.substr(0, dot);
  std::string f = dot == std::string::npos ? "" : s.substr(dot + 1);
  if (f.size() > 8) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.8f", v);
    std::string t(buf);
    size_t d = t.find('.');
    i = t.substr(0, d);
    f = t.substr(d + 1);
    while (!f.empty() && f.back() == '0') f.pop_back();
  }
  *ip = i;
  *fp = f;
}

void sci_parts(double v, bool is_f32, std::string* mant, int* exp) {
  std::string s = shortest(v, is_f32, std::chars_format::scientific);
  size_t e = s.find('e');
  *mant = s.substr(0, e);
  *exp = std::stoi(s.substr(e + 1));
}

FloatFormat choose_format(const std::vector<double>& vals, bool is_f32) {
  FloatFormat f;
  f.is_f32 = is_f32;
  double maxv = 0, minv = INFINITY;
  bool any = false;
  for (double v : vals) {
    if (!std::isfinite(v)) continue;
    double a = std::fabs(v);
    maxv = std::max(maxv, a);
    if (a != 0) minv = std::min(minv, a);
    any = true;
  }
  if (any && (maxv >= 1e8 || (minv < 1e-4 && minv != INFINITY) ||
              (minv != INFINITY && maxv / minv > 1e3))) {
    f.sci = true;
  }
  for (double v : vals) {
    if (!std::isfinite(v)) {
      f.int_width = std::max<int>(f.int_width, static_cast<int>(nonfinite(v).size()));
      continue;
    }
    if (f.sci) {
      std::string m;
      int e;
      sci_parts(v, is_f32, &m, &e);
      size_t dot = m.find('.');
      int fr = dot == std::string::npos ? 0 : static_cast<int>(m.size() - dot - 1);
      f.frac = std::max(f.frac, fr);
      f.int_width = std::max<int>(f.int_width, v < 0 ? 2 : 1);
    } else {
      std::string i, fr;
      positional_parts(v, is_f32, &i, &fr);
      f.frac = std::max<int>(f.frac, static_cast<int>(fr.size()));
      f.int_width = std::max<int>(f.int_width, static_cast<int>(i.size()));
    }
  }
  return f;
}

std::string format_float(double v, const FloatFormat& f) {
  std::string body;
  if (!std::isfinite(v)) {
    body = nonfinite(v);
    int width = f.int_width + 1 + f.frac + (f.sci ? 4 : 0);
    return std::string(std::max<int>(0, width - static_cast<int>(body.size())), ' ') + body;
  }
  if (f.sci) {
    std::string m;
    int e;
    sci_parts(v, f.is_f32, &m, &e);
    if (m.find('.') == std::string::npos) m += '.';
    size_t dot = m.find('.');
    int fr = static_cast<int>(m.size() - dot - 1);
    m += std::string(f.frac - fr, '0');
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", e < 0 ? '-' : '+', std::abs(e));
    body = m + eb;
    int w = f.int_width - (v < 0 ? 2 : 1);
    return std::string(std::max(0, w), ' ') + body;
  }
  std::string i, fr;
  positional_parts(v, f.is_f32, &i, &fr);
  std::string left(std::max<int>(0, f.int_width - static_cast<int>(i.size())), ' ');
  return left + i + "." + fr + std::string(f.frac - fr.size(), ' ');
}

void print_rec(std::ostringstream& os, const std::vector<std::string>& cells, const Shape& shape,
               size_t dim, int64_t& pos, int indent) {
  if (shape.empty()) {
    os << cells[0];
    return;
  }
  os << '[';
  int64_t n = shape[dim];
  for (int64_t i = 0; i < n; ++i) {
    if (dim + 1 == shape.size()) {
      if (i) os << ' ';
      os << cells[pos++];
    } else {
      if (i) {
        os << '\n';
        for (size_t k = dim + 1; k + 1 < shape.size(); ++k) os << '\n';
        os << std::string(indent + 1, ' ');
      }
      print_rec(os, cells, shape, dim + 1, pos, indent + 1);
    }
  }
  os << ']';
}

}  // namespace

std::string Tensor::to_string() const {
  std::vector<std::string> cells;
  int64_t n = numel();
  cells.reserve(n);
  if (is_floating(dtype())) {
    std::vector<double> vals(n);
    for (int64_t i = 0; i < n; ++i) vals[i] = element_as_double(i);
    FloatFormat f = choose_format(vals, dtype() != DType::Float64);
    for (double v : vals) cells.push_back(format_float(v, f));
  } else if (dtype() == DType::Bool) {
    for (int64_t i = 0; i < n; ++i) cells.push_back(element_as_double(i) != 0 ? " True" : "False");
    bool any_false = false;
    for (auto& c : cells) any_false |= c == "False";
    if (!any_false) for (auto& c : cells) c = "True";
  } else {
    size_t w = 0;
    for (int64_t i = 0; i < n; ++i) {
      cells.push_back(std::to_string(static_cast<int64_t>(element_as_double(i))));
      w = std::max(w, cells.back().size());
    }
    for (auto& c : cells) c = std::string(w - c.size(), ' ') + c;
  }
  std::ostringstream os;
  if (n == 0) {
    os << "[]";
    return os.str();
  }
  int64_t pos = 0;
  print_rec(os, cells, shape(), 0, pos, 0);
  return os.str();
}

std::string Tensor::repr() const {
  return str("Tensor(shape=", shape(), ", dtype=", dtype(), ", value=", to_string(), ")");
}

}  // namespace mycel
