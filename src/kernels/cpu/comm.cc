// CPU kernels of the collective family (ops/defs/comm.def): each hands the tensors' host
// buffers to the communicator of the op's group (ctx.comm, comm/communicator.h), whose
// library (Gloo, MPI) moves and reduces them, after checking that every rank makes the same
// call (check_same_call; Send/Receive: the signature travels ahead of the data) unless
// MYCEL_COMM_CHECK=0, or, for an AllReduce, unless the ranks agreed on the call ahead of time
// (its `agreed` attribute). Each kernel first appends its row to the execution-order
// recorder (comm/exec_order.h), a no-op unless comm_exec_order_check("start") turned it on.
#include <cstring>

#include "comm/communicator.h"
#include "comm/exec_order.h"
#include "ops/op_table.h"

namespace mycel {

namespace {

ReduceOp reduce_op(const KernelContext& ctx) {
  return *reduce_op_from_name(ctx.attrs.get_str("op"));
}

// The rank_size (or split_count) the primitive was made with must be the group's size: a
// group released and made again with other ranks since is a ValueError, never a wrong shape.
void check_size(const KernelContext& ctx, const char* attr) {
  const int64_t n = ctx.attrs.get_int(attr);
  MC_CHECK(n == ctx.comm->size(), Value, "For '", ctx.op.name, "', the '", attr, "' is ", n,
           " but the group '", ctx.comm->group(), "' has ", ctx.comm->size(),
           " ranks (make the primitive again after changing the group).");
}

void check_peer(const KernelContext& ctx, const char* attr) {
  const int64_t r = ctx.attrs.get_int(attr);
  MC_CHECK(r < ctx.comm->size() && r != ctx.comm->rank(), Value, "For '", ctx.op.name, "', the '",
           attr, "' ", r, " is not another rank of the group '", ctx.comm->group(), "' (",
           ctx.comm->size(), " ranks; this is rank ", ctx.comm->rank(), ").");
}

size_t count(const Tensor& t) { return static_cast<size_t>(t.numel()); }

CallSignature signature(const KernelContext& ctx, const Tensor& t) {
  return {ctx.op.name, t.dtype(), t.shape().data(), t.shape().size()};
}

// The ranks agree on the call before the library sees the buffers (comm/communicator.h);
// with `carry`, the check carries a small input, whose result the kernel then computes from
// the gathered bytes (CallData::inlined).
CallData check_call(const KernelContext& ctx, const Tensor& t, bool carry = false) {
  return check_same_call(*ctx.comm, signature(ctx, t), carry ? t.raw_data() : nullptr,
                         carry ? t.nbytes() : 0);
}

// out = op over the ranks' inlined inputs, in rank order (every rank reduces the same bytes
// in the same order: the same result everywhere).
void reduce_inlined(const KernelContext& ctx, const CallData& cd, void* out, size_t n) {
  const DType t = ctx.in[0].dtype();
  std::memcpy(out, cd.data_of(0), n * dtype_size(t));
  for (int r = 1; r < ctx.comm->size(); ++r)
    reduce_into(t, reduce_op(ctx), out, out, cd.data_of(r), n);
}

// a's shape as [prod(a[:axis]), a[axis], prod(a[axis+1:])].
Shape around(const Shape& a, size_t axis) {
  int64_t pre = 1, post = 1;
  for (size_t d = 0; d < axis; ++d) pre *= a[d];
  for (size_t d = axis + 1; d < a.size(); ++d) post *= a[d];
  return {pre, a[axis], post};
}

size_t norm_axis(const KernelContext& ctx, const char* attr) {
  const int64_t a = ctx.attrs.get_int(attr), nd = ctx.in[0].ndim();
  return static_cast<size_t>(a < 0 ? a + nd : a);
}

// The call's row for the execution-order recorder (group ranks; -1: none).
void record(const KernelContext& ctx, int src = -1, int dest = -1, int root = -1) {
  CommOrderRecorder& r = CommOrderRecorder::instance();
  if (!r.recording()) return;
  const Tensor* in = ctx.in.empty() ? nullptr : &ctx.in[0];
  const Tensor* out = ctx.out.empty() ? nullptr : &ctx.out[0];
  r.record(*ctx.comm, std::string(ctx.op.name), in, out, src, dest, root);
}

}  // namespace

void cpu_all_reduce(const KernelContext& ctx) {
  record(ctx);
  const Tensor &x = ctx.in[0], &y = ctx.out[0];
  const int64_t agreed = ctx.attrs.get_int("agreed");  // comm/communicator.h, agree_on_call
  if (agreed == 0 || agreed != call_fingerprint(signature(ctx, x))) {
    const CallData cd = check_call(ctx, x, true);
    if (cd.inlined) return reduce_inlined(ctx, cd, y.raw_data(), count(y));
  }
  ctx.comm->all_reduce(x.raw_data(), y.raw_data(), count(y), y.dtype(), reduce_op(ctx));
}

void cpu_all_gather(const KernelContext& ctx) {
  record(ctx);
  check_size(ctx, "rank_size");
  const CallData cd = check_call(ctx, ctx.in[0], true);
  if (cd.inlined) {
    const size_t n = ctx.in[0].nbytes();
    char* out = static_cast<char*>(ctx.out[0].raw_data());
    for (int r = 0; r < ctx.comm->size(); ++r) std::memcpy(out + n * r, cd.data_of(r), n);
    return;
  }
  ctx.comm->all_gather(ctx.in[0].raw_data(), ctx.out[0].raw_data(), count(ctx.in[0]),
                       ctx.in[0].dtype());
}

void cpu_reduce_scatter(const KernelContext& ctx) {
  record(ctx);
  check_size(ctx, "rank_size");
  const CallData cd = check_call(ctx, ctx.in[0], true);
  if (cd.inlined) {
    std::vector<char> all(ctx.in[0].nbytes());
    reduce_inlined(ctx, cd, all.data(), count(ctx.in[0]));
    const size_t block = ctx.out[0].nbytes();
    std::memcpy(ctx.out[0].raw_data(), all.data() + block * ctx.comm->rank(), block);
    return;
  }
  ctx.comm->reduce_scatter(ctx.in[0].raw_data(), ctx.out[0].raw_data(), count(ctx.out[0]),
                           ctx.in[0].dtype(), reduce_op(ctx));
}

// Block j of split_dim goes to rank j: the input seen as [pre, n, c, post] is packed into
// [n, pre, c, post] so each block is contiguous; block i received is the output seen as
// [pre', n, c', post'] around concat_dim, written through the transposed view.
void cpu_all_to_all(const KernelContext& ctx) {
  record(ctx);
  check_size(ctx, "split_count");
  const int64_t n = ctx.comm->size();
  const Tensor &x = ctx.in[0], &y = ctx.out[0];
  check_call(ctx, x);
  const Shape xs = around(x.shape(), norm_axis(ctx, "split_dim"));
  Tensor send = Tensor::empty({n, xs[0], xs[1] / n, xs[2]}, x.dtype());
  strided_copy(send, x.view({xs[0], n, xs[1] / n, xs[2]}).permute({1, 0, 2, 3}));
  Shape block = x.shape();
  block[norm_axis(ctx, "split_dim")] /= n;
  const Shape bs = around(block, norm_axis(ctx, "concat_dim"));
  Tensor recv = Tensor::empty({n, bs[0], bs[1], bs[2]}, x.dtype());
  ctx.comm->all_to_all(send.raw_data(), recv.raw_data(), count(x) / static_cast<size_t>(n),
                       x.dtype());
  strided_copy(y.view({bs[0], n, bs[1], bs[2]}).permute({1, 0, 2, 3}), recv);
}

void cpu_comm_broadcast(const KernelContext& ctx) {
  const int64_t root = ctx.attrs.get_int("root_rank");
  MC_CHECK(root < ctx.comm->size(), Value, "For 'Broadcast', the 'root_rank' ", root,
           " is not a rank of the group '", ctx.comm->group(), "' (", ctx.comm->size(), " ranks).");
  record(ctx, -1, -1, static_cast<int>(root));
  for (size_t i = 0; i < ctx.in.size(); ++i) {
    const CallData cd = check_call(ctx, ctx.in[i], true);
    if (cd.inlined) {
      std::memcpy(ctx.out[i].raw_data(), cd.data_of(static_cast<int>(root)), ctx.out[i].nbytes());
      continue;
    }
    if (ctx.comm->rank() == root) ctx.out[i].copy_from(ctx.in[i]);
    ctx.comm->broadcast(ctx.out[i].raw_data(), count(ctx.out[i]), ctx.out[i].dtype(),
                        static_cast<int>(root));
  }
}

// With the call check on, its all-gather is the barrier.
void cpu_barrier(const KernelContext& ctx) {
  record(ctx);
  if (ctx.comm->checks_calls())
    check_same_call(*ctx.comm, {ctx.op.name, DType::Float32, nullptr, 0});
  else
    ctx.comm->barrier();
}

void cpu_send(const KernelContext& ctx) {
  check_peer(ctx, "dest_rank");
  const int dst = static_cast<int>(ctx.attrs.get_int("dest_rank"));
  const int tag = static_cast<int>(ctx.attrs.get_int("sr_tag"));
  record(ctx, -1, dst);
  send_checked(*ctx.comm, signature(ctx, ctx.in[0]), ctx.in[0].raw_data(), ctx.in[0].nbytes(), dst,
               tag);
}

void cpu_receive(const KernelContext& ctx) {
  check_peer(ctx, "src_rank");
  const int src = static_cast<int>(ctx.attrs.get_int("src_rank"));
  const int tag = static_cast<int>(ctx.attrs.get_int("sr_tag"));
  record(ctx, src);
  recv_checked(*ctx.comm, signature(ctx, ctx.out[0]), ctx.out[0].raw_data(), ctx.out[0].nbytes(),
               src, tag);
}

}  // namespace mycel
