#include "collective_checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

namespace mycel::test {

namespace {

// A buffer of n T's with data() for every T (std::vector<bool> has none).
template <class T>
class Buf {
 public:
  explicit Buf(size_t n) : p_(new T[n]()) {}
  T* data() { return p_.get(); }
  T& operator[](size_t i) { return p_[i]; }

 private:
  std::unique_ptr<T[]> p_;
};

// A small integer per (rank, index), exact in every dtype, so the sums and products below
// are exact too.
double sum_value(int r, size_t i) { return (r + 1) * static_cast<double>(i % 5 + 1); }
double prod_value(int r, size_t i) { return 1.0 + static_cast<double>((i + r) % 2); }
bool bool_value(int r, size_t i) { return (i + static_cast<size_t>(r)) % 3 == 0; }

template <class T>
Buf<T> filled(size_t n, int r, ReduceOp op) {
  Buf<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      v[i] = bool_value(r, i);
    } else {
      v[i] = saturate_cast<T>(op == ReduceOp::Prod ? prod_value(r, i) : sum_value(r, i));
    }
  }
  return v;
}

template <class T>
T expected_reduce(int size, size_t i, ReduceOp op) {
  if constexpr (std::is_same_v<T, bool>) {
    bool any = false, all = true;
    for (int r = 0; r < size; ++r) {
      any = any || bool_value(r, i);
      all = all && bool_value(r, i);
    }
    return (op == ReduceOp::Sum || op == ReduceOp::Max) ? any : all;
  } else {
    double acc = op == ReduceOp::Prod ? 1.0 : (op == ReduceOp::Sum ? 0.0 : sum_value(0, i));
    for (int r = 0; r < size; ++r) {
      if (op == ReduceOp::Sum) acc += sum_value(r, i);
      if (op == ReduceOp::Prod) acc *= prod_value(r, i);
      if (op == ReduceOp::Max) acc = std::max(acc, sum_value(r, i));
      if (op == ReduceOp::Min) acc = std::min(acc, sum_value(r, i));
    }
    return saturate_cast<T>(acc);
  }
}

template <class T>
void check_all_reduce(Communicator& c) {
  const DType t = dtype_of<T>();
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod}) {
    for (size_t n : {size_t{1}, size_t{7}, size_t{1000}}) {
      Buf<T> v = filled<T>(n, c.rank(), op);
      c.all_reduce(v.data(), n, t, op);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(static_cast<double>(v[i]),
                  static_cast<double>(expected_reduce<T>(c.size(), i, op)))
            << dtype_name(t) << " " << reduce_op_name(op) << " n=" << n << " i=" << i << " rank "
            << c.rank();
      }
    }
  }
}

// Every all-reduce path of every size class (Gloo: two ranks exchange up to 1 MiB; past that
// two ranks reduce a half each, in segments of 1 MiB, some of them short; more ranks run a
// ring of 1 MiB segments, some of them short or empty), in place and out of place: out holds
// the reduction, in is left as it was. Element sizes 2, 4 and 8 (the segments and halves are
// cut at element boundaries).
template <class T>
void check_all_reduce_paths(Communicator& c, std::initializer_list<size_t> sizes) {
  const DType t = dtype_of<T>();
  for (size_t n : sizes) {
    for (bool in_place : {true, false}) {
      for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max}) {
        Buf<T> in = filled<T>(n, c.rank(), op), out(n);
        c.all_reduce(in.data(), in_place ? in.data() : out.data(), n, t, op);
        T* got = in_place ? in.data() : out.data();
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(static_cast<double>(got[i]),
                    static_cast<double>(expected_reduce<T>(c.size(), i, op)))
              << dtype_name(t) << " " << reduce_op_name(op) << " n=" << n
              << " in_place=" << in_place << " i=" << i << " rank " << c.rank();
          if (!in_place) {
            ASSERT_EQ(static_cast<double>(in[i]),
                      static_cast<double>(saturate_cast<T>(sum_value(c.rank(), i))));
          }
        }
      }
    }
  }
}

void check_wrap_and_nan(Communicator& c) {
  int8_t x = 100;  // 100 * size wraps in int8, as the dtype does
  c.all_reduce(&x, 1, DType::Int8, ReduceOp::Sum);
  EXPECT_EQ(x, static_cast<int8_t>(100 * c.size()));
  float f[2] = {c.rank() == c.size() - 1 ? NAN : 1.0f, 2.0f};
  c.all_reduce(f, 2, DType::Float32, ReduceOp::Max);
  EXPECT_TRUE(std::isnan(f[0]));
  EXPECT_EQ(f[1], 2.0f);
}

template <class T>
void check_movement(Communicator& c) {
  const DType t = dtype_of<T>();
  const int p = c.size(), me = c.rank();
  const size_t n = 5;
  auto val = [](int r, size_t i) {
    return saturate_cast<T>(static_cast<double>((r * 7 + i) % 50));
  };
  Buf<T> in(n), out(n * p);
  for (size_t i = 0; i < n; ++i) in[i] = val(me, i);
  c.all_gather(in.data(), out.data(), n, t);
  for (int r = 0; r < p; ++r)
    for (size_t i = 0; i < n; ++i)
      EXPECT_EQ(static_cast<double>(out[r * n + i]), static_cast<double>(val(r, i))) << "AllGather";

  Buf<T> blocks(n * p), back(n * p);
  for (size_t j = 0; j < n * p; ++j) blocks[j] = val(me + 3, j);
  c.all_to_all(blocks.data(), back.data(), n, t);
  for (int r = 0; r < p; ++r)
    for (size_t i = 0; i < n; ++i)
      EXPECT_EQ(static_cast<double>(back[r * n + i]), static_cast<double>(val(r + 3, me * n + i)))
          << "AlltoAll";

  Buf<T> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = val(me, i);
  c.broadcast(b.data(), n, t, p - 1);
  for (size_t i = 0; i < n; ++i)
    EXPECT_EQ(static_cast<double>(b[i]), static_cast<double>(val(p - 1, i))) << "Broadcast";
}

void check_reduce_scatter(Communicator& c) {
  const int p = c.size(), me = c.rank();
  const size_t n = 3;
  std::vector<double> in(n * p), out(n);
  for (size_t j = 0; j < n * p; ++j) in[j] = sum_value(me, j);
  c.reduce_scatter(in.data(), out.data(), n, DType::Float64, ReduceOp::Sum);
  for (size_t i = 0; i < n; ++i) {
    double want = 0;
    for (int r = 0; r < p; ++r) want += sum_value(r, me * n + i);
    EXPECT_EQ(out[i], want) << "ReduceScatter i=" << i;
  }
  std::vector<int32_t> ii(n * p), io(n);
  for (size_t j = 0; j < n * p; ++j) ii[j] = static_cast<int32_t>(sum_value(me, j));
  c.reduce_scatter(ii.data(), io.data(), n, DType::Int32, ReduceOp::Max);
  for (size_t i = 0; i < n; ++i)
    EXPECT_EQ(io[i], static_cast<int32_t>(sum_value(p - 1, me * n + i)));
}

void check_ring(Communicator& c) {
  const int p = c.size(), me = c.rank();
  if (p < 2) return;
  int64_t mine = 1000 + me, got = -1;
  // Even ranks send first, odd ranks receive first: no rank blocks on a send nobody receives.
  if (me % 2 == 0) {
    c.send(&mine, sizeof mine, (me + 1) % p, 7);
    c.recv(&got, sizeof got, (me + p - 1) % p, 7);
  } else {
    c.recv(&got, sizeof got, (me + p - 1) % p, 7);
    c.send(&mine, sizeof mine, (me + 1) % p, 7);
  }
  EXPECT_EQ(got, 1000 + (me + p - 1) % p);
}

}  // namespace

void check_collectives(Communicator& c) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (is_complex(static_cast<DType>(i))) continue;  // the reductions take real dtypes only
    dispatch_all(static_cast<DType>(i), "check",
                 [&](auto tag) { check_all_reduce<typename decltype(tag)::type>(c); });
  }
  check_wrap_and_nan(c);
  check_all_reduce_paths<float>(c, {3, 262143, 262145, 1300007});
  check_all_reduce_paths<int16_t>(c, {700001});
  check_all_reduce_paths<double>(c, {262147});
  // Data movement needs only the element size: one dtype of each.
  for (DType t : {DType::Bool, DType::Int16, DType::BFloat16, DType::Float32, DType::Int64}) {
    dispatch_all(t, "check", [&](auto tag) { check_movement<typename decltype(tag)::type>(c); });
  }
  check_reduce_scatter(c);
  check_ring(c);
  // Empty buffers are no-ops (no message is sent), then the group still works.
  c.all_reduce(nullptr, 0, DType::Float32, ReduceOp::Sum);
  c.all_gather(nullptr, nullptr, 0, DType::Float32);
  c.barrier();
  double one = 1;
  c.all_reduce(&one, 1, DType::Float64, ReduceOp::Sum);
  EXPECT_EQ(one, c.size());
}

}  // namespace mycel::test
