// Kernel test cases for the elementwise family (see kernel_cases.h).
#include <cmath>
#include <limits>

#include "kernel_cases.h"

namespace mycel::test {

namespace {

const DType kAll[] = {DType::Bool,    DType::Int8,   DType::UInt8,   DType::Int16,
                      DType::Int32,   DType::Int64,  DType::Float16, DType::BFloat16,
                      DType::Float32, DType::Float64};
const DType kNumbers[] = {DType::Int8,     DType::UInt8,   DType::Int16,
                          DType::Int32,    DType::Int64,   DType::Float16,
                          DType::BFloat16, DType::Float32, DType::Float64};
const DType kFloats[] = {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64};

// Sizes around vector widths (7, 33), an odd 2-d one, 0-d and empty.
const Shape kShapes[] = {{}, {0}, {7}, {33}, {4, 257}, {1031}};
// Past two thread grains, so the parallel path runs.
const Shape kBig = {300007};

// Input generator by op: domains where the op is defined, integers kept small.
InputSpec spec(const std::string& op, Shape s, DType t) {
  if (t == DType::Bool) return {s, t, Gen::Bool};
  if (!is_floating(t)) {
    if (t == DType::UInt8) return {s, t, Gen::Int, 0, 15};
    return {s, t, Gen::Int, -9, 10};
  }
  if (op == "Log" || op == "Sqrt" || op == "Rsqrt") return {s, t, Gen::Positive};
  if (op == "Log1p" || op == "ACos" || op == "Asin" || op == "Atanh") return {s, t, Gen::Unit};
  if (op == "Acosh") return {s, t, Gen::Positive};  // below 1 both sides give NaN
  return {s, t, Gen::Normal};
}

void set_tol(KernelCase& c, DType t) {
  if (t == DType::Float16) {
    c.rtol = 2e-3;
    c.atol = 1e-3;
  } else if (t == DType::BFloat16) {
    c.rtol = 1e-2;
    c.atol = 1e-2;
  }
}

KernelCase make(const std::string& op, std::vector<InputSpec> in, DType t, Attrs attrs = {},
                std::string label = "") {
  KernelCase c;
  c.op = op;
  c.label = label;
  for (const InputSpec& s : in) c.label.append(" ").append(shape_str(s.shape));
  c.label.append(" ").append(dtype_name(t));
  c.inputs = std::move(in);
  c.attrs = std::move(attrs);
  set_tol(c, t);
  return c;
}

// Input i of `specs`, generated as shape [b, a] and transposed to [a, b]: a strided view.
std::function<std::vector<Tensor>()> transposed(std::vector<InputSpec> specs,
                                                std::vector<bool> which) {
  return [specs, which] {
    std::vector<Tensor> v;
    for (size_t i = 0; i < specs.size(); ++i) {
      InputSpec s = specs[i];
      if (which[i]) {
        std::swap(s.shape[0], s.shape[1]);
        v.push_back(make_input(s, 500 + i).permute({1, 0}));
      } else {
        v.push_back(make_input(s, 500 + i));
      }
    }
    return v;
  };
}

// A float32 (or other float) tensor of special values: signed zeros, subnormals, overflow
// and underflow thresholds of exp, arguments past sin/cos's reduction range, inf, nan.
Tensor specials(DType t) {
  const double inf = std::numeric_limits<double>::infinity();
  const double v[] = {0.0,    -0.0,    1.0,       -1.0,      0.5,    -0.5,   0.625,  -0.7,
                      1e-30,  -1e-30,  1e-40,     -1e-40,    3.0,    -3.5,   20.0,   -20.0,
                      88.5,   88.8,    89.0,      -87.0,     -103.0, -104.0, -110.0, 1e4,
                      -1e4,   1e6,     -1e6,      3e38,      -3e38,  inf,    -inf,   std::nan(""),
                      8192.0, -8192.5, 1.5707963, 3.1415927, 100.0,  -100.0};
  const int64_t n = static_cast<int64_t>(std::size(v));
  Tensor x = Tensor::empty({n}, DType::Float64);
  for (int64_t i = 0; i < n; ++i) x.data<double>()[i] = v[i];
  return x.cast(t);
}

// Integer operands with mixed signs, the type's minimum and divisors -1 and 1, never 0.
std::function<std::vector<Tensor>()> int_division_inputs(DType t) {
  return [t] {
    const int64_t n = 64;
    Tensor a = Tensor::empty({n}, DType::Int64), b = Tensor::empty({n}, DType::Int64);
    const int64_t lo = t == DType::Int64   ? std::numeric_limits<int64_t>::min()
                       : t == DType::Int32 ? std::numeric_limits<int32_t>::min()
                       : t == DType::Int16 ? std::numeric_limits<int16_t>::min()
                       : t == DType::Int8  ? std::numeric_limits<int8_t>::min()
                                           : 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t x = (i * 37) % 41 - 20, y = (i * 13) % 17 - 8;
      if (t == DType::UInt8) {
        x = (i * 37) % 251;
        y = 1 + (i * 13) % 17;
      }
      if (y == 0) y = i % 2 ? 3 : -1;
      if (i % 9 == 0) x = lo;
      a.data<int64_t>()[i] = x;
      b.data<int64_t>()[i] = y;
    }
    return std::vector<Tensor>{a.cast(t), b.cast(t)};
  };
}

const char* const kUnaryNumber[] = {"Neg",   "Abs",   "Sign", "Square", "ReLU",
                                    "ReLU6", "Floor", "Ceil", "Round",  "Rint"};
const char* const kUnaryFloat[] = {
    "Exp",     "Log",   "Log1p", "Sqrt",     "Rsqrt", "Reciprocal", "Sin",  "Cos",  "Tanh",
    "Sigmoid", "Erf",   "SiLU",  "Softplus", "GeLU",  "ACos",       "Asin", "Atan", "Acosh",
    "Asinh",   "Atanh", "Sinh",  "Cosh",     "Tan",   "Expm1",      "Erfc"};
const char* const kArith[] = {"Add",      "Sub", "Mul",      "Maximum", "Minimum",
                              "FloorDiv", "Mod", "FloorMod", "ReluGrad"};
const char* const kBoolArith[] = {"Add", "Mul", "Maximum", "Minimum"};
const char* const kCompare[] = {"Equal",     "NotEqual", "Less",
                                "LessEqual", "Greater",  "GreaterEqual"};

// Binary shape pairs: same, scalar either side, broadcasting both ways, empty.
const std::pair<Shape, Shape> kPairs[] = {
    {{7}, {7}},          {{33}, {}},    {{}, {33}},    {{4, 1, 5}, {3, 1}},
    {{2, 3, 1}, {1, 7}}, {{0, 3}, {3}}, {{1031}, {1}}, {{}, {}}};

void add_unary(std::vector<KernelCase>& v) {
  for (const char* op : kUnaryNumber) {
    for (DType t : kNumbers) v.push_back(make(op, {spec(op, {1031}, t)}, t));
    for (const Shape& s : kShapes)
      v.push_back(make(op, {spec(op, s, DType::Float32)}, DType::Float32));
    v.push_back(make(op, {spec(op, kBig, DType::Float32)}, DType::Float32));
    v.push_back(make(op, {spec(op, kBig, DType::Int16)}, DType::Int16));
    KernelCase c = make(op, {}, DType::Int32, {}, "transposed [40, 9]");
    c.make_inputs = transposed({spec(op, {40, 9}, DType::Int32)}, {true});
    v.push_back(c);
    // the rounding ops on halves (to even), signed zeros, huge values, inf and nan
    if (std::string_view(op) == "Floor" || std::string_view(op) == "Ceil" ||
        std::string_view(op) == "Round" || std::string_view(op) == "Rint") {
      for (DType t : {DType::Float32, DType::Float64, DType::Float16}) {
        KernelCase sp = make(op, {}, t, {}, "special values");
        sp.make_inputs = [t] { return std::vector<Tensor>{specials(t)}; };
        v.push_back(sp);
      }
    }
  }
  for (const char* op : kUnaryFloat) {
    std::vector<Attrs> modes = {Attrs()};
    if (std::string(op) == "GeLU")
      modes = {A({{"approximate", std::string("tanh")}}),
               A({{"approximate", std::string("none")}})};
    for (const Attrs& at : modes) {
      const std::string mode = at.empty() ? "" : at.get_str("approximate");
      for (DType t : kFloats) v.push_back(make(op, {spec(op, {1031}, t)}, t, at, mode));
      for (const Shape& s : kShapes)
        v.push_back(make(op, {spec(op, s, DType::Float32)}, DType::Float32, at, mode));
      // Integer input: computed in float32 (F_FLOAT_IN).
      if (std::string(op) != "Log1p") {
        v.push_back(make(op, {{{33}, DType::Int32, Gen::Int, 1, 9}}, DType::Int32, at, mode));
      }
      KernelCase big = make(op, {spec(op, kBig, DType::Float32)}, DType::Float32, at, mode);
      v.push_back(big);
      KernelCase tr = make(op, {}, DType::Float32, at, mode + " transposed [300, 130]");
      tr.make_inputs = transposed({spec(op, {300, 130}, DType::Float32)}, {true});
      v.push_back(tr);
      for (DType t : {DType::Float32, DType::Float64}) {
        KernelCase sp = make(op, {}, t, at, mode + " special values");
        sp.make_inputs = [t] { return std::vector<Tensor>{specials(t)}; };
        v.push_back(sp);
      }
    }
  }
  for (const Shape& s : kShapes)
    v.push_back(make("LogicalNot", {spec("", s, DType::Bool)}, DType::Bool));
  v.push_back(make("LogicalNot", {spec("", kBig, DType::Bool)}, DType::Bool));
  KernelCase c = make("LogicalNot", {}, DType::Bool, {}, "transposed [30, 7]");
  c.make_inputs = transposed({spec("", {30, 7}, DType::Bool)}, {true});
  v.push_back(c);
}

void add_binary(std::vector<KernelCase>& v) {
  auto divisor_safe = [](const std::string& op, InputSpec s) {
    // Integer divisors in [1, 10): the zero-divisor error is tested from Python.
    bool div = op == "FloorDiv" || op == "Mod" || op == "FloorMod";
    if (div && !is_floating(s.dtype)) {
      s.lo = 1;
      s.hi = 10;
    }
    return s;
  };
  for (const char* op : kArith) {
    for (DType t : kNumbers) {
      v.push_back(make(op, {spec(op, {1031}, t), divisor_safe(op, spec(op, {1031}, t))}, t));
    }
    for (const auto& [a, b] : kPairs) {
      v.push_back(
          make(op, {spec(op, a, DType::Float32), spec(op, b, DType::Float32)}, DType::Float32));
      v.push_back(make(op, {spec(op, a, DType::Int32), divisor_safe(op, spec(op, b, DType::Int32))},
                       DType::Int32));
    }
    v.push_back(
        make(op, {spec(op, kBig, DType::Float32), spec(op, kBig, DType::Float32)}, DType::Float32));
    v.push_back(make(op, {spec(op, {600, 500}, DType::Float32), spec(op, {500}, DType::Float32)},
                     DType::Float32));
    v.push_back(make(op, {spec(op, {2, 1}, DType::Float32), spec(op, {1, 150011}, DType::Float32)},
                     DType::Float32, {}, "outer product"));
    KernelCase tr = make(op, {}, DType::Float32, {}, "transposed [45, 33] + [45, 33]");
    tr.make_inputs = transposed(
        {spec(op, {45, 33}, DType::Float32), spec(op, {45, 33}, DType::Float32)}, {true, false});
    v.push_back(tr);
    KernelCase tr2 = make(op, {}, DType::Int64, {}, "transposed [20, 31] both");
    tr2.make_inputs = transposed(
        {spec(op, {20, 31}, DType::Int64), divisor_safe(op, spec(op, {20, 31}, DType::Int64))},
        {true, true});
    v.push_back(tr2);
    // Promotion: int32 with float32, float16 with bfloat16, int8 with uint8.
    v.push_back(make(op, {spec(op, {33}, DType::Int32), spec(op, {33}, DType::Float32)},
                     DType::Float32, {}, "int32 with"));
    v.push_back(make(op, {spec(op, {33}, DType::Float16), spec(op, {33}, DType::BFloat16)},
                     DType::BFloat16, {}, "float16 with"));
    v.push_back(make(op,
                     {spec(op, {33}, DType::Int8), divisor_safe(op, spec(op, {33}, DType::UInt8))},
                     DType::Int16, {}, "int8 with uint8"));
  }
  for (DType t : {DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64}) {
    for (const char* op : {"FloorDiv", "Mod", "FloorMod"}) {
      KernelCase c = make(op, {}, t, {}, "signs and minimum");
      c.make_inputs = int_division_inputs(t);
      v.push_back(c);
    }
  }
  for (const char* op : kBoolArith) {
    v.push_back(make(op, {spec(op, {33}, DType::Bool), spec(op, {33}, DType::Bool)}, DType::Bool));
    v.push_back(make(op, {spec(op, {33}, DType::Bool), spec(op, {33}, DType::Int32)}, DType::Int32,
                     {}, "bool with"));
  }
  // Div: floats only; integers arrive as float32.
  for (DType t : kFloats)
    v.push_back(make("Div", {spec("Div", {1031}, t), spec("Div", {1031}, t)}, t));
  for (const auto& [a, b] : kPairs) {
    v.push_back(make("Div", {spec("Div", a, DType::Float32), spec("Div", b, DType::Float32)},
                     DType::Float32));
  }
  v.push_back(make("Div",
                   {{{33}, DType::Int32, Gen::Int, -9, 10}, {{33}, DType::Int32, Gen::Int, -9, 10}},
                   DType::Int32, {}, "with zeros"));
  v.push_back(make("Div", {spec("Div", kBig, DType::Float32), spec("Div", {}, DType::Float32)},
                   DType::Float32));
  // Pow: positive bases for floats (negative ones with fractional exponents give nan, which
  // both sides agree on, but keep the values meaningful); small non-negative int exponents.
  for (DType t : kNumbers) {
    InputSpec base = is_floating(t) ? InputSpec{{1031}, t, Gen::Positive}
                                    : InputSpec{{1031}, t, Gen::Int, t == DType::UInt8 ? 0 : -5, 6};
    InputSpec ex =
        is_floating(t) ? InputSpec{{1031}, t, Gen::Normal} : InputSpec{{1031}, t, Gen::Int, 0, 6};
    v.push_back(make("Pow", {base, ex}, t));
  }
  v.push_back(make("Pow",
                   {{{3, 1}, DType::Float32, Gen::Normal}, {{1, 4}, DType::Int32, Gen::Int, 0, 4}},
                   DType::Float32, {}, "negative base, integral exponent"));
  v.push_back(make("Pow",
                   {{kBig, DType::Float32, Gen::Positive}, {{}, DType::Float32, Gen::Normal}},
                   DType::Float32));
  v.push_back(make("Pow",
                   {{{4, 5}, DType::Int64, Gen::Int, -3, 4}, {{5}, DType::Int64, Gen::Int, 0, 60}},
                   DType::Int64, {}, "wrapping"));
  for (const char* op : kCompare) {
    for (DType t : kAll) v.push_back(make(op, {spec(op, {1031}, t), spec(op, {1031}, t)}, t));
    for (const auto& [a, b] : kPairs) {
      v.push_back(
          make(op, {spec(op, a, DType::Float32), spec(op, b, DType::Float32)}, DType::Float32));
    }
    v.push_back(make(op, {{kBig, DType::Int32, Gen::Int, 0, 3}, {{}, DType::Int32, Gen::Int, 1, 2}},
                     DType::Int32));
    v.push_back(make(op, {spec(op, {33}, DType::Int64), spec(op, {33}, DType::Float64)},
                     DType::Int64, {}, "int64 with"));
    KernelCase sp = make(op, {}, DType::Float32, {}, "special values");
    sp.make_inputs = [] {
      Tensor s = specials(DType::Float32);
      return std::vector<Tensor>{s, s.slice(0, s.dim(0) - 1, -1, -1)};  // reversed: strided
    };
    v.push_back(sp);
  }
  for (const char* op : {"Maximum", "Minimum"}) {
    KernelCase sp = make(op, {}, DType::Float32, {}, "special values");
    sp.make_inputs = [] {
      Tensor s = specials(DType::Float32);
      return std::vector<Tensor>{s, s.slice(0, s.dim(0) - 1, -1, -1)};
    };
    v.push_back(sp);
  }
  // Bitwise ops: bool and every integer width, broadcasting, big, strided, full-range int64.
  const DType kBitTypes[] = {DType::Bool,  DType::Int8,  DType::UInt8,
                             DType::Int16, DType::Int32, DType::Int64};
  for (const char* op : {"BitwiseAnd", "BitwiseOr", "BitwiseXor"}) {
    for (DType t : kBitTypes) {
      for (const auto& [a, b] : kPairs) v.push_back(make(op, {spec(op, a, t), spec(op, b, t)}, t));
    }
    v.push_back(
        make(op, {spec(op, kBig, DType::Int32), spec(op, kBig, DType::Int32)}, DType::Int32));
    v.push_back(make(op,
                     {{{1031},
                       DType::Int64,
                       Gen::Int,
                       std::numeric_limits<int64_t>::min() / 2,
                       std::numeric_limits<int64_t>::max() / 2},
                      {{1031}, DType::Int64, Gen::Int, -(int64_t{1} << 40), int64_t{1} << 40}},
                     DType::Int64, {}, "wide"));
    KernelCase tr = make(op, {}, DType::Int16, {}, "transposed");
    tr.make_inputs = transposed({spec(op, {30, 7}, DType::Int16), spec(op, {30, 7}, DType::Int16)},
                                {true, false});
    v.push_back(tr);
  }
  for (const char* op : {"LogicalAnd", "LogicalOr"}) {
    for (const auto& [a, b] : kPairs)
      v.push_back(make(op, {spec(op, a, DType::Bool), spec(op, b, DType::Bool)}, DType::Bool));
    v.push_back(make(op, {spec(op, kBig, DType::Bool), spec(op, kBig, DType::Bool)}, DType::Bool));
    KernelCase tr = make(op, {}, DType::Bool, {}, "transposed");
    tr.make_inputs =
        transposed({spec(op, {30, 7}, DType::Bool), spec(op, {30, 7}, DType::Bool)}, {true, false});
    v.push_back(tr);
  }
}

void add_misc(std::vector<KernelCase>& v) {
  // Select: every dtype (one per element width at least), broadcasting of all three.
  for (DType t : kAll) {
    v.push_back(make("Select",
                     {spec("", {1031}, DType::Bool), spec("", {1031}, t), spec("", {1031}, t)}, t));
  }
  const Shape sel[][3] = {{{4, 1, 5}, {3, 1}, {5}}, {{}, {7}, {}},      {{7}, {}, {7}},
                          {{2, 1}, {1, 6}, {2, 6}}, {{0, 3}, {3}, {1}}, {{}, {}, {}}};
  for (const auto& s : sel) {
    v.push_back(make("Select",
                     {spec("", s[0], DType::Bool), spec("", s[1], DType::Float32),
                      spec("", s[2], DType::Float32)},
                     DType::Float32));
  }
  v.push_back(make(
      "Select",
      {spec("", kBig, DType::Bool), spec("", kBig, DType::Float32), spec("", kBig, DType::Float32)},
      DType::Float32));
  v.push_back(make("Select",
                   {spec("", {600, 1}, DType::Bool), spec("", {600, 500}, DType::Float64),
                    spec("", {500}, DType::Float64)},
                   DType::Float64));
  v.push_back(make(
      "Select",
      {spec("", {33}, DType::Bool), spec("", {33}, DType::Int32), spec("", {33}, DType::Float16)},
      DType::Float16, {}, "int32 with"));
  KernelCase tr = make("Select", {}, DType::Int16, {}, "transposed");
  tr.make_inputs = transposed({spec("", {9, 13}, DType::Bool), spec("", {9, 13}, DType::Int16),
                               spec("", {9, 13}, DType::Int16)},
                              {true, true, false});
  v.push_back(tr);

  // Cast: every pair of dtypes, from values that exercise truncation and saturation.
  for (DType from : kAll) {
    for (DType to : kAll) {
      InputSpec s = spec("", {257}, from);
      if (is_floating(from)) s = {{257}, from, Gen::Normal};
      KernelCase c = make("Cast", {s}, from, A({{"dtype", to}}),
                          std::string("to ") + std::string(dtype_name(to)));
      if (is_floating(from)) {
        c.make_inputs = [from] {
          Tensor x = make_input({{257}, DType::Float64, Gen::Normal}, 99);
          for (int64_t i = 0; i < 257; ++i) x.data<double>()[i] *= (i % 3 == 0) ? 300.0 : 3.0;
          return std::vector<Tensor>{x.cast(from)};
        };
      }
      set_tol(c, to);
      v.push_back(c);
    }
  }
  // Special values (nan, +-inf, values past every integer range) from every float dtype.
  for (DType from : {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}) {
    for (DType to : {DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64,
                     DType::Bool, DType::Float16}) {
      KernelCase c = make("Cast", {}, from, A({{"dtype", to}}),
                          std::string("special values of ") + std::string(dtype_name(from)) +
                              " to " + std::string(dtype_name(to)));
      c.make_inputs = [from] { return std::vector<Tensor>{specials(from)}; };
      v.push_back(c);
    }
  }
  v.push_back(make("Cast", {spec("", kBig, DType::Float32)}, DType::Float32,
                   A({{"dtype", DType::Float16}}), "to Float16"));
  v.push_back(make("Cast", {spec("", {0, 4}, DType::Float32)}, DType::Float32,
                   A({{"dtype", DType::Int32}})));
  KernelCase ct = make("Cast", {}, DType::Float64, A({{"dtype", DType::Int16}}), "transposed");
  ct.make_inputs = transposed({spec("", {17, 23}, DType::Float64)}, {true});
  v.push_back(ct);

  // ZerosLike / OnesLike: every dtype, strided input, big.
  for (const char* op : {"ZerosLike", "OnesLike"}) {
    for (DType t : kAll) v.push_back(make(op, {spec("", {33}, t)}, t));
    v.push_back(make(op, {spec("", {}, DType::Float32)}, DType::Float32));
    v.push_back(make(op, {spec("", {0, 5}, DType::Int64)}, DType::Int64));
    v.push_back(make(op, {spec("", kBig, DType::Float32)}, DType::Float32));
    KernelCase tr = make(op, {}, DType::Int8, {}, "transposed");
    tr.make_inputs = transposed({spec("", {6, 11}, DType::Int8)}, {true});
    v.push_back(tr);
  }
  // Fill: every dtype, values that truncate, saturate and are nan.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (DType t : kAll) {
    for (double value : {2.75, -3.5, 0.0, 1e10, nan}) {
      v.push_back(make("Fill", {}, t, A({{"dtype", t}, {"shape", ints({3, 5})}, {"value", value}}),
                       "value " + std::to_string(value)));
    }
  }
  v.push_back(make("Fill", {}, DType::Float32,
                   A({{"dtype", DType::Float32}, {"shape", ints({})}, {"value", 1.5}}), "0-d"));
  v.push_back(make("Fill", {}, DType::Float32,
                   A({{"dtype", DType::Float32}, {"shape", ints({0, 3})}, {"value", 1.5}}),
                   "empty"));
  v.push_back(make("Fill", {}, DType::Float32,
                   A({{"dtype", DType::Float32}, {"shape", ints({300, 1001})}, {"value", -0.25}}),
                   "big"));
}

// complex64/complex128: the ops with complex kernels, the complex-number ops (also on real
// inputs), casts both ways and fills; shapes from 0-d to big, broadcasting, strided.
void add_complex(std::vector<KernelCase>& v) {
  const DType kComplex[] = {DType::Complex64, DType::Complex128};
  auto tol = [](KernelCase c, DType t) {
    if (t == DType::Complex64) {
      c.rtol = 2e-5;
      c.atol = 1e-5;
    } else {
      c.rtol = 1e-12;
      c.atol = 1e-12;
    }
    return c;
  };
  for (const char* op : {"Neg",        "Abs",  "Sign", "Square", "Exp",   "Log",       "Sqrt",
                         "Reciprocal", "Sin",  "Cos",  "Tan",    "Atan",  "Sinh",      "Cosh",
                         "Tanh",       "Real", "Imag", "Conj",   "Angle", "ComplexAbs"}) {
    for (DType t : kComplex) {
      for (const Shape& s : kShapes) v.push_back(tol(make(op, {{s, t, Gen::Normal}}, t), t));
      v.push_back(tol(make(op, {{kBig, t, Gen::Normal}}, t), t));
      KernelCase tr = tol(make(op, {}, t, {}, "transposed [40, 9]"), t);
      tr.make_inputs = transposed({{{40, 9}, t, Gen::Normal}}, {true});
      v.push_back(tr);
    }
  }
  for (const char* op : {"Real", "Imag", "Conj", "Angle", "ComplexAbs"}) {  // real inputs
    for (DType t : {DType::Float32, DType::Float64, DType::Float16, DType::Int32}) {
      InputSpec in = is_floating(t) ? InputSpec{{1031}, t, Gen::Normal}
                                    : InputSpec{{1031}, t, Gen::Int, -9, 10};
      KernelCase c = make(op, {in}, t);
      set_tol(c, t);
      v.push_back(c);
    }
    KernelCase sp = make(op, {}, DType::Float64, {}, "special values");
    sp.make_inputs = [] { return std::vector<Tensor>{specials(DType::Float64)}; };
    v.push_back(sp);
  }
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Equal", "NotEqual"}) {
    for (DType t : kComplex) {
      for (const auto& [a, b] : kPairs)
        v.push_back(tol(make(op, {{a, t, Gen::Normal}, {b, t, Gen::Normal}}, t), t));
      v.push_back(tol(make(op, {{kBig, t, Gen::Normal}, {kBig, t, Gen::Normal}}, t), t));
      KernelCase tr = tol(make(op, {}, t, {}, "transposed [45, 33] + [45, 33]"), t);
      tr.make_inputs =
          transposed({{{45, 33}, t, Gen::Normal}, {{45, 33}, t, Gen::Normal}}, {true, false});
      v.push_back(tr);
    }
    // Promotion: float32 with complex64, float64 with complex64 (complex128 out).
    v.push_back(tol(make(op, {{{33}, DType::Float32, Gen::Normal}, {{33}, DType::Complex64}},
                         DType::Complex64, {}, "float32 with"),
                    DType::Complex64));
    v.push_back(tol(make(op, {{{33}, DType::Float64, Gen::Normal}, {{33}, DType::Complex64}},
                         DType::Complex128, {}, "float64 with"),
                    DType::Complex128));
  }
  for (DType t : kComplex) {  // equal elements, so Equal sees true as well as false
    for (const char* op : {"Equal", "NotEqual"}) {
      KernelCase c = make(op, {}, t, {}, "equal halves");
      c.make_inputs = [t] {
        Tensor a = make_input({{64}, t, Gen::Int, -2, 2}, 7);
        Tensor b = make_input({{64}, t, Gen::Int, -2, 2}, 8);
        return std::vector<Tensor>{a, b};
      };
      v.push_back(c);
    }
    // 0 ** y: 1 for y = 0, 0 for Re(y) > 0.
    KernelCase pz = tol(make("Pow", {}, t, {}, "zero base"), t);
    pz.make_inputs = [t] {
      Tensor base = Tensor::zeros({16}, t);
      Tensor ex = make_input({{16}, t, Gen::Positive}, 3);
      ex.slice(0, 0, 1, 1).fill(Scalar::from_int(0));
      return std::vector<Tensor>{base, ex};
    };
    v.push_back(pz);
  }
  for (DType p : {DType::Float32, DType::Float64}) {  // Complex(real, imag)
    for (const auto& [a, b] : kPairs) {
      KernelCase c = make("Complex", {{a, p, Gen::Normal}, {b, p, Gen::Normal}}, p);
      v.push_back(c);
    }
  }
  // Cast: complex to and from every dtype (real part; imaginary part 0).
  for (DType c : kComplex) {
    for (DType t : kAll) {
      KernelCase from = make("Cast", {{{97}, c, Gen::Normal}}, c, A({{"dtype", t}}));
      if (t == DType::Float16 || t == DType::BFloat16) set_tol(from, t);
      v.push_back(from);
      InputSpec in = spec("", {97}, t);
      KernelCase to = make("Cast", {in}, t, A({{"dtype", c}}));
      set_tol(to, t);
      v.push_back(to);
    }
    for (DType c2 : kComplex)
      v.push_back(make("Cast", {{{97}, c, Gen::Normal}}, c, A({{"dtype", c2}})));
    for (const char* op : {"ZerosLike", "OnesLike"})
      v.push_back(make(op, {{{33}, c, Gen::Normal}}, c));
    for (const auto& [a, b] : kPairs)  // Select moves complex elements whole
      v.push_back(make("Select", {{a, DType::Bool, Gen::Bool}, {a, c}, {b, c}}, c));
    v.push_back(
        make("Fill", {}, c, A({{"dtype", c}, {"shape", ints({2, 3})}, {"value", AttrValue(2.5)}})));
  }
}

}  // namespace

std::vector<KernelCase> elementwise_cases() {
  std::vector<KernelCase> v;
  add_unary(v);
  add_binary(v);
  add_misc(v);
  add_complex(v);
  return v;
}

}  // namespace mycel::test
