// Parallel rules of MatMul and BatchMatMul (rules.h). Loop dimensions: the broadcast batch
// dimensions, then m, k, n. The output is split as x1's m and x2's n (and the batch
// dimensions as the inputs that have them whole) and partial along the axes splitting k.
#include <algorithm>

#include "base/error.h"
#include "parallel/rules.h"

namespace mycel::parallel::rules {

namespace {

// Where each input dimension of one MatMul call runs: batch loop dimensions first.
struct MatMulDims {
  size_t nb = 0;                      // batch loop dimensions
  std::vector<std::vector<int>> dim;  // per input, per dimension: its loop dimension
  Shape batch;                        // the output's batch shape
};

MatMulDims matmul_dims(const OpCall& call) {
  const Shape& a = call.shapes[0];
  const Shape& b = call.shapes[1];
  const bool ta = call.attrs.get_bool("transpose_a");
  const bool tb = call.attrs.get_bool("transpose_b");
  MC_CHECK(a.size() >= 2 && b.size() >= 2 &&
               (call.op == OpId::BatchMatMul || (a.size() == 2 && b.size() == 2)),
           Value, "For '", op_def(call.op).name, "', the input shapes ", shape_str(a), " and ",
           shape_str(b), " do not fit the op", call.where);
  MatMulDims d;
  d.nb = std::max(a.size(), b.size()) - 2;
  for (size_t i = 0; i < d.nb; ++i) {
    int64_t da = i + a.size() >= d.nb + 2 ? a[i + a.size() - 2 - d.nb] : 1;
    int64_t db = i + b.size() >= d.nb + 2 ? b[i + b.size() - 2 - d.nb] : 1;
    d.batch.push_back(da == 1 ? db : da);
  }
  const int m = static_cast<int>(d.nb), k = m + 1, n = m + 2;
  for (int i = 0; i < 2; ++i) {
    const Shape& s = call.shapes[static_cast<size_t>(i)];
    const size_t lead = d.nb + 2 - s.size();  // batch loop dimensions it lacks
    std::vector<int> dims;
    for (size_t j = 0; j + 2 < s.size(); ++j) {
      // A batch dimension of size 1 that broadcasts runs along no loop dimension.
      bool broadcast = s[j] == 1 && d.batch[j + lead] != 1;
      dims.push_back(broadcast ? -1 : static_cast<int>(j + lead));
    }
    bool t = i == 0 ? ta : tb;
    int rows = i == 0 ? m : k, cols = i == 0 ? k : n;
    dims.push_back(t ? cols : rows);
    dims.push_back(t ? rows : cols);
    d.dim.push_back(std::move(dims));
  }
  return d;
}

}  // namespace

LoopSpace matmul_loops(const OpCall& call, const Strategy& s) {
  check_rows(call, s);
  MatMulDims d = matmul_dims(call);
  LoopSpace l;
  l.splits.assign(d.nb + 3, 0);
  l.in_dims = d.dim;
  for (size_t i = 0; i < 2; ++i) {
    for (size_t j = 0; j < d.dim[i].size(); ++j) {
      int loop = d.dim[i][j];
      if (loop < 0) {
        MC_CHECK(s[i][j] == 1, Value, describe(call, s), ": dimension ", j, " of input ", i,
                 " broadcasts (size 1) and cannot be split", call.where);
        continue;
      }
      int64_t& split = l.splits[static_cast<size_t>(loop)];
      const char* what =
          loop == static_cast<int>(d.nb) + 1 ? "the reduced dimension K" : "a batch dimension";
      MC_CHECK(split == 0 || split == s[i][j], Value, describe(call, s), ": ", what,
               " must be split alike in both inputs, but input 0 cuts it into ", split,
               " and input 1 into ", s[i][j], call.where);
      split = s[i][j];
    }
  }
  for (int64_t& k : l.splits) k = k == 0 ? 1 : k;
  return l;
}

TensorLayout matmul_layout(const OpCall& call, std::span<const TensorLayout> in) {
  MatMulDims d = matmul_dims(call);
  const size_t loops = d.nb + 3;
  std::vector<const Axes*> axes(loops, nullptr);
  for (size_t i = 0; i < 2; ++i) {
    for (size_t j = 0; j < d.dim[i].size(); ++j) {
      int loop = d.dim[i][j];
      const Axes& a = in[i].map()[j];
      if (loop < 0) {
        MC_CHECK(a.empty(), Value, describe(call, in), ": dimension ", j, " of input ", i,
                 " broadcasts and cannot be split", call.where);
        continue;
      }
      const Axes*& seen = axes[static_cast<size_t>(loop)];
      MC_CHECK(seen == nullptr || *seen == a, Value, describe(call, in), ": ",
               loop == static_cast<int>(d.nb) + 1 ? "the reduced dimension K" : "a batch dimension",
               " is split differently in the two inputs", call.where);
      seen = &a;
    }
  }
  static const Axes kNone;
  auto at = [&](size_t loop) -> const Axes& { return axes[loop] ? *axes[loop] : kNone; };
  Shape shape = d.batch;
  TensorMap map;
  for (size_t i = 0; i < d.nb; ++i) map.push_back(at(i));
  const size_t m = d.nb, k = m + 1, n = m + 2;
  const Shape& a = call.shapes[0];
  const Shape& b = call.shapes[1];
  const bool ta = call.attrs.get_bool("transpose_a");
  const bool tb = call.attrs.get_bool("transpose_b");
  shape.push_back(a[a.size() - (ta ? 1 : 2)]);
  shape.push_back(b[b.size() - (tb ? 2 : 1)]);
  map.push_back(at(m));
  map.push_back(at(n));
  Axes used;
  for (const Axes& x : map) used.insert(used.end(), x.begin(), x.end());
  used.insert(used.end(), at(k).begin(), at(k).end());
  std::sort(used.begin(), used.end());
  MC_CHECK(std::adjacent_find(used.begin(), used.end()) == used.end(), Value, describe(call, in),
           ": one mesh axis splits two of the dimensions m, k, n and the batch", call.where);
  return TensorLayout(in[0].mesh(), std::move(shape), std::move(map), at(k));
}

}  // namespace mycel::parallel::rules
