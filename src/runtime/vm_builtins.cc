// The executor's builtins on run-time values (ir/builtins.def), with Python's semantics:
// int/float/bool arithmetic (bools count as ints, any float makes the result a float; floor
// division and modulo take the divisor's sign; true division always gives a float), truth,
// comparisons, containers and indexing, scalar<->tensor conversions, print, py_execute and
// raise. Also format_value, print's Python-style formatting. Each builtin is the function its
// line of ir/builtins.def names in the `vm` column (vm_arith, vm_getitem, ...); run_builtin
// dispatches through the array made from those lines.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "base/error.h"
#include "base/pymath.h"
#include "runtime/vm_code.h"

namespace mycel::vm {

using ir::Builtin;
using ir::Value;
using ir::ValueKind;

namespace {

// ---------------------------------------------------------------- formatting

std::string float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // The shortest digits that round-trip (as Python's repr), laid out by Python's rule:
  // positional when the exponent is in [-4, 16), else scientific with two exponent digits.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  size_t epos = s.find('e');
  std::string mant = s.substr(0, epos);
  int exp = std::stoi(s.substr(epos + 1));
  std::string out;
  if (!mant.empty() && mant[0] == '-') {
    out = "-";
    mant.erase(0, 1);
  }
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  if (exp >= -4 && exp < 16) {
    int point = exp + 1;
    if (point <= 0) {
      out.append("0.").append(static_cast<size_t>(-point), '0').append(digits);
    } else if (static_cast<size_t>(point) >= digits.size()) {
      out += digits + std::string(static_cast<size_t>(point) - digits.size(), '0') + ".0";
    } else {
      out += digits.substr(0, static_cast<size_t>(point)) + "." +
             digits.substr(static_cast<size_t>(point));
    }
  } else {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    int a = exp < 0 ? -exp : exp;
    out += std::string("e") + (exp < 0 ? "-" : "+") + (a < 10 ? "0" : "") + std::to_string(a);
  }
  return out;
}

std::string str_repr(const std::string& s) {
  char q = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
  std::string out(1, q);
  for (char c : s) {
    if (c == q || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += c;
    }
  }
  return out + q;
}

const char* op_symbol(Builtin b) { return ir::builtin_def(b).symbol; }

const char* type_name(const Value& v) { return ir::value_kind_name(v.kind()); }

[[noreturn]] void unsupported(Builtin b, const Value& x, const Value& y) {
  MC_THROW(Type, "unsupported operand type(s) for ", op_symbol(b), ": '", type_name(x), "' and '",
           type_name(y), "'");
}

[[noreturn]] void overflow(const char* what) {
  MC_THROW(Overflow, what, " does not fit in a 64-bit integer (graph-mode ints are int64)");
}

// ---------------------------------------------------------------- numbers

bool is_intlike(const Value& v) { return v.is(ValueKind::Int) || v.is(ValueKind::Bool); }

bool truth(const Value& v) {
  switch (v.kind()) {
    case ValueKind::None:
      return false;
    case ValueKind::Bool:
      return v.as_bool();
    case ValueKind::Int:
      return v.as_int() != 0;
    case ValueKind::Float:
      return v.as_float() != 0.0;
    case ValueKind::Str:
      return !v.as_str().empty();
    case ValueKind::Tuple:
    case ValueKind::List:
      return !v.items().empty();
    case ValueKind::Dict:
      return !v.as_dict().keys.empty();
    case ValueKind::Tensor: {
      const Tensor& t = v.as_tensor();
      MC_CHECK(t.numel() == 1, Value, "The truth value of a Tensor with ", t.numel(),
               " elements is ambiguous (shape ", shape_str(t.shape()),
               "); reduce it first, e.g. with .any() or .all().");
      return t.item().to_double() != 0.0;
    }
    default:
      return true;
  }
}

int64_t int_pow(int64_t base, int64_t e) {
  int64_t result = 1;
  while (e > 0) {
    if (e & 1) {
      if (__builtin_mul_overflow(result, base, &result)) overflow("int ** int");
    }
    e >>= 1;
    if (e > 0 && __builtin_mul_overflow(base, base, &base)) overflow("int ** int");
  }
  return result;
}

double float_pow(double x, double y) {
  MC_CHECK(!(x == 0.0 && y < 0), Runtime,
           "ZeroDivisionError: 0.0 cannot be raised to a negative power");
  MC_CHECK(!(x < 0 && std::isfinite(y) && y != std::floor(y)), Value,
           "a negative number cannot be raised to a fractional power (the result is complex)");
  return std::pow(x, y);
}

Value arith(Builtin b, const Value& x, const Value& y) {
  if (x.is(ValueKind::Str) && y.is(ValueKind::Str) && b == Builtin::Add)
    return Value::string(x.as_str() + y.as_str());
  if (!x.is_scalar() || !y.is_scalar()) unsupported(b, x, y);
  if (b == Builtin::TrueDiv) {
    double d = y.as_float();
    MC_CHECK(d != 0.0, Runtime, "ZeroDivisionError: ",
             is_intlike(x) && is_intlike(y) ? "division by zero" : "float division by zero");
    return Value::real(x.as_float() / d);
  }
  if (is_intlike(x) && is_intlike(y)) {
    int64_t a = x.as_int(), c = y.as_int(), r = 0;
    switch (b) {
      case Builtin::Add:
        if (__builtin_add_overflow(a, c, &r)) overflow("int + int");
        return Value::integer(r);
      case Builtin::Sub:
        if (__builtin_sub_overflow(a, c, &r)) overflow("int - int");
        return Value::integer(r);
      case Builtin::Mul:
        if (__builtin_mul_overflow(a, c, &r)) overflow("int * int");
        return Value::integer(r);
      case Builtin::FloorDiv:
      case Builtin::Mod: {
        MC_CHECK(c != 0, Runtime, "ZeroDivisionError: integer division or modulo by zero");
        if (c == -1) {
          if (b == Builtin::Mod) return Value::integer(0);
          if (a == std::numeric_limits<int64_t>::min()) overflow("int // int");
          return Value::integer(-a);
        }
        int64_t q = a / c, m = a % c;
        if (m != 0 && ((m < 0) != (c < 0))) {
          q -= 1;
          m += c;
        }
        return Value::integer(b == Builtin::FloorDiv ? q : m);
      }
      case Builtin::Pow:
        if (c < 0) return Value::real(float_pow(static_cast<double>(a), static_cast<double>(c)));
        return Value::integer(int_pow(a, c));
      default:
        break;
    }
    unsupported(b, x, y);
  }
  double a = x.as_float(), c = y.as_float();
  switch (b) {
    case Builtin::Add:
      return Value::real(a + c);
    case Builtin::Sub:
      return Value::real(a - c);
    case Builtin::Mul:
      return Value::real(a * c);
    case Builtin::FloorDiv:
    case Builtin::Mod: {
      MC_CHECK(c != 0.0, Runtime, "ZeroDivisionError: ",
               b == Builtin::FloorDiv ? "float floor division by zero" : "float modulo");
      return Value::real(b == Builtin::FloorDiv ? py_floordiv(a, c) : py_mod(a, c));
    }
    case Builtin::Pow:
      return Value::real(float_pow(a, c));
    default:
      break;
  }
  unsupported(b, x, y);
}

Value bitwise(Builtin b, const Value& x, const Value& y) {
  if (!is_intlike(x) || !is_intlike(y)) unsupported(b, x, y);
  int64_t a = x.as_int(), c = y.as_int();
  bool both_bool = x.is(ValueKind::Bool) && y.is(ValueKind::Bool);
  switch (b) {
    case Builtin::BitAnd:
      return both_bool ? Value::boolean(a & c) : Value::integer(a & c);
    case Builtin::BitOr:
      return both_bool ? Value::boolean(a | c) : Value::integer(a | c);
    case Builtin::BitXor:
      return both_bool ? Value::boolean(a ^ c) : Value::integer(a ^ c);
    case Builtin::LShift: {
      MC_CHECK(c >= 0, Value, "negative shift count");
      if (a == 0) return Value::integer(0);
      if (c >= 63) overflow("int << int");
      int64_t r = static_cast<int64_t>(static_cast<uint64_t>(a) << c);
      if ((r >> c) != a) overflow("int << int");
      return Value::integer(r);
    }
    case Builtin::RShift:
      MC_CHECK(c >= 0, Value, "negative shift count");
      return Value::integer(c >= 64 ? (a < 0 ? -1 : 0) : (a >> c));
    default:
      break;
  }
  unsupported(b, x, y);
}

bool equal(const Value& x, const Value& y) {
  if (x.is_scalar() && y.is_scalar()) {
    if (is_intlike(x) && is_intlike(y)) return x.as_int() == y.as_int();
    return x.as_float() == y.as_float();
  }
  if (x.is_sequence() && y.is_sequence()) {
    if (x.kind() != y.kind() || x.items().size() != y.items().size()) return false;
    for (size_t i = 0; i < x.items().size(); ++i)
      if (!equal(x.items()[i], y.items()[i])) return false;
    return true;
  }
  return x == y;
}

Value compare(Builtin b, const Value& x, const Value& y) {
  int c;  // -1, 0, 1
  if (x.is_scalar() && y.is_scalar()) {
    if (is_intlike(x) && is_intlike(y)) {
      int64_t a = x.as_int(), d = y.as_int();
      c = a < d ? -1 : a > d ? 1 : 0;
    } else {
      double a = x.as_float(), d = y.as_float();
      if (std::isnan(a) || std::isnan(d)) return Value::boolean(false);
      c = a < d ? -1 : a > d ? 1 : 0;
    }
  } else if (x.is(ValueKind::Str) && y.is(ValueKind::Str)) {
    int r = x.as_str().compare(y.as_str());
    c = r < 0 ? -1 : r > 0 ? 1 : 0;
  } else {
    MC_THROW(Type, "'", op_symbol(b), "' not supported between instances of '", type_name(x),
             "' and '", type_name(y), "'");
  }
  switch (b) {
    case Builtin::Lt:
      return Value::boolean(c < 0);
    case Builtin::Le:
      return Value::boolean(c <= 0);
    case Builtin::Gt:
      return Value::boolean(c > 0);
    default:
      return Value::boolean(c >= 0);
  }
}

bool contains(const Value& container, const Value& x) {
  if (container.is_sequence()) {
    for (const Value& v : container.items())
      if (equal(v, x)) return true;
    return false;
  }
  if (container.is(ValueKind::Dict)) {
    for (const Value& k : container.as_dict().keys)
      if (equal(k, x)) return true;
    return false;
  }
  if (container.is(ValueKind::Str) && x.is(ValueKind::Str))
    return container.as_str().find(x.as_str()) != std::string::npos;
  MC_THROW(Type, "argument of type '", type_name(container), "' is not iterable");
}

// ---------------------------------------------------------------- containers

int64_t normalize_index(const Value& idx, size_t n, const char* what) {
  MC_CHECK(is_intlike(idx), Type, what, " indices must be integers or slices, not ",
           type_name(idx));
  int64_t i = idx.as_int();
  int64_t len = static_cast<int64_t>(n);
  if (i < 0) i += len;
  MC_CHECK(i >= 0 && i < len, Index, what, " index out of range (index ", idx.as_int(), ", length ",
           len, ")");
  return i;
}

// Python's slice.indices(n) followed by the selection.
std::vector<Value> slice_items(const std::vector<Value>& items, const ir::SliceData& s) {
  int64_t n = static_cast<int64_t>(items.size());
  auto get = [](const Value& v, int64_t dflt) {
    if (v.is_none()) return dflt;
    MC_CHECK(is_intlike(v), Type, "slice indices must be integers or None");
    return v.as_int();
  };
  int64_t step = get(s.step, 1);
  MC_CHECK(step != 0, Value, "slice step cannot be zero");
  auto clamp = [&](const Value& v, int64_t dflt) {
    if (v.is_none()) return dflt;
    int64_t i = get(v, 0);
    if (i < 0) {
      i += n;
      if (i < 0) i = step < 0 ? -1 : 0;
    } else if (i >= n) {
      i = step < 0 ? n - 1 : n;
    }
    return i;
  };
  int64_t start = clamp(s.start, step < 0 ? n - 1 : 0);
  int64_t stop = clamp(s.stop, step < 0 ? -1 : n);
  std::vector<Value> out;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step)
    out.push_back(items[static_cast<size_t>(i)]);
  return out;
}

Value getitem(const Value& c, const Value& idx) {
  if (c.is_sequence()) {
    const char* what = c.is(ValueKind::Tuple) ? "tuple" : "list";
    if (idx.is(ValueKind::Slice)) {
      std::vector<Value> items = slice_items(c.items(), idx.as_slice());
      return c.is(ValueKind::Tuple) ? Value::tuple(std::move(items))
                                    : Value::list(std::move(items));
    }
    return c.items()[static_cast<size_t>(normalize_index(idx, c.items().size(), what))];
  }
  if (c.is(ValueKind::Dict)) {
    const ir::DictData& d = c.as_dict();
    for (size_t i = 0; i < d.keys.size(); ++i)
      if (equal(d.keys[i], idx)) return d.values[i];
    MC_THROW(Index, "KeyError: ", format_value(idx, false));
  }
  if (c.is(ValueKind::Str)) {
    int64_t i = normalize_index(idx, c.as_str().size(), "string");
    return Value::string(std::string(1, c.as_str()[static_cast<size_t>(i)]));
  }
  MC_THROW(Type, "'", type_name(c), "' object is not subscriptable");
}

Value setitem(const Value& c, const Value& idx, const Value& v) {
  if (c.is_sequence()) {
    std::vector<Value> items = c.items();
    items[static_cast<size_t>(
        normalize_index(idx, items.size(), c.is(ValueKind::Tuple) ? "tuple" : "list"))] = v;
    return c.is(ValueKind::Tuple) ? Value::tuple(std::move(items)) : Value::list(std::move(items));
  }
  if (c.is(ValueKind::Dict)) {
    std::vector<Value> keys = c.as_dict().keys, values = c.as_dict().values;
    for (size_t i = 0; i < keys.size(); ++i)
      if (equal(keys[i], idx)) {
        values[i] = v;
        return Value::dict(std::move(keys), std::move(values));
      }
    keys.push_back(idx);
    values.push_back(v);
    return Value::dict(std::move(keys), std::move(values));
  }
  MC_THROW(Type, "'", type_name(c), "' object does not support item assignment");
}

// ---------------------------------------------------------------- conversions

Value cast_scalar(const Value& x, const std::string& to) {
  if (to == "bool") return Value::boolean(truth(x));
  if (to == "float") {
    if (x.is_scalar()) return Value::real(x.as_float());
    if (x.is(ValueKind::Str)) {
      std::string s = x.as_str();
      size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
      double d = 0;
      if (b != std::string::npos) {
        auto r = std::from_chars(s.data() + b, s.data() + e + 1, d);
        if (r.ec == std::errc() && r.ptr == s.data() + e + 1) return Value::real(d);
      }
      MC_THROW(Value, "could not convert string to float: ", str_repr(s));
    }
  } else if (to == "int") {
    if (is_intlike(x)) return Value::integer(x.as_int());
    if (x.is(ValueKind::Float)) {
      double d = x.as_float();
      MC_CHECK(!std::isnan(d), Value, "cannot convert float NaN to integer");
      MC_CHECK(!std::isinf(d), Overflow, "cannot convert float infinity to integer");
      double t = std::trunc(d);
      if (!(t >= -9223372036854775808.0 && t < 9223372036854775808.0)) overflow("int(float)");
      return Value::integer(static_cast<int64_t>(t));
    }
    if (x.is(ValueKind::Str)) {
      const std::string& s = x.as_str();
      size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
      int64_t i = 0;
      if (b != std::string::npos) {
        const char* p = s.data() + b;
        if (*p == '+' && e > b) ++p;
        auto r = std::from_chars(p, s.data() + e + 1, i);
        if (r.ec == std::errc() && r.ptr == s.data() + e + 1) return Value::integer(i);
      }
      MC_THROW(Value, "invalid literal for int() with base 10: ", str_repr(s));
    }
  } else {
    MC_THROW(Internal, "cast_scalar to '", to, "'");
  }
  MC_THROW(Type, to, "() argument must be a string or a number, not '", type_name(x), "'");
}

Value scalar_to_tensor(const Value& x, const Value& dt) {
  MC_CHECK(dt.is(ValueKind::DType), Type, "scalar_to_tensor: the dtype argument is a ",
           type_name(dt));
  Scalar s;
  if (x.is(ValueKind::Bool)) {
    s = Scalar::from_bool(x.as_bool());
  } else if (x.is(ValueKind::Int)) {
    s = Scalar::from_int(x.as_int());
  } else if (x.is(ValueKind::Float)) {
    s = Scalar::from_float(x.as_float());
  } else {
    MC_THROW(Type, "cannot convert a ", type_name(x), " to a tensor");
  }
  return Value::tensor(Tensor::scalar(s, dt.as_dtype()));
}

Value tensor_to_scalar(const Value& x) {
  MC_CHECK(x.is(ValueKind::Tensor), Type, "tensor_to_scalar of a ", type_name(x));
  Scalar s = x.as_tensor().item();
  switch (s.kind) {
    case ScalarKind::Bool:
      return Value::boolean(s.i != 0);
    case ScalarKind::Int:
      return Value::integer(s.i);
    case ScalarKind::Float:
      return Value::real(s.f);
  }
  return Value();
}

[[noreturn]] void raise(std::span<const Value> args) {
  std::string name = args.empty() ? "" : ir::exception_name(args[0]);
  std::string msg;
  for (size_t i = 1; i < args.size(); ++i) {
    std::string part = format_value(args[i]);
    // Parts join with spaces, but the source location (a part starting a line) follows.
    if (i > 1 && !part.empty() && part[0] != '\n') msg += ' ';
    msg += part;
  }
  ErrorKind kind = ErrorKind::Runtime;
  if (name == "ValueError") {
    kind = ErrorKind::Value;
  } else if (name == "TypeError") {
    kind = ErrorKind::Type;
  } else if (name == "IndexError") {
    kind = ErrorKind::Index;
  } else if (name != "RuntimeError" && !name.empty()) {
    msg = msg.empty() ? name : name + ": " + msg;
  }
  throw_error(kind, msg);
}

void check_nargs(Builtin b, size_t n, size_t want) {
  MC_CHECK(n == want, Type, ir::builtin_name(b), " expects ", want, " arguments, got ", n);
}

}  // namespace

std::string format_value(const Value& v, bool top) {
  switch (v.kind()) {
    case ValueKind::None:
      return "None";
    case ValueKind::Bool:
      return v.as_bool() ? "True" : "False";
    case ValueKind::Int:
      return std::to_string(v.as_int());
    case ValueKind::Float:
      return float_repr(v.as_float());
    case ValueKind::Str:
      return top ? v.as_str() : str_repr(v.as_str());
    case ValueKind::Tensor:
      return top ? v.as_tensor().to_string() : v.as_tensor().repr();
    case ValueKind::DType:
      return str(v.as_dtype());
    case ValueKind::Ellipsis:
      return "Ellipsis";
    case ValueKind::Tuple:
    case ValueKind::List: {
      bool tup = v.is(ValueKind::Tuple);
      std::string s(1, tup ? '(' : '[');
      for (size_t i = 0; i < v.items().size(); ++i)
        s.append(i ? ", " : "").append(format_value(v.items()[i], false));
      if (tup && v.items().size() == 1) s += ',';
      return s + (tup ? ')' : ']');
    }
    case ValueKind::Dict: {
      std::string s = "{";
      for (size_t i = 0; i < v.as_dict().keys.size(); ++i)
        s.append(i ? ", " : "").append(format_value(v.as_dict().keys[i], false)).append(": ") +=
            format_value(v.as_dict().values[i], false);
      return s + "}";
    }
    case ValueKind::Slice:
      return "slice(" + format_value(v.as_slice().start, false) + ", " +
             format_value(v.as_slice().stop, false) + ", " +
             format_value(v.as_slice().step, false) + ")";
    case ValueKind::Graph:
      return "<function " + v.as_graph()->name() + ">";
    case ValueKind::PyObj:
      return v.as_host()->repr();
    default:
      return v.to_string();
  }
}

namespace {
// The sum of two cotangents whose structure is known only at run time (cot_add).
Value cot_add(const Value& x, const Value& y) {
  if (x.is_none()) return y;
  if (y.is_none()) return x;
  if (x.is(ValueKind::Tensor) && y.is(ValueKind::Tensor))
    return Value::tensor(run_op1(OpId::Add, {x.as_tensor(), y.as_tensor()}));
  MC_CHECK(x.is(ValueKind::Tuple) && y.is(ValueKind::Tuple) && x.items().size() == y.items().size(),
           Internal, "cot_add of a ", type_name(x), " and a ", type_name(y));
  std::vector<Value> r;
  for (size_t i = 0; i < x.items().size(); ++i) r.push_back(cot_add(x.items()[i], y.items()[i]));
  return Value::tuple(std::move(r));
}

// The zero cotangent of a run-time value: zeros for float tensors, tuples of zeros, None
// for the rest (integers, functions: no cotangent, or one known only later).
Value zero_cot_like(const Value& v) {
  if (v.is(ValueKind::Tensor)) {
    const Tensor& t = v.as_tensor();
    if (!is_floating(t.dtype())) return Value();
    return Value::tensor(Tensor::full(t.shape(), Scalar::from_float(0.0), t.dtype()));
  }
  if (v.is(ValueKind::Tuple) || v.is(ValueKind::List)) {
    std::vector<Value> r;
    for (const Value& e : v.items()) r.push_back(zero_cot_like(e));
    return Value::tuple(std::move(r));
  }
  return Value();
}

// ---------------------------------------------------------------- the table

// One function per `vm` column of ir/builtins.def, called with the arguments checked against
// the builtin's arity.
using Args = std::span<const Value>;

#define BUILTIN(name, text, nargs, symbol, vm, fold, ad, flags) \
  Value vm(Builtin b, Args a, RuntimeHost* host);
#include "ir/builtins.def"
#undef BUILTIN

Value vm_arith(Builtin b, Args a, RuntimeHost*) { return arith(b, a[0], a[1]); }
Value vm_bitwise(Builtin b, Args a, RuntimeHost*) { return bitwise(b, a[0], a[1]); }
Value vm_compare(Builtin b, Args a, RuntimeHost*) { return compare(b, a[0], a[1]); }
Value vm_matmul(Builtin b, Args a, RuntimeHost*) { unsupported(b, a[0], a[1]); }
Value vm_eq(Builtin, Args a, RuntimeHost*) { return Value::boolean(equal(a[0], a[1])); }
Value vm_ne(Builtin, Args a, RuntimeHost*) { return Value::boolean(!equal(a[0], a[1])); }

Value vm_is(Builtin b, Args a, RuntimeHost*) {
  bool same = a[0].kind() == a[1].kind() && a[0] == a[1];
  return Value::boolean(b == Builtin::Is ? same : !same);
}

Value vm_in(Builtin b, Args a, RuntimeHost*) {
  return Value::boolean(contains(a[1], a[0]) == (b == Builtin::In));
}

Value vm_neg(Builtin, Args a, RuntimeHost*) {
  if (is_intlike(a[0])) {
    MC_CHECK(a[0].as_int() != std::numeric_limits<int64_t>::min(), Overflow,
             "-int does not fit in a 64-bit integer (graph-mode ints are int64)");
    return Value::integer(-a[0].as_int());
  }
  if (a[0].is(ValueKind::Float)) return Value::real(-a[0].as_float());
  MC_THROW(Type, "bad operand type for unary -: '", type_name(a[0]), "'");
}

Value vm_pos(Builtin, Args a, RuntimeHost*) {
  if (is_intlike(a[0])) return Value::integer(a[0].as_int());
  if (a[0].is(ValueKind::Float)) return a[0];
  MC_THROW(Type, "bad operand type for unary +: '", type_name(a[0]), "'");
}

Value vm_invert(Builtin, Args a, RuntimeHost*) {
  MC_CHECK(is_intlike(a[0]), Type, "bad operand type for unary ~: '", type_name(a[0]), "'");
  return Value::integer(~a[0].as_int());
}

Value vm_not(Builtin, Args a, RuntimeHost*) { return Value::boolean(!truth(a[0])); }
Value vm_truth(Builtin, Args a, RuntimeHost*) { return Value::boolean(truth(a[0])); }
Value vm_make_tuple(Builtin, Args a, RuntimeHost*) { return Value::tuple({a.begin(), a.end()}); }
Value vm_make_list(Builtin, Args a, RuntimeHost*) { return Value::list({a.begin(), a.end()}); }

Value vm_make_dict(Builtin, Args a, RuntimeHost*) {
  MC_CHECK(a.size() % 2 == 0, Type, "make_dict expects key, value pairs");
  std::vector<Value> keys, values;
  for (size_t i = 0; i < a.size(); i += 2) {
    keys.push_back(a[i]);
    values.push_back(a[i + 1]);
  }
  return Value::dict(std::move(keys), std::move(values));
}

Value vm_make_slice(Builtin, Args a, RuntimeHost*) { return Value::slice(a[0], a[1], a[2]); }
Value vm_getitem(Builtin, Args a, RuntimeHost*) { return getitem(a[0], a[1]); }
Value vm_setitem(Builtin, Args a, RuntimeHost*) { return setitem(a[0], a[1], a[2]); }

Value vm_len(Builtin, Args a, RuntimeHost*) {
  if (a[0].is_sequence()) return Value::integer(static_cast<int64_t>(a[0].items().size()));
  if (a[0].is(ValueKind::Dict))
    return Value::integer(static_cast<int64_t>(a[0].as_dict().keys.size()));
  if (a[0].is(ValueKind::Str)) return Value::integer(static_cast<int64_t>(a[0].as_str().size()));
  if (a[0].is(ValueKind::Tensor)) {
    MC_CHECK(a[0].as_tensor().ndim() > 0, Type, "len() of a 0-d tensor");
    return Value::integer(a[0].as_tensor().dim(0));
  }
  MC_THROW(Type, "object of type '", type_name(a[0]), "' has no len()");
}

Value vm_tensor_dim(Builtin, Args a, RuntimeHost*) {
  MC_CHECK(a[0].is(ValueKind::Tensor) && a[1].is(ValueKind::Int), Type,
           "tensor_dim expects a tensor and a constant axis");
  const Tensor& t = a[0].as_tensor();
  int64_t i = a[1].as_int();
  MC_CHECK(i >= 0 && i < static_cast<int64_t>(t.ndim()), Index, "tensor_dim: axis ", i,
           " out of range for a tensor of shape ", t.shape());
  return Value::integer(t.dim(i));
}

Value vm_switch(Builtin, Args a, RuntimeHost*) {
  const Value& c = a[0];
  MC_CHECK(c.is_scalar() || c.is_none(), Type, "switch: the condition is a ", type_name(c),
           ", not a bool");
  return truth(c) ? a[1] : a[2];
}

Value vm_partial(Builtin, Args a, RuntimeHost*) {
  MC_CHECK(!a.empty(), Type, "partial expects a function");
  return Value::closure(a[0], {a.begin() + 1, a.end()});
}

Value vm_raise(Builtin, Args a, RuntimeHost*) { raise(a); }
Value vm_to_tensor(Builtin, Args a, RuntimeHost*) { return scalar_to_tensor(a[0], a[1]); }
Value vm_to_scalar(Builtin, Args a, RuntimeHost*) { return tensor_to_scalar(a[0]); }

Value vm_cast(Builtin, Args a, RuntimeHost*) {
  MC_CHECK(a[1].is(ValueKind::Str), Type, "cast_scalar: the target is a ", type_name(a[1]));
  return cast_scalar(a[0], a[1].as_str());
}

// depend(x, effects...) and stop_gradient(x): x.
Value vm_first(Builtin b, Args a, RuntimeHost*) {
  MC_CHECK(!a.empty(), Type, ir::builtin_name(b), " expects a value");
  return a[0];
}

Value vm_print(Builtin, Args a, RuntimeHost* host) {
  std::string text;
  for (size_t i = 0; i < a.size(); ++i) text.append(i ? " " : "").append(format_value(a[i]));
  text += '\n';
  if (host) {
    host->print(text);
  } else {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
  }
  return Value();
}

Value vm_py_execute(Builtin, Args a, RuntimeHost* host) {
  MC_CHECK(!a.empty(), Type, "py_execute expects a function");
  MC_CHECK(host != nullptr, Runtime,
           "this graph calls back into Python (JIT fallback), but it runs without a host");
  return host->call(a[0], {a.begin() + 1, a.end()});
}

Value vm_cot_add(Builtin, Args a, RuntimeHost*) { return cot_add(a[0], a[1]); }

Value vm_cot_get(Builtin, Args a, RuntimeHost*) {
  if (a[0].is_none()) return a[2];
  MC_CHECK(a[0].is(ValueKind::Tuple), Internal, "cot_get of a ", type_name(a[0]));
  const std::vector<Value>& items = a[0].items();
  // Indices count from the end when negative, as in cot_sparse (a getitem's t[-1]: the
  // bprop of a bprop reads back the element cot_sparse placed).
  int64_t i = a[1].as_int();
  if (i < 0) i += static_cast<int64_t>(items.size());
  MC_CHECK(i >= 0 && static_cast<size_t>(i) < items.size(), Internal, "cot_get index ",
           a[1].as_int(), " of a tuple of ", items.size());
  const Value& e = items[static_cast<size_t>(i)];
  return e.is_none() ? a[2] : e;
}

Value vm_cot_pad(Builtin, Args a, RuntimeHost*) {
  if (a[1].is_none()) return Value();
  MC_CHECK(a[0].is(ValueKind::Tuple) && a[1].is(ValueKind::Tuple) &&
               a[1].items().size() <= a[0].items().size(),
           Internal, "cot_pad of a ", type_name(a[0]), " and a ", type_name(a[1]));
  std::vector<Value> r = a[1].items();
  for (size_t j = r.size(); j < a[0].items().size(); ++j)
    r.push_back(zero_cot_like(a[0].items()[j]));
  return Value::tuple(std::move(r));
}

Value vm_cot_sparse(Builtin, Args a, RuntimeHost*) {
  if (a[0].is_none()) return Value();
  MC_CHECK(a[0].is(ValueKind::Tuple), Internal, "cot_sparse of a ", type_name(a[0]));
  const std::vector<Value>& items = a[0].items();
  int64_t n = static_cast<int64_t>(items.size()), i = a[1].as_int();
  if (i < 0) i += n;
  MC_CHECK(i >= 0 && i < n, Internal, "cot_sparse index");
  std::vector<Value> r;
  for (int64_t j = 0; j < n; ++j)
    r.push_back(j == i ? a[2] : zero_cot_like(items[static_cast<size_t>(j)]));
  return Value::tuple(std::move(r));
}

Value vm_tuple_head(Builtin, Args a, RuntimeHost*) {
  MC_CHECK(a[0].is(ValueKind::Tuple), Internal, "tuple_head of a ", type_name(a[0]));
  const std::vector<Value>& items = a[0].items();
  int64_t n = a[1].as_int();
  MC_CHECK(n >= 0 && static_cast<size_t>(n) <= items.size(), Internal, "tuple_head");
  return Value::tuple({items.begin(), items.end() - n});
}

// A builtin that specialisation or AD removes (getattr, grad, vjp, ...).
Value vm_none(Builtin b, Args, RuntimeHost*) {
  MC_THROW(Internal, "executor: builtin ", ir::builtin_name(b),
           " should have been removed by specialisation");
}

using BuiltinFn = Value (*)(Builtin, Args, RuntimeHost*);
constexpr BuiltinFn kBuiltinFns[] = {
#define BUILTIN(name, text, nargs, symbol, vm, fold, ad, flags) &vm,
#include "ir/builtins.def"
#undef BUILTIN
};

}  // namespace

Value run_builtin(Builtin b, std::span<const Value> a, RuntimeHost* host) {
  int arity = ir::builtin_arity(b);
  if (arity >= 0) check_nargs(b, a.size(), static_cast<size_t>(arity));
  return kBuiltinFns[static_cast<size_t>(b)](b, a, host);
}

}  // namespace mycel::vm
