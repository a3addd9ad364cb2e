#include "comm/communicator.h"

#include <sstream>

namespace mycel {

std::string_view reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "sum";
    case ReduceOp::Max:
      return "max";
    case ReduceOp::Min:
      return "min";
    case ReduceOp::Prod:
      return "prod";
  }
  return "?";
}

std::optional<ReduceOp> reduce_op_from_name(std::string_view name) {
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod})
    if (reduce_op_name(op) == name) return op;
  return std::nullopt;
}

namespace {
template <class T, class F>
void combine(void* out, const void* a, const void* b, size_t n, F f) {
  using C = compute_t<T>;
  T* o = static_cast<T*>(out);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i)
    o[i] = static_cast<T>(f(static_cast<C>(x[i]), static_cast<C>(y[i])));
}

// The type sums and products are taken in: integers in the unsigned type of their width, so
// they wrap as the dtype does; floats as they are.
template <class C, bool = std::is_integral_v<C>>
struct wrapping {
  using type = C;
};
template <class C>
struct wrapping<C, true> {
  using type = std::make_unsigned_t<C>;
};
}  // namespace

void reduce_into(DType t, ReduceOp op, void* out, const void* a, const void* b, size_t n) {
  dispatch_all(t, "reduce", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {  // or / and, whatever the bytes of a true are
      const bool any = op == ReduceOp::Sum || op == ReduceOp::Max;
      return combine<T>(out, a, b, n, [any](bool x, bool y) { return any ? x || y : x && y; });
    } else {
      using C = compute_t<T>;
      using W = typename wrapping<C>::type;
      switch (op) {
        case ReduceOp::Sum:
          return combine<T>(out, a, b, n, [](C x, C y) { return C(W(W(x) + W(y))); });
        case ReduceOp::Prod:
          return combine<T>(out, a, b, n, [](C x, C y) { return C(W(W(x) * W(y))); });
        // NaN propagates, as numpy's maximum/minimum.
        case ReduceOp::Max:
          return combine<T>(out, a, b, n, [](C x, C y) { return x != x || x > y ? x : y; });
        case ReduceOp::Min:
          return combine<T>(out, a, b, n, [](C x, C y) { return x != x || x < y ? x : y; });
      }
    }
  });
}

void throw_comm_error(const Communicator& c, std::string_view op, std::string_view what) {
  std::ostringstream s;
  s << op << " on group '" << c.group() << "' (rank " << c.rank() << " of " << c.size() << ", "
    << c.backend() << ", timeout " << c.timeout().count() / 1000.0 << " s) failed: " << what;
  throw Error(ErrorKind::Runtime, s.str());
}

}  // namespace mycel
