// Parallel rules of the network ops (rules.h): LayerNorm, Gather, and the softmax losses.
//
//   LayerNorm(x, gamma, beta) -> (y, mean, rstd)   loop dimensions: x's. gamma and beta run
//       along x's dimensions from begin_params_axis; the normalised dimensions (from
//       begin_norm_axis) must be whole. y is laid out as x; mean and rstd (x's shape with
//       the normalised dimensions 1) as x on the leading dimensions.
//   Gather(params, indices; axis)                  loop dimensions: the output's,
//       params.shape[:axis] + indices.shape + params.shape[axis+1:]. params' gathered
//       dimension must be whole (a split vocabulary needs masked lookups, not built yet);
//       batch_dims must be 0.
//   SparseSoftmaxCrossEntropyWithLogits(logits[N,C], labels[N])   loop dimensions N, C;
//       C must be whole. The loss (the mean over N) is partial over the axes that split N,
//       each device's local mean scaled by 1 / (N's splits) (local_scale); with is_grad
//       the output (the gradient of that mean) is laid out as logits, likewise scaled.
//   SoftmaxCrossEntropyWithLogits(logits[N,C], labels[N,C]) -> (loss[N], dlogits[N,C]):
//       the same loop dimensions; the per-sample loss is laid out along N, dlogits as
//       logits.
#include "base/error.h"
#include "parallel/rules.h"

namespace mycel::parallel::rules {

namespace {

constexpr const char* kNormalised = "is normalised (begin_norm_axis)";
constexpr const char* kGathered = "is the gathered axis";
constexpr const char* kClasses = "holds the classes";

int64_t norm_index(const OpCall& call, const char* attr, size_t nd) {
  int64_t a = call.attrs.get_int(attr);
  const auto n = static_cast<int64_t>(nd);
  MC_CHECK(a >= -n && a < n, Value, "For '", op_def(call.op).name, "', the '", attr, "' ", a,
           " is out of range for an input of ", nd, " dimensions", call.where);
  return a < 0 ? a + n : a;
}

// LayerNorm: x's dimensions, whole from begin_norm_axis on; gamma and beta along the tail.
std::vector<std::vector<int>> layer_norm_dims(const OpCall& call) {
  const size_t nd = call.shapes[0].size();
  const int64_t norm = norm_index(call, "begin_norm_axis", nd);
  const int64_t params = norm_index(call, "begin_params_axis", nd);
  std::vector<int> x, p;
  for (size_t d = 0; d < nd; ++d)
    x.push_back(static_cast<int64_t>(d) >= norm ? -1 : static_cast<int>(d));
  for (auto d = static_cast<size_t>(params); d < nd; ++d) p.push_back(x[d]);
  return {x, p, p};
}

// Gather: per input dimension, the output dimension it runs along (params' gathered axis
// whole); and the output shape.
std::vector<std::vector<int>> gather_dims(const OpCall& call, Shape* out) {
  MC_CHECK(call.attrs.get_int("batch_dims") == 0, Value,
           "For 'Gather', semi-automatic parallelism needs batch_dims 0, but got ",
           call.attrs.get_int("batch_dims"), call.where);
  const Shape &p = call.shapes[0], &ix = call.shapes[1];
  const int64_t axis = norm_index(call, "axis", p.size());
  const auto ni = static_cast<int>(ix.size());
  std::vector<int> pd, id;
  Shape shape;
  for (int64_t d = 0; d < static_cast<int64_t>(p.size()); ++d) {
    if (d < axis) pd.push_back(static_cast<int>(d));
    if (d == axis) pd.push_back(-1);
    if (d > axis) pd.push_back(static_cast<int>(d) - 1 + ni);
  }
  for (int j = 0; j < ni; ++j) id.push_back(static_cast<int>(axis) + j);
  if (out) {
    shape.assign(p.begin(), p.begin() + axis);
    shape.insert(shape.end(), ix.begin(), ix.end());
    shape.insert(shape.end(), p.begin() + axis + 1, p.end());
    *out = std::move(shape);
  }
  return {pd, id};
}

// The softmax losses: logits [N, C] along (N, whole C); labels [N] or [N, C] alike.
std::vector<std::vector<int>> softmax_loss_dims(const OpCall& call) {
  const Shape &lg = call.shapes[0], &lb = call.shapes[1];
  MC_CHECK(lg.size() == 2 && (lb.size() == 1 || lb.size() == 2), Value, "For '",
           op_def(call.op).name, "', the input shapes ", shape_str(lg), " and ", shape_str(lb),
           " do not fit the op", call.where);
  std::vector<int> labels{0};
  if (lb.size() == 2) labels.push_back(-1);
  return {{0, -1}, labels};
}

// A layout of `shape` along the first dimensions of `of` (the rest whole).
TensorLayout leading(const TensorLayout& of, Shape shape, size_t lead, Axes partial = {}) {
  TensorMap map(shape.size());
  for (size_t d = 0; d < lead; ++d) map[d] = of.map()[d];
  return TensorLayout(of.mesh(), std::move(shape), std::move(map), std::move(partial));
}

}  // namespace

LoopSpace layer_norm_loops(const OpCall& call, const Strategy& s) {
  return loops_along(call, s, layer_norm_dims(call), call.shapes[0].size(), kNormalised);
}

std::vector<TensorLayout> layer_norm_layouts(const OpCall& call, std::span<const TensorLayout> in) {
  auto dims = layer_norm_dims(call);
  TensorLayout y = layout_along(call, in, dims, call.shapes[0], kNormalised);
  const size_t norm =
      static_cast<size_t>(norm_index(call, "begin_norm_axis", call.shapes[0].size()));
  Shape stat = call.shapes[0];
  for (size_t d = norm; d < stat.size(); ++d) stat[d] = 1;
  TensorLayout st = leading(y, stat, norm);
  return {y, st, st};
}

LoopSpace gather_loops(const OpCall& call, const Strategy& s) {
  Shape out;
  auto dims = gather_dims(call, &out);
  return loops_along(call, s, std::move(dims), out.size(), kGathered);
}

TensorLayout gather_layout(const OpCall& call, std::span<const TensorLayout> in) {
  Shape out;
  auto dims = gather_dims(call, &out);
  return layout_along(call, in, dims, std::move(out), kGathered);
}

LoopSpace softmax_loss_loops(const OpCall& call, const Strategy& s) {
  return loops_along(call, s, softmax_loss_dims(call), 2, kClasses);
}

std::vector<TensorLayout> softmax_loss_layouts(const OpCall& call,
                                               std::span<const TensorLayout> in) {
  const Shape& n_c = call.shapes[0];
  TensorLayout logits = layout_along(call, in, softmax_loss_dims(call), n_c, kClasses);
  if (call.op == OpId::SoftmaxCrossEntropyWithLogits) return {leading(logits, {n_c[0]}, 1), logits};
  if (call.attrs.get_bool("is_grad")) return {logits};
  return {leading(logits, {}, 0, logits.map()[0])};  // the mean over N: partial
}

}  // namespace mycel::parallel::rules
