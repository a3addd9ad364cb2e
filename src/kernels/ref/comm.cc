// Reference kernels of the collective family (ops/defs/comm.def), the oracle the library
// collectives are tested against: they use the communicator's point-to-point send and
// receive only. Group rank 0 gathers every rank's input (in rank order), computes each
// rank's result with plain loops (reductions in double for floats, modulo 2^64 for
// integers, or/and for bool) and sends it back. Send and Receive are point to point
// already: their references make the same transfer (the tests' numpy values are their
// oracle).
#include <cstring>
#include <type_traits>

#include "comm/communicator.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

using Bytes = std::vector<char>;
constexpr int kRefTag = 32000;  // below MPI's smallest allowed tag bound (32767)

Bytes bytes_of(const Tensor& t) {
  const char* p = static_cast<const char*>(t.raw_data());
  return Bytes(p, p + t.nbytes());
}

// Every rank's `mine` at group rank 0, in rank order; empty on the other ranks.
std::vector<Bytes> gather(Communicator& c, const Bytes& mine) {
  std::vector<Bytes> all;
  if (c.rank() != 0) {
    c.send(mine.data(), mine.size(), 0, kRefTag);
    return all;
  }
  all.push_back(mine);
  for (int r = 1; r < c.size(); ++r) {
    all.emplace_back(mine.size());
    c.recv(all.back().data(), mine.size(), r, kRefTag);
  }
  return all;
}

// Rank r's result results[r], sent from group rank 0, into `out`.
void scatter(Communicator& c, const std::vector<Bytes>& results, const Tensor& out) {
  if (c.rank() != 0) {
    c.recv(out.raw_data(), out.nbytes(), 0, kRefTag + 1);
    return;
  }
  for (int r = 1; r < c.size(); ++r)
    c.send(results[static_cast<size_t>(r)].data(), out.nbytes(), r, kRefTag + 1);
  std::memcpy(out.raw_data(), results[0].data(), out.nbytes());
}

template <class T>
T load(const Bytes& b, size_t i) {
  T v;
  std::memcpy(&v, b.data() + i * sizeof(T), sizeof(T));
  return v;
}

// op over the ranks' element i.
template <class T>
T combine(const std::vector<Bytes>& all, size_t i, ReduceOp op) {
  if constexpr (std::is_same_v<T, bool>) {
    bool any = false, every = true;
    for (const Bytes& b : all) {
      any = any || load<bool>(b, i);
      every = every && load<bool>(b, i);
    }
    return op == ReduceOp::Sum || op == ReduceOp::Max ? any : every;
  } else if constexpr (std::is_integral_v<T>) {
    uint64_t sum = 0, prod = 1;
    int64_t hi = load<T>(all[0], i), lo = hi;
    for (const Bytes& b : all) {
      const int64_t v = load<T>(b, i);
      sum += static_cast<uint64_t>(v);
      prod *= static_cast<uint64_t>(v);
      hi = std::max(hi, v);
      lo = std::min(lo, v);
    }
    const uint64_t r = op == ReduceOp::Sum    ? sum
                       : op == ReduceOp::Prod ? prod
                       : op == ReduceOp::Max  ? static_cast<uint64_t>(hi)
                                              : static_cast<uint64_t>(lo);
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(r));  // modulo 2^bits
  } else {
    double sum = 0, prod = 1, hi = static_cast<double>(load<T>(all[0], i)), lo = hi;
    for (const Bytes& b : all) {
      const double v = static_cast<double>(load<T>(b, i));
      sum += v;
      prod *= v;
      hi = (v > hi || v != v) ? v : hi;  // NaN wins, as in the library reductions
      lo = (v < lo || v != v) ? v : lo;
    }
    const double r = op == ReduceOp::Sum    ? sum
                     : op == ReduceOp::Prod ? prod
                     : op == ReduceOp::Max  ? hi
                                            : lo;
    return static_cast<T>(r);
  }
}

// The elementwise reduction of the ranks' buffers (n elements of dtype t).
Bytes reduce_all(const std::vector<Bytes>& all, DType t, size_t n, ReduceOp op) {
  Bytes out(all[0].size());
  dispatch_all(t, "reference collective", [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < n; ++i) {
      T v = combine<T>(all, i, op);
      std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
    }
  });
  return out;
}

ReduceOp op_of(const KernelContext& ctx) { return *reduce_op_from_name(ctx.attrs.get_str("op")); }

// The row-major multi-index of flat index f in `shape`.
Shape unflatten(int64_t f, const Shape& shape) {
  Shape idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = f % shape[d];
    f /= shape[d];
  }
  return idx;
}

int64_t flatten(const Shape& idx, const Shape& shape) {
  int64_t f = 0;
  for (size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + idx[d];
  return f;
}

size_t axis(const KernelContext& ctx, const char* attr) {
  const int64_t a = ctx.attrs.get_int(attr), nd = ctx.in[0].ndim();
  return static_cast<size_t>(a < 0 ? a + nd : a);
}

// The references' pattern: group rank 0 gathers every rank's input, `compute` makes each
// rank's result from them (there only), and each rank receives its own.
template <class F>
void at_root(const KernelContext& ctx, F&& compute) {
  Communicator& c = *ctx.comm;
  std::vector<Bytes> all = gather(c, bytes_of(ctx.in[0]));
  std::vector<Bytes> res;
  if (c.rank() == 0) res = compute(all);
  scatter(c, res, ctx.out[0]);
}

}  // namespace

void ref_all_reduce(const KernelContext& ctx) {
  at_root(ctx, [&](const std::vector<Bytes>& all) {
    Bytes r =
        reduce_all(all, ctx.in[0].dtype(), static_cast<size_t>(ctx.in[0].numel()), op_of(ctx));
    return std::vector<Bytes>(static_cast<size_t>(ctx.comm->size()), r);
  });
}

void ref_all_gather(const KernelContext& ctx) {
  at_root(ctx, [&](const std::vector<Bytes>& all) {
    Bytes cat;
    for (const Bytes& b : all) cat.insert(cat.end(), b.begin(), b.end());
    return std::vector<Bytes>(static_cast<size_t>(ctx.comm->size()), cat);
  });
}

void ref_reduce_scatter(const KernelContext& ctx) {
  at_root(ctx, [&](const std::vector<Bytes>& all) {
    Bytes r =
        reduce_all(all, ctx.in[0].dtype(), static_cast<size_t>(ctx.in[0].numel()), op_of(ctx));
    const auto block = static_cast<int64_t>(ctx.out[0].nbytes());
    std::vector<Bytes> res;
    for (int k = 0; k < ctx.comm->size(); ++k)
      res.emplace_back(r.begin() + block * k, r.begin() + block * (k + 1));
    return res;
  });
}

// Rank r's output element o: the block along concat_dim that o falls in names the source
// rank i; within it, the element of input i's block r along split_dim.
void ref_all_to_all(const KernelContext& ctx) {
  at_root(ctx, [&](const std::vector<Bytes>& all) {
    const Shape &xs = ctx.in[0].shape(), &ys = ctx.out[0].shape();
    const size_t split = axis(ctx, "split_dim"), concat = axis(ctx, "concat_dim");
    const size_t es = ctx.in[0].itemsize();
    const int64_t n = ctx.comm->size(), c_split = xs[split] / n, c_concat = ys[concat] / n;
    std::vector<Bytes> res;
    for (int64_t r = 0; r < n; ++r) {
      Bytes out(ctx.out[0].nbytes());
      for (int64_t f = 0; f < ctx.out[0].numel(); ++f) {
        Shape idx = unflatten(f, ys);
        const int64_t src = idx[concat] / c_concat;
        idx[concat] %= c_concat;
        idx[split] += r * c_split;
        std::memcpy(
            out.data() + static_cast<size_t>(f) * es,
            all[static_cast<size_t>(src)].data() + static_cast<size_t>(flatten(idx, xs)) * es, es);
      }
      res.push_back(std::move(out));
    }
    return res;
  });
}

void ref_comm_broadcast(const KernelContext& ctx) {
  Communicator& c = *ctx.comm;
  const int root = static_cast<int>(ctx.attrs.get_int("root_rank"));
  MC_CHECK(root < c.size(), Value, "For 'Broadcast', the 'root_rank' ", root,
           " is not a rank of the group.");
  for (size_t i = 0; i < ctx.in.size(); ++i) {
    const Tensor& out = ctx.out[i];
    if (c.rank() == root) {
      std::memcpy(out.raw_data(), ctx.in[i].raw_data(), out.nbytes());
      for (int r = 0; r < c.size(); ++r)
        if (r != root) c.send(out.raw_data(), out.nbytes(), r, kRefTag + 2);
    } else {
      c.recv(out.raw_data(), out.nbytes(), root, kRefTag + 2);
    }
  }
}

// Everyone checks in with group rank 0, which then lets everyone go.
void ref_barrier(const KernelContext& ctx) {
  Communicator& c = *ctx.comm;
  gather(c, Bytes(1, 'b'));
  char token = 'g';
  if (c.rank() != 0) {
    c.recv(&token, 1, 0, kRefTag + 1);
  } else {
    for (int r = 1; r < c.size(); ++r) c.send(&token, 1, r, kRefTag + 1);
  }
}

void ref_send(const KernelContext& ctx) {
  ctx.comm->send(ctx.in[0].raw_data(), ctx.in[0].nbytes(),
                 static_cast<int>(ctx.attrs.get_int("dest_rank")),
                 static_cast<int>(ctx.attrs.get_int("sr_tag")));
}

void ref_receive(const KernelContext& ctx) {
  ctx.comm->recv(ctx.out[0].raw_data(), ctx.out[0].nbytes(),
                 static_cast<int>(ctx.attrs.get_int("src_rank")),
                 static_cast<int>(ctx.attrs.get_int("sr_tag")));
}

}  // namespace mycel
