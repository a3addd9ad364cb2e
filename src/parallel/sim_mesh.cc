#include "parallel/sim_mesh.h"

#include "base/error.h"

namespace mycel::parallel {

namespace {

using Buffer = std::vector<double>;

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// A row-major buffer of shape s seen as [outer, s[d], inner].
struct Around {
  int64_t outer = 1, len = 1, inner = 1;
  Around(const Shape& s, int d) : len(s[static_cast<size_t>(d)]) {
    for (int i = 0; i < d; ++i) outer *= s[static_cast<size_t>(i)];
    for (size_t i = static_cast<size_t>(d) + 1; i < s.size(); ++i) inner *= s[i];
  }
};

// Block k of g equal blocks of `buf` (of shape s) along dimension d.
Buffer block(const Buffer& buf, const Shape& s, int d, int64_t g, int64_t k) {
  Around a(s, d);
  int64_t n = a.len / g * a.inner;  // one block's elements per outer index
  Buffer out;
  out.reserve(static_cast<size_t>(a.outer * n));
  for (int64_t o = 0; o < a.outer; ++o) {
    auto first = buf.begin() + (o * a.len * a.inner + k * n);
    out.insert(out.end(), first, first + n);
  }
  return out;
}

// The parts (each of shape s) joined along dimension d, in order.
Buffer join(const std::vector<const Buffer*>& parts, const Shape& s, int d) {
  Around a(s, d);
  int64_t n = a.len * a.inner;
  Buffer out;
  out.reserve(static_cast<size_t>(a.outer * n) * parts.size());
  for (int64_t o = 0; o < a.outer; ++o) {
    for (const Buffer* p : parts) {
      auto first = p->begin() + o * n;
      out.insert(out.end(), first, first + n);
    }
  }
  return out;
}

Buffer sum(const std::vector<const Buffer*>& parts) {
  Buffer out(parts.front()->size(), 0.0);
  for (const Buffer* p : parts) {
    for (size_t i = 0; i < out.size(); ++i) out[i] += (*p)[i];
  }
  return out;
}

}  // namespace

std::vector<double> slice_of(const TensorLayout& l, const std::vector<double>& full, int64_t rank) {
  const Shape& shape = l.shape();
  MC_CHECK(static_cast<int64_t>(full.size()) == numel(shape), Value, "slice_of: ", full.size(),
           " values for ", l.to_string());
  Shape sub = l.slice_shape();
  Shape off = l.slice_offsets(rank);
  Buffer out;
  int64_t n = numel(sub);
  out.reserve(static_cast<size_t>(n));
  Shape idx(sub.size(), 0);  // the element's index within the slice, last fastest
  for (int64_t e = 0; e < n; ++e) {
    int64_t flat = 0;
    for (size_t d = 0; d < sub.size(); ++d) flat = flat * shape[d] + off[d] + idx[d];
    out.push_back(full[static_cast<size_t>(flat)]);
    for (size_t d = sub.size(); d-- > 0;) {
      if (++idx[d] < sub[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

SimMesh SimMesh::from_buffers(DeviceMesh mesh, Shape local, std::vector<Buffer> buffers) {
  MC_CHECK(static_cast<int64_t>(buffers.size()) == mesh.size(), Value, "SimMesh: ", buffers.size(),
           " buffers for ", mesh.to_string());
  for (const Buffer& b : buffers) {
    MC_CHECK(static_cast<int64_t>(b.size()) == numel(local), Value, "SimMesh: a buffer of ",
             b.size(), " values for the local shape ", shape_str(local));
  }
  return SimMesh(std::move(mesh), std::move(local), std::move(buffers));
}

SimMesh SimMesh::scatter(const TensorLayout& l, const std::vector<double>& full,
                         std::mt19937_64& rng) {
  const DeviceMesh& mesh = l.mesh();
  std::vector<Buffer> buffers(static_cast<size_t>(mesh.size()));
  std::uniform_int_distribution<int> addend(-50, 50);
  for (const std::vector<int64_t>& group : mesh.groups(l.partial())) {
    Buffer rest = slice_of(l, full, group.front());
    for (size_t j = 0; j < group.size(); ++j) {
      Buffer& b = buffers[static_cast<size_t>(mesh.index_of(group[j]))];
      if (j + 1 == group.size()) {
        b = rest;  // the last addend makes the group's sum the slice
        continue;
      }
      b.resize(rest.size());
      for (size_t i = 0; i < b.size(); ++i) {
        b[i] = addend(rng);
        rest[i] -= b[i];
      }
    }
  }
  return SimMesh(mesh, l.slice_shape(), std::move(buffers));
}

void SimMesh::run(const Move& m) {
  const int nd = static_cast<int>(shape_.size());
  const int64_t g = mesh_.group_size(m.axes);
  auto check_dim = [&](int d, bool cut) {
    MC_CHECK(d >= 0 && d < nd, Value, "SimMesh: ", m.to_string(mesh_), ": dimension ", d,
             " is out of range for local buffers of ", nd, " dimensions");
    MC_CHECK(!cut || shape_[static_cast<size_t>(d)] % g == 0, Value,
             "SimMesh: ", m.to_string(mesh_), ": ", g, " blocks do not divide dimension ", d, " (",
             shape_[static_cast<size_t>(d)], ")");
  };
  std::vector<Buffer> next(buffers_.size());
  auto at = [&](int64_t rank) { return static_cast<size_t>(mesh_.index_of(rank)); };
  Shape shape = shape_;
  switch (m.kind) {
    case MoveKind::Split:
      check_dim(m.dim, true);
      shape[static_cast<size_t>(m.dim)] /= g;
      break;
    case MoveKind::AllGather:
      check_dim(m.dim, false);
      shape[static_cast<size_t>(m.dim)] *= g;
      break;
    case MoveKind::AllToAll:
      check_dim(m.dim, true);
      check_dim(m.concat_dim, false);
      shape[static_cast<size_t>(m.dim)] /= g;
      shape[static_cast<size_t>(m.concat_dim)] *= g;
      break;
    case MoveKind::ReduceScatter:
      check_dim(m.dim, true);
      shape[static_cast<size_t>(m.dim)] /= g;
      break;
    case MoveKind::AllReduce:
    case MoveKind::Partial:
      break;
  }
  for (const std::vector<int64_t>& group : mesh_.groups(m.axes)) {
    std::vector<const Buffer*> in;
    for (int64_t r : group) in.push_back(&buffers_[at(r)]);
    for (size_t j = 0; j < group.size(); ++j) {
      Buffer& out = next[at(group[j])];
      const int64_t k = static_cast<int64_t>(j);
      switch (m.kind) {
        case MoveKind::Split:
          out = block(*in[j], shape_, m.dim, g, k);
          break;
        case MoveKind::Partial:
          out = j == 0 ? *in[j] : Buffer(in[j]->size(), 0.0);
          break;
        case MoveKind::AllGather:
          out = join(in, shape_, m.dim);
          break;
        case MoveKind::AllReduce:
          out = sum(in);
          break;
        case MoveKind::ReduceScatter:
          out = block(sum(in), shape_, m.dim, g, k);
          break;
        case MoveKind::AllToAll: {
          std::vector<Buffer> blocks;  // block j of every member, in group order
          for (const Buffer* b : in) blocks.push_back(block(*b, shape_, m.dim, g, k));
          std::vector<const Buffer*> parts;
          for (const Buffer& b : blocks) parts.push_back(&b);
          Shape bs = shape_;
          bs[static_cast<size_t>(m.dim)] /= g;
          out = join(parts, bs, m.concat_dim);
          break;
        }
      }
    }
  }
  buffers_ = std::move(next);
  shape_ = std::move(shape);
}

std::string check_holds(const SimMesh& sim, const TensorLayout& l,
                        const std::vector<double>& full) {
  if (!(sim.mesh() == l.mesh())) return "the simulation runs on another mesh";
  if (sim.local_shape() != l.slice_shape()) return "the local buffers have another shape";
  for (const std::vector<int64_t>& group : l.mesh().groups(l.partial())) {
    std::vector<const Buffer*> in;
    for (int64_t r : group) in.push_back(&sim.buffer(r));
    Buffer want = slice_of(l, full, group.front());
    Buffer got = sum(in);
    for (size_t i = 0; i < want.size(); ++i) {
      if (got[i] != want[i]) {
        return str("device ", group.front(), " (group of ", group.size(), "): element ", i, " is ",
                   got[i], ", its slice has ", want[i]);
      }
    }
  }
  return "";
}

}  // namespace mycel::parallel
