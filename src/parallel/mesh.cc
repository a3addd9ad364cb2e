#include "parallel/mesh.h"

#include <unordered_set>

#include "base/error.h"

namespace mycel::parallel {

std::string shape_str(const Shape& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "]";
}

namespace {
constexpr int64_t kMaxDevices = int64_t{1} << 20;
}  // namespace

DeviceMesh::DeviceMesh(Shape shape, std::vector<std::string> names,
                       std::optional<std::vector<int64_t>> ranks)
    : shape_(std::move(shape)), names_(std::move(names)) {
  MC_CHECK(!shape_.empty(), Value, "DeviceMesh: the device matrix needs at least one axis");
  int64_t n = 1;
  for (int64_t d : shape_) {
    MC_CHECK(d >= 1, Value, "DeviceMesh: every axis of the device matrix ", shape_str(shape_),
             " must have at least 1 device");
    MC_CHECK(n <= kMaxDevices / d, Value, "DeviceMesh: the device matrix ", shape_str(shape_),
             " has more than ", kMaxDevices, " devices");
    n *= d;
  }
  if (!names_.empty()) {
    MC_CHECK(names_.size() == shape_.size(), Value, "DeviceMesh: ", names_.size(),
             " axis names for a device matrix of ", shape_.size(), " axes");
    std::unordered_set<std::string> seen;
    for (const std::string& name : names_) {
      MC_CHECK(!name.empty() && name != "None", Value,
               "DeviceMesh: an axis name must not be empty or \"None\"");
      MC_CHECK(seen.insert(name).second, Value, "DeviceMesh: the axis name '", name,
               "' is used twice");
    }
  }
  auto r = std::make_shared<Ranks>();
  if (ranks) {
    r->list = std::move(*ranks);
  } else {
    for (int64_t i = 0; i < n; ++i) r->list.push_back(i);
  }
  MC_CHECK(static_cast<int64_t>(r->list.size()) == n, Value, "DeviceMesh: the device matrix [",
           shape_str(shape_), " holds ", n, " devices but the rank list has ", r->list.size());
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = r->list[static_cast<size_t>(i)];
    MC_CHECK(k >= 0, Value, "DeviceMesh: rank ", k, " in the rank list is negative");
    MC_CHECK(r->index.emplace(k, i).second, Value, "DeviceMesh: rank ", k,
             " is in the rank list twice");
  }
  ranks_ = std::move(r);
}

std::string DeviceMesh::axis_name(int axis) const {
  return names_.empty() ? "axis " + std::to_string(axis) : names_[static_cast<size_t>(axis)];
}

std::string DeviceMesh::axes_str(const Axes& axes) const {
  std::string s = "(";
  for (size_t i = 0; i < axes.size(); ++i) {
    if (i) s += ',';
    s += axis_name(axes[i]);
  }
  return s + ")";
}

int DeviceMesh::axis(const std::string& name) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return static_cast<int>(i);
  }
  MC_THROW(Value, "DeviceMesh: no axis is named '", name, "' in ", to_string());
}

int64_t DeviceMesh::index_of(int64_t rank) const {
  auto it = ranks_->index.find(rank);
  MC_CHECK(it != ranks_->index.end(), Value, "DeviceMesh: rank ", rank, " is not in ", to_string());
  return it->second;
}

Shape DeviceMesh::coords(int64_t rank) const {
  int64_t i = index_of(rank);
  Shape c(shape_.size());
  for (size_t a = shape_.size(); a-- > 0;) {
    c[a] = i % shape_[a];
    i /= shape_[a];
  }
  return c;
}

int64_t DeviceMesh::index_of_coords(const Shape& c) const {
  int64_t i = 0;
  for (size_t a = 0; a < shape_.size(); ++a) i = i * shape_[a] + c[a];
  return i;
}

int64_t DeviceMesh::rank_of(const Shape& c) const {
  MC_CHECK(c.size() == shape_.size(), Value, "DeviceMesh: ", c.size(),
           " coordinates for a device matrix of ", shape_.size(), " axes");
  for (size_t a = 0; a < c.size(); ++a) {
    MC_CHECK(c[a] >= 0 && c[a] < shape_[a], Value, "DeviceMesh: coordinates ", shape_str(c),
             " are outside the device matrix ", shape_str(shape_));
  }
  return rank_at(index_of_coords(c));
}

void DeviceMesh::check_axes(const Axes& axes, const std::string& what) const {
  std::vector<bool> used(shape_.size(), false);
  for (int a : axes) {
    MC_CHECK(a >= 0 && a < ndim(), Value, what, ": mesh axis ", a, " is out of range for ",
             to_string());
    MC_CHECK(!used[static_cast<size_t>(a)], Value, what, ": mesh axis ", axis_name(a),
             " is used twice");
    used[static_cast<size_t>(a)] = true;
  }
}

int64_t DeviceMesh::group_size(const Axes& axes) const {
  int64_t g = 1;
  for (int a : axes) g *= shape_[static_cast<size_t>(a)];
  return g;
}

int64_t DeviceMesh::group_index(int64_t rank, const Axes& axes) const {
  Shape c = coords(rank);
  int64_t k = 0;
  for (int a : axes) k = k * shape_[static_cast<size_t>(a)] + c[static_cast<size_t>(a)];
  return k;
}

std::vector<int64_t> DeviceMesh::group(int64_t rank, const Axes& axes) const {
  check_axes(axes, "DeviceMesh::group");
  Shape c = coords(rank);
  int64_t g = group_size(axes);
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(g));
  for (int64_t k = 0; k < g; ++k) {
    // The k-th member: k read as mixed-radix digits over `axes`, the last axis fastest.
    int64_t rest = k;
    for (size_t j = axes.size(); j-- > 0;) {
      size_t a = static_cast<size_t>(axes[j]);
      c[a] = rest % shape_[a];
      rest /= shape_[a];
    }
    out.push_back(rank_at(index_of_coords(c)));
  }
  return out;
}

std::vector<std::vector<int64_t>> DeviceMesh::groups(const Axes& axes) const {
  check_axes(axes, "DeviceMesh::groups");
  std::vector<std::vector<int64_t>> out;
  std::vector<bool> done(static_cast<size_t>(size()), false);
  for (int64_t i = 0; i < size(); ++i) {
    if (done[static_cast<size_t>(i)]) continue;
    out.push_back(group(rank_at(i), axes));
    for (int64_t r : out.back()) done[static_cast<size_t>(index_of(r))] = true;
  }
  return out;
}

std::string DeviceMesh::to_string() const {
  std::string s = "mesh " + shape_str(shape_);
  if (names_.empty()) return s;
  Axes all(shape_.size());
  for (size_t a = 0; a < all.size(); ++a) all[a] = static_cast<int>(a);
  return s + " " + axes_str(all);
}

}  // namespace mycel::parallel
