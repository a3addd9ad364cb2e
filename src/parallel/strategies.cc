#include "parallel/strategies.h"

#include <functional>

#include "base/error.h"

namespace mycel::parallel {

DeviceMesh search_mesh(int64_t devices) {
  MC_CHECK(devices >= 1, Value, "auto_parallel: the device count must be positive, but got ",
           devices);
  Shape f;
  int64_t n = devices;
  for (int64_t p = 2; p * p <= n; ++p) {
    while (n % p == 0) {
      f.push_back(p);
      n /= p;
    }
  }
  if (n > 1) f.push_back(n);
  if (f.empty()) f.push_back(1);
  return DeviceMesh(f);
}

namespace {

// The strategy whose loop dimension k is split splits[k], from the loop space's mapping.
Strategy rows_of(const LoopSpace& unsplit, const std::vector<int64_t>& splits) {
  Strategy s;
  for (const std::vector<int>& dims : unsplit.in_dims) {
    std::vector<int64_t> row;
    for (int d : dims) row.push_back(d < 0 ? 1 : splits[static_cast<size_t>(d)]);
    s.push_back(std::move(row));
  }
  return s;
}

// Whether `s` fits the call and the devices within the bounds (strategies.h).
bool admissible(const OpCall& call, const Strategy& s, int64_t devices, const DeviceMesh& mesh) {
  try {
    LoopSpace loops = loop_space(call, s);
    Shape matrix = device_matrix(call, loops, devices);
    int used = 0;
    for (int64_t k : matrix) used += k > 1 ? 1 : 0;
    if (used > kMaxStrategyAxes) return false;
    matrix_axes(matrix, mesh);
    infer_layouts(call, strategy_layouts(call, s, mesh));  // e.g. a Reshape across a split
    return true;
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Value) throw;
    return false;
  }
}

// Each loop dimension's extent: the size of an input dimension that runs along it (0: none
// does, it stays whole).
Shape loop_extents(const OpCall& call, const LoopSpace& unsplit) {
  Shape extent(unsplit.splits.size(), 0);
  for (size_t i = 0; i < unsplit.in_dims.size(); ++i) {
    for (size_t j = 0; j < unsplit.in_dims[i].size(); ++j) {
      int d = unsplit.in_dims[i][j];
      if (d >= 0 && call.shapes[i][j] > 1) extent[static_cast<size_t>(d)] = call.shapes[i][j];
    }
  }
  return extent;
}

Strategy ones_of(const OpCall& call) {
  Strategy ones;
  for (const Shape& sh : call.shapes) ones.emplace_back(sh.size(), 1);
  return ones;
}

}  // namespace

std::vector<Strategy> enumerate_strategies(const OpCall& call, int64_t devices) {
  const Strategy ones = ones_of(call);
  const LoopSpace unsplit = loop_space(call, ones);
  const size_t n = unsplit.splits.size();
  const Shape extent = loop_extents(call, unsplit);
  const DeviceMesh mesh = search_mesh(devices);
  std::vector<Strategy> out;
  std::vector<int64_t> splits(n, 1);
  std::function<void(size_t, int64_t)> walk = [&](size_t k, int64_t used) {
    if (k == n) {
      Strategy s = rows_of(unsplit, splits);
      if (admissible(call, s, devices, mesh)) out.push_back(std::move(s));
      return;
    }
    for (int64_t c = 1; used * c <= devices; ++c) {
      if ((devices / used) % c != 0 || (c > 1 && (extent[k] == 0 || extent[k] % c != 0))) continue;
      splits[k] = c;
      walk(k + 1, used * c);
    }
    splits[k] = 1;
  };
  walk(0, 1);
  MC_ASSERT(!out.empty() && out.front() == ones, "the unsplit strategy must fit");
  return out;
}

Strategy unsplit_strategy(const OpCall& call, int64_t devices) {
  Strategy ones = ones_of(call);
  device_matrix(call, loop_space(call, ones), devices);  // ValueError when rejected
  infer_layouts(call, strategy_layouts(call, ones, search_mesh(devices)));
  return ones;
}

std::vector<Strategy> refine_strategy(const OpCall& call, const Strategy& s, int64_t factor,
                                      int64_t devices) {
  const LoopSpace unsplit = loop_space(call, ones_of(call));
  const Shape extent = loop_extents(call, unsplit);
  const std::vector<int64_t> splits = loop_space(call, s).splits;
  int64_t used = 1;
  for (int64_t k : splits) used *= k;
  std::vector<Strategy> out;
  if (devices % (used * factor) != 0) return out;
  const DeviceMesh mesh = search_mesh(devices);
  for (size_t k = 0; k < splits.size(); ++k) {
    if (extent[k] == 0 || extent[k] % (splits[k] * factor) != 0) continue;
    std::vector<int64_t> finer = splits;
    finer[k] *= factor;
    Strategy r = rows_of(unsplit, finer);
    if (admissible(call, r, devices, mesh)) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace mycel::parallel
