#include "parallel/redistribution.h"

#include <algorithm>
#include <sstream>

#include "base/error.h"

namespace mycel::parallel {

namespace {

bool ends_with(const Axes& v, const Axes& tail) {
  return tail.size() <= v.size() && std::equal(tail.begin(), tail.end(), v.end() - tail.size());
}

// A move's `what` for its errors: "AllGather(dim 1, axes (mp)) on shape [4,8] map ...".
std::string what(const TensorLayout& l, const Move& m) {
  return m.to_string(l.mesh()) + " on " + l.to_string();
}

void check_dim(const TensorLayout& l, const Move& m, int d) {
  MC_CHECK(d >= 0 && d < l.ndim(), Value, "Redistribution: ", what(l, m), ": dimension ", d,
           " is out of range");
}

}  // namespace

const char* move_name(MoveKind k) {
  switch (k) {
    case MoveKind::Split:
      return "Split";
    case MoveKind::AllGather:
      return "AllGather";
    case MoveKind::AllToAll:
      return "AllToAll";
    case MoveKind::AllReduce:
      return "AllReduce";
    case MoveKind::ReduceScatter:
      return "ReduceScatter";
    case MoveKind::Partial:
      return "Partial";
  }
  return "?";
}

std::string Move::to_string(const DeviceMesh& mesh) const {
  std::ostringstream os;
  os << move_name(kind) << "(";
  if (dim >= 0) os << "dim " << dim << ", ";
  if (concat_dim >= 0) os << "concat " << concat_dim << ", ";
  os << "axes " << mesh.axes_str(axes) << ")";
  if (bytes > 0) os << " " << static_cast<int64_t>(bytes) << " B";
  return os.str();
}

TensorLayout apply_move(const TensorLayout& l, const Move& m) {
  const DeviceMesh& mesh = l.mesh();
  mesh.check_axes(m.axes, "Redistribution: " + what(l, m));
  MC_CHECK(!m.axes.empty(), Value, "Redistribution: ", what(l, m), " names no mesh axis");
  TensorMap map = l.map();
  Axes partial = l.partial();
  auto all = [&](auto pred) { return std::all_of(m.axes.begin(), m.axes.end(), pred); };
  auto is_free = [&](int a) { return l.dim_of(a) < 0 && !l.is_partial(a); };
  auto is_partial = [&](int a) { return l.is_partial(a); };
  auto drop_partial = [&] {
    for (int a : m.axes) partial.erase(std::find(partial.begin(), partial.end(), a));
  };
  auto append = [&](int d) {
    Axes& to = map[static_cast<size_t>(d)];
    to.insert(to.end(), m.axes.begin(), m.axes.end());
  };
  auto cut_tail = [&](int d) {
    Axes& from = map[static_cast<size_t>(d)];
    MC_CHECK(ends_with(from, m.axes), Value, "Redistribution: ", what(l, m),
             ": the axes must be the last ones splitting dimension ", d);
    from.resize(from.size() - m.axes.size());
  };
  switch (m.kind) {
    case MoveKind::Split:
    case MoveKind::Partial:
      MC_CHECK(all(is_free), Value, "Redistribution: ", what(l, m),
               ": the axes must neither split a dimension nor be partial");
      if (m.kind == MoveKind::Split) {
        check_dim(l, m, m.dim);
        append(m.dim);
      } else {
        partial.insert(partial.end(), m.axes.begin(), m.axes.end());
      }
      break;
    case MoveKind::AllGather:
      check_dim(l, m, m.dim);
      cut_tail(m.dim);
      break;
    case MoveKind::AllToAll:
      check_dim(l, m, m.dim);
      check_dim(l, m, m.concat_dim);
      MC_CHECK(m.dim != m.concat_dim, Value, "Redistribution: ", what(l, m),
               ": the dimension cut and the one joined must differ");
      cut_tail(m.concat_dim);
      append(m.dim);
      break;
    case MoveKind::AllReduce:
    case MoveKind::ReduceScatter:
      MC_CHECK(all(is_partial), Value, "Redistribution: ", what(l, m),
               ": the axes must be partial");
      drop_partial();
      if (m.kind == MoveKind::ReduceScatter) {
        check_dim(l, m, m.dim);
        append(m.dim);
      }
      break;
  }
  return TensorLayout(mesh, l.shape(), std::move(map), std::move(partial));
}

double move_bytes(const TensorLayout& l, const Move& m, int64_t elem_bytes) {
  double s = static_cast<double>(l.slice_numel()) * static_cast<double>(elem_bytes);
  double g = static_cast<double>(l.mesh().group_size(m.axes));
  switch (m.kind) {
    case MoveKind::Split:
    case MoveKind::Partial:
      return 0;
    case MoveKind::AllGather:
      return (g - 1) * s;
    case MoveKind::AllToAll:
    case MoveKind::ReduceScatter:
      return (g - 1) / g * s;
    case MoveKind::AllReduce:
      return 2 * (g - 1) / g * s;
  }
  return 0;
}

double plan_bytes(const std::vector<Move>& plan) {
  double b = 0;
  for (const Move& m : plan) b += m.bytes;
  return b;
}

namespace {

// The greedy planner of plan_redistribution (redistribution.h): the current layout, moved
// one step at a time towards `to`.
class Planner {
 public:
  // reduce_early: AllReduce every partial axis that no ReduceScatter can take yet, before
  // any AllGather, instead of waiting until the dimension it splits in `to` is ready.
  Planner(const TensorLayout& from, const TensorLayout& to, int64_t elem_bytes, bool reduce_early)
      : to_(to), cur_(from), elem_bytes_(elem_bytes), reduce_early_(reduce_early) {}

  std::vector<Move> run() {
    const size_t bound = 2 * static_cast<size_t>(to_.mesh().ndim());
    while (!(cur_ == to_)) {
      bool moved = split() || reduce_scatter() || all_to_all() || all_reduce() || all_gather() ||
                   make_partial();
      MC_ASSERT(moved, "redistribution found no move from ", cur_.to_string(), " to ",
                to_.to_string());
      MC_ASSERT(plan_.size() <= bound, "redistribution plan longer than ", bound, " moves to ",
                to_.to_string());
    }
    return std::move(plan_);
  }

 private:
  void emit(Move m) {
    m.bytes = move_bytes(cur_, m, elem_bytes_);
    cur_ = apply_move(cur_, m);
    plan_.push_back(std::move(m));
  }
  const Axes& cur(int d) const { return cur_.map()[static_cast<size_t>(d)]; }
  const Axes& want(int d) const { return to_.map()[static_cast<size_t>(d)]; }
  // Dimension d may take new axes: its map is a prefix of its map in `to`.
  bool ready(int d) const {
    return cur(d).size() <= want(d).size() &&
           std::equal(cur(d).begin(), cur(d).end(), want(d).begin());
  }
  // The axes a ready dimension still needs, in order.
  Axes needs(int d) const {
    return Axes(want(d).begin() + static_cast<std::ptrdiff_t>(cur(d).size()), want(d).end());
  }
  // The axes past the longest common prefix of a dimension's map and its map in `to`.
  Axes excess(int d) const {
    auto [a, b] = std::mismatch(cur(d).begin(), cur(d).end(), want(d).begin(), want(d).end());
    (void)b;
    return Axes(a, cur(d).end());
  }
  bool is_free(int a) const { return cur_.dim_of(a) < 0 && !cur_.is_partial(a); }

  // Moves `kind` for the longest prefix of a ready dimension's needs whose axes satisfy pred.
  template <class Pred>
  bool grow(MoveKind kind, Pred pred) {
    for (int d = 0; d < cur_.ndim(); ++d) {
      if (!ready(d)) continue;
      Axes n = needs(d);
      auto end = std::find_if_not(n.begin(), n.end(), pred);
      if (end == n.begin()) continue;
      emit(Move{kind, Axes(n.begin(), end), d});
      return true;
    }
    return false;
  }
  bool split() {
    return grow(MoveKind::Split, [&](int a) { return is_free(a); });
  }
  bool reduce_scatter() {
    return grow(MoveKind::ReduceScatter, [&](int a) { return cur_.is_partial(a); });
  }
  // The longest end of a dimension's excess that begins a ready dimension's needs.
  bool all_to_all() {
    for (int i = 0; i < cur_.ndim(); ++i) {
      if (ready(i)) continue;
      Axes e = excess(i);
      for (int j = 0; j < cur_.ndim(); ++j) {
        if (j == i || !ready(j)) continue;
        Axes n = needs(j);
        for (size_t len = std::min(e.size(), n.size()); len > 0; --len) {
          Axes tail(e.end() - static_cast<std::ptrdiff_t>(len), e.end());
          if (!std::equal(tail.begin(), tail.end(), n.begin())) continue;
          emit(Move{MoveKind::AllToAll, tail, j, i});
          return true;
        }
      }
    }
    return false;
  }
  bool all_reduce() {
    Axes axes;
    for (int a : cur_.partial()) {
      if (!to_.is_partial(a) && (reduce_early_ || to_.dim_of(a) < 0)) axes.push_back(a);
    }
    if (axes.empty()) return false;
    emit(Move{MoveKind::AllReduce, axes});
    return true;
  }
  bool all_gather() {
    for (int i = 0; i < cur_.ndim(); ++i) {
      if (ready(i)) continue;
      Axes e = excess(i);
      auto unused = [&](int a) { return to_.dim_of(a) < 0 || to_.dim_of(a) == i; };
      auto first = std::find_if_not(e.rbegin(), e.rend(), unused).base();
      if (first == e.end()) --first;
      emit(Move{MoveKind::AllGather, Axes(first, e.end()), i});
      return true;
    }
    return false;
  }
  bool make_partial() {
    Axes axes;
    for (int a : to_.partial()) {
      if (!cur_.is_partial(a)) axes.push_back(a);
    }
    if (axes.empty()) return false;
    emit(Move{MoveKind::Partial, axes});
    return true;
  }

  const TensorLayout& to_;
  TensorLayout cur_;
  int64_t elem_bytes_;
  bool reduce_early_;
  std::vector<Move> plan_;
};

}  // namespace

std::vector<Move> plan_redistribution(const TensorLayout& from, const TensorLayout& to,
                                      int64_t elem_bytes) {
  MC_CHECK(from.mesh() == to.mesh(), Value,
           "Redistribution: the layouts are on different "
           "meshes: ",
           from.mesh().to_string(), " and ", to.mesh().to_string());
  MC_CHECK(from.shape() == to.shape(), Value,
           "Redistribution: the layouts are of different "
           "tensors: ",
           from.to_string(), " and ", to.to_string());
  MC_CHECK(elem_bytes > 0, Value, "Redistribution: element size ", elem_bytes, " must be positive");
  std::vector<Move> late = Planner(from, to, elem_bytes, false).run();
  if (from.partial().empty()) return late;
  std::vector<Move> early = Planner(from, to, elem_bytes, true).run();
  return plan_bytes(early) < plan_bytes(late) ? early : late;
}

}  // namespace mycel::parallel
