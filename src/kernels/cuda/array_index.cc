// CUDA kernels of the array family's indexing ops: Gather, GatherD(+Grad), UnsortedSegmentSum,
// ScatterNd, TensorScatterUpdate, OneHot, Range. The layouts are those of the CPU kernels
// (kernels/cpu/array_index.cc); device code in array_index.cu.
//
// Index errors are found on the device and raised here later (array_index.h explains why):
// each indexing kernel first raises any error an earlier launch on its device recorded, and
// so does every host wait for the device (install_cuda makes check_index_errors the CUDA
// backend's after-sync hook).
#include "kernels/cuda/array_index.h"

#include <array>
#include <cstring>
#include <mutex>

#include "device/cuda/cuda_device.h"
#include "device/cuda/cuda_tensor.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/gather_layout.h"
#include "ops/infer_array.h"

namespace mycel::cuda {

namespace {

constexpr int kMaxDevices = 64;

// The error word of a device: mapped pinned host memory, {1 + op id, index}.
struct ErrorWord {
  volatile int64_t* host = nullptr;
  int64_t* dev = nullptr;
};

// The device's error word; allocated on first use when `create`, else nullptr until then.
ErrorWord* error_word(int index, bool create) {
  static std::mutex mu;
  static std::array<ErrorWord, kMaxDevices> words;
  MC_CHECK(index >= 0 && index < kMaxDevices, Runtime, "GPU:", index, " is beyond the ",
           kMaxDevices, " devices the index checks support.");
  std::lock_guard<std::mutex> lock(mu);
  ErrorWord& w = words[static_cast<size_t>(index)];
  if (!w.host && create) {
    stream(index);  // makes the device current
    void* p = nullptr;
    MC_CUDA_CHECK(cudaHostAlloc(&p, 2 * sizeof(int64_t), cudaHostAllocMapped));
    std::memset(p, 0, 2 * sizeof(int64_t));
    void* d = nullptr;
    MC_CUDA_CHECK(cudaHostGetDevicePointer(&d, p, 0));
    w.host = static_cast<volatile int64_t*>(p);
    w.dev = static_cast<int64_t*>(d);
  }
  return w.host ? &w : nullptr;
}

// The device's error word, after raising any error recorded in it.
int64_t* checked_error_word(int index) {
  check_index_errors(index);
  return error_word(index, true)->dev;
}

bool idx64(const Tensor& t) { return t.dtype() == DType::Int64; }

// Zeroes an accumulator for `out` (out itself, or scratch of the accumulator type), runs
// run(acc), then rounds the scratch into out.
template <class F>
void accumulate(const KernelContext& ctx, const Tensor& out, const F& run) {
  if (out.dtype() == DType::Bool && ctx.op.id != OpId::ScatterNd)
    throw_unsupported_dtype(ctx.op.name, out.dtype(), "numeric");  // as the CPU kernel
  const int index = ctx.device.index;
  cudaStream_t s = stream(index);
  const int c = code(out.dtype());
  const size_t asz = accum_size(c);
  const bool in_place = asz == out.itemsize();
  const size_t bytes = static_cast<size_t>(out.numel()) * asz;
  Buffer scratch(index, in_place ? 0 : bytes);
  void* acc = in_place ? out.raw_data() : scratch.data();
  if (bytes) MC_CUDA_CHECK(cudaMemsetAsync(acc, 0, bytes, s));
  run(acc, s);
  MC_CUDA_LAUNCH_CHECK();
  if (!in_place) {
    finish_accum(c, acc, out.raw_data(), out.numel(), s);
    MC_CUDA_LAUNCH_CHECK();
  }
}

DimIndexDesc dim_desc(const Shape& data, const Tensor& index, int64_t dim) {
  MC_CHECK(index.ndim() <= kMaxDims, Runtime, "a GPU GatherD takes at most ", kMaxDims,
           " dimensions, but got ", index.ndim(), ".");
  DimIndexDesc d{};
  d.ndim = static_cast<int>(index.ndim());
  d.dim = static_cast<int>(dim);
  d.n = data[static_cast<size_t>(dim)];
  const Shape st = contiguous_strides(data);
  for (int a = 0; a < d.ndim; ++a) {
    d.shape[a] = index.dim(a);
    d.xstride[a] = st[static_cast<size_t>(a)];
  }
  return d;
}

// Offsets of each index tuple of `indices` [..., K] into a contiguous tensor of `shape`.
NdDesc nd_desc(const NdIndexLayout& l, const Shape& shape) {
  MC_CHECK(l.k <= kMaxDims, Runtime, "a GPU scatter takes index tuples of at most ", kMaxDims,
           " components, but got ", l.k, ".");
  NdDesc d{};
  d.k = static_cast<int>(l.k);
  const Shape st = contiguous_strides(shape);
  for (int k = 0; k < d.k; ++k) {
    d.shape[k] = shape[static_cast<size_t>(k)];
    d.stride[k] = st[static_cast<size_t>(k)];
  }
  return d;
}

uint64_t value_bits(DType t, double v, std::string_view op) {
  const Scalar s = Scalar::from_float(v);
  uint64_t bits = 0;
  dispatch_all(t, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T x = s.to<T>();
    std::memcpy(&bits, &x, sizeof(T));
  });
  return bits;
}

}  // namespace

void check_index_errors(int index) {
  ErrorWord* w = error_word(index, false);
  if (!w || w->host[0] == 0) return;  // no indexing kernel yet, or no error
  // Claims the error (cleared at once, so it is raised once even when threads race).
  const int64_t op =
      __atomic_exchange_n(const_cast<int64_t*>(w->host), int64_t{0}, __ATOMIC_ACQ_REL);
  if (op == 0) return;
  const int64_t v = w->host[1];
  const char* name = op - 1 >= 0 && static_cast<size_t>(op - 1) < kNumOps
                         ? op_def(static_cast<OpId>(op - 1)).name
                         : "?";
  MC_THROW(Index, "For '", name, "' on GPU:", index, ", the index ", v,
           " is out of range. (GPU kernels run asynchronously, so this is reported later: by "
           "the next indexing op or wait for the device, such as reading a tensor's values; "
           "that output holds zeros, or skipped updates, in place of the bad index's.)");
}

void cuda_gather(const KernelContext& ctx) {
  const Tensor &params = ctx.in[0], &indices = ctx.in[1];
  const Tensor& out = ctx.out[0];
  const GatherLayout l = gather_layout(params, indices, ctx.attrs.get_int("axis"),
                                       ctx.attrs.get_int("batch_dims"), ctx.op.name);
  const int index = ctx.device.index;
  int64_t* err = checked_error_word(index);
  launch_gather(static_cast<int>(params.itemsize()), params.raw_data(), indices.raw_data(),
                idx64(indices), out.raw_data(), l.batch, l.outer, l.n, l.k, l.inner, err,
                static_cast<int>(ctx.op.id), stream(index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_gather_d(const KernelContext& ctx) {
  const Tensor &x = ctx.in[0], &index = ctx.in[1];
  const Tensor& out = ctx.out[0];
  const int64_t dim = normalize_axis(ctx.attrs.get_int("dim"), x.ndim(), ctx.op.name, "dim");
  const int dev = ctx.device.index;
  int64_t* err = checked_error_word(dev);
  launch_gather_d(static_cast<int>(x.itemsize()), x.raw_data(), index.raw_data(), idx64(index),
                  out.raw_data(), dim_desc(x.shape(), index, dim), index.numel(), err,
                  static_cast<int>(ctx.op.id), stream(dev));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_gather_d_grad(const KernelContext& ctx) {
  const Tensor &index = ctx.in[0], &dout = ctx.in[1];
  const Tensor& out = ctx.out[0];
  const int64_t dim = normalize_axis(ctx.attrs.get_int("dim"), out.ndim(), ctx.op.name, "dim");
  int64_t* err = checked_error_word(ctx.device.index);
  const DimIndexDesc d = dim_desc(out.shape(), index, dim);
  accumulate(ctx, out, [&](void* acc, cudaStream_t s) {
    launch_gather_d_grad(code(dout.dtype()), index.raw_data(), idx64(index), dout.raw_data(), acc,
                         d, index.numel(), err, static_cast<int>(ctx.op.id), s);
  });
}

void cuda_unsorted_segment_sum(const KernelContext& ctx) {
  const Tensor &x = ctx.in[0], &ids = ctx.in[1];
  const Tensor& out = ctx.out[0];
  const int64_t rows = ids.numel(), segs = out.dim(0);
  const int64_t cols = rows > 0 ? x.numel() / rows : 0;
  accumulate(ctx, out, [&](void* acc, cudaStream_t s) {
    launch_segment_sum(code(x.dtype()), x.raw_data(), ids.raw_data(), idx64(ids), acc, rows, cols,
                       segs, s);
  });
}

void cuda_scatter_nd(const KernelContext& ctx) {
  const Tensor &indices = ctx.in[0], &updates = ctx.in[1];
  const Tensor& out = ctx.out[0];
  const int dev = ctx.device.index;
  int64_t* err = checked_error_word(dev);
  const NdIndexLayout l = nd_index_layout(indices.shape(), out.shape());
  Buffer offs(dev, static_cast<size_t>(l.rows) * sizeof(int64_t));
  int64_t* o = static_cast<int64_t*>(offs.data());
  launch_nd_offsets(indices.raw_data(), idx64(indices), o, nd_desc(l, out.shape()), l.rows, err,
                    static_cast<int>(ctx.op.id), stream(dev));
  MC_CUDA_LAUNCH_CHECK();
  accumulate(ctx, out, [&](void* acc, cudaStream_t s) {
    launch_scatter_add(code(updates.dtype()), o, updates.raw_data(), acc, l.rows, l.slice, s);
  });
}

void cuda_tensor_scatter_update(const KernelContext& ctx) {
  const Tensor &x = ctx.in[0], &indices = ctx.in[1], &updates = ctx.in[2];
  const Tensor& out = ctx.out[0];
  const int dev = ctx.device.index;
  cudaStream_t s = stream(dev);
  int64_t* err = checked_error_word(dev);
  const NdIndexLayout l = nd_index_layout(indices.shape(), x.shape());
  out.copy_from(x);
  Buffer offs(dev, static_cast<size_t>(l.rows) * sizeof(int64_t));
  int64_t* o = static_cast<int64_t*>(offs.data());
  launch_nd_offsets(indices.raw_data(), idx64(indices), o, nd_desc(l, x.shape()), l.rows, err,
                    static_cast<int>(ctx.op.id), s);
  MC_CUDA_LAUNCH_CHECK();
  if (l.rows == 0 || l.slice == 0) return;
  // One owner slot per slice of out: the last row writing it (as the CPU's in-order rows).
  const size_t slots = static_cast<size_t>(out.numel() / l.slice);
  Buffer owner(dev, slots * sizeof(unsigned long long));
  if (slots) MC_CUDA_CHECK(cudaMemsetAsync(owner.data(), 0, slots * sizeof(unsigned long long), s));
  launch_scatter_update(static_cast<int>(x.itemsize()), o, updates.raw_data(), out.raw_data(),
                        static_cast<unsigned long long*>(owner.data()), l.rows, l.slice, s);
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_one_hot(const KernelContext& ctx) {
  const Tensor& ind = ctx.in[0];
  const Tensor& out = ctx.out[0];
  if (ind.dtype() == DType::Bool) throw_unsupported_dtype(ctx.op.name, ind.dtype(), "numeric");
  const int64_t depth = ctx.attrs.get_int("depth");
  const OneHotLayout l = one_hot_layout(ind, ctx.attrs.get_int("axis"));
  const int64_t outer = l.outer, inner = l.inner;
  const uint64_t on = value_bits(out.dtype(), ctx.attrs.get_float("on_value"), ctx.op.name);
  const uint64_t off = value_bits(out.dtype(), ctx.attrs.get_float("off_value"), ctx.op.name);
  launch_one_hot(static_cast<int>(out.itemsize()), code(ind.dtype()), ind.raw_data(),
                 out.raw_data(), outer, depth, inner, on, off, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

void cuda_range(const KernelContext& ctx) {
  const Tensor& out = ctx.out[0];
  launch_range(code(out.dtype()), out.raw_data(), out.numel(), ctx.attrs.get_float("start"),
               ctx.attrs.get_float("delta"), stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

}  // namespace mycel::cuda
