// Backward rules of the collective family (ops/defs/comm.def). The cotangent of a collective
// is another collective over the same group: every rank runs the backward graph with the
// same calls in the same order, as it ran the forward one.
#include "compiler/ad/bprop.h"

#include "comm/process_groups.h"
#include "runtime/eager.h"

namespace mycel::ir {

namespace {

using Grads = std::vector<Node*>;

// Real floats only: the collectives' rules give complex inputs no cotangent.
bool is_real_float_node(const Node* n) { return is_floating(IrBuilder::dtype_of(n)); }

Attrs group_attrs(const Attrs& fwd, std::initializer_list<const char*> keep) {
  Attrs a;
  for (const char* k : keep) a.set(k, fwd.get(k));
  return a;
}

}  // namespace

// AllReduce, y = op over ranks r of x_r; each rank's dout is a cotangent of the same y:
//   sum:      dx = sum_r dout_r                    = AllReduce(sum)(dout)
//   max, min: dx = sum_r dout_r * [x == y]         (every rank that holds the extreme)
//   prod:     dx = sum_r dout_r * y / x
Grads bprop_all_reduce(BpropArgs& a) {
  if (!is_real_float_node(a.in[0])) return {nullptr};
  IrBuilder& b = a.b;
  Attrs sum = group_attrs(a.attrs, {"group"});
  sum.set("op", std::string("sum"));
  const std::string& op = a.attrs.get_str("op");
  if (op == "sum") return {b.prim(OpId::AllReduce, {a.dout}, sum)};
  Node* total = b.prim(OpId::AllReduce, {a.dout}, sum);
  if (op == "prod") return {b.div(b.mul(total, a.out), a.in[0])};
  return {b.mul(total, b.cast(b.equal(a.in[0], a.out), IrBuilder::dtype_of(a.in[0])))};
}

// AllGather, y = concat_r x_r: rank r's block of every rank's dout, summed:
//   dx = ReduceScatter(sum)(dout)
Grads bprop_all_gather(BpropArgs& a) {
  if (!is_real_float_node(a.in[0])) return {nullptr};
  Attrs rs = group_attrs(a.attrs, {"group", "rank_size"});
  rs.set("op", std::string("sum"));
  return {a.b.prim(OpId::ReduceScatter, {a.dout}, rs)};
}

// ReduceScatter (sum), y_r = block r of sum_r' x_r': x_r' block r feeds rank r's y only:
//   dx = AllGather(dout)
// Other reductions have no rule (as in MindSpore): a ValueError.
Grads bprop_reduce_scatter(BpropArgs& a) {
  if (!is_real_float_node(a.in[0])) return {nullptr};
  MC_CHECK(a.attrs.get_str("op") == "sum", Value,
           "For 'ReduceScatter', only op 'sum' has a gradient, but got op '", a.attrs.get_str("op"),
           "'.");
  return {a.b.prim(OpId::AllGather, {a.dout}, group_attrs(a.attrs, {"group", "rank_size"}))};
}

// AlltoAll moves blocks between ranks; its cotangent moves them back:
//   dx = AlltoAll(split_dim = concat_dim, concat_dim = split_dim)(dout)
Grads bprop_all_to_all(BpropArgs& a) {
  if (!is_real_float_node(a.in[0])) return {nullptr};
  Attrs back = group_attrs(a.attrs, {"group", "split_count"});
  back.set("split_dim", a.attrs.get("concat_dim"));
  back.set("concat_dim", a.attrs.get("split_dim"));
  return {a.b.prim(OpId::AlltoAll, {a.dout}, back)};
}

// Broadcast, y_r = x_root on every rank r: only the root's x feeds the outputs, every rank's:
//   dx = sum_r dy_r on the root (AllReduce), 0 elsewhere
// Every rank runs the AllReduce (an effect: the ranks' collectives must match), so the
// rule needs this process's rank in the group when it is built.
Grads bprop_broadcast(BpropArgs& a) {
  IrBuilder& b = a.b;
  ProcessGroups* pg = process_groups();
  MC_CHECK(pg != nullptr, Runtime,
           "For 'Broadcast', the gradient needs the communication: call "
           "mycel.communication.init() first.");
  const bool root =
      pg->group(a.attrs.get_str("group")).rank() == static_cast<int>(a.attrs.get_int("root_rank"));
  Attrs sum = group_attrs(a.attrs, {"group"});
  sum.set("op", std::string("sum"));
  Grads g;
  for (size_t i = 0; i < a.in.size(); ++i) {
    if (!is_real_float_node(a.in[i])) {
      g.push_back(nullptr);
      continue;
    }
    Node* total = b.prim(OpId::AllReduce, {b.tuple_get(a.dout, i)}, sum);
    a.effects->push_back(total);
    g.push_back(root ? total : b.prim(OpId::ZerosLike, {a.in[i]}));
  }
  return g;
}

// Point to point. A Send's x reaches the peer's Receive; the peer's backward sends the
// cotangent of what it received back, with the same tag over group_back:
//   Send(x -> dest):      dx = Receive(from dest, x's shape and dtype)
//   Receive(<- src) = y:  Send(dy -> src), no inputs to differentiate
// Both run even where no cotangent reaches the call (bprop_always; a zero one is sent), and
// are effects of the backward graph (BpropArgs::effects): the peer waits for them whether
// or not this rank uses the result.
Grads bprop_send(BpropArgs& a) {
  IrBuilder& b = a.b;
  Attrs r;
  r.set("sr_tag", a.attrs.get("sr_tag"));
  r.set("src_rank", a.attrs.get("dest_rank"));
  const Shape& shape = IrBuilder::shape_of(a.in[0]);
  r.set("shape", std::vector<int64_t>(shape.begin(), shape.end()));
  r.set("dtype", IrBuilder::dtype_of(a.in[0]));
  r.set("group", a.attrs.get("group_back"));
  r.set("group_back", a.attrs.get("group"));
  Node* dx = b.prim(OpId::Receive, {}, r);
  a.effects->push_back(dx);
  return {is_real_float_node(a.in[0]) ? dx : nullptr};
}

Grads bprop_receive(BpropArgs& a) {
  Attrs s;
  s.set("sr_tag", a.attrs.get("sr_tag"));
  s.set("dest_rank", a.attrs.get("src_rank"));
  s.set("group", a.attrs.get("group_back"));
  s.set("group_back", a.attrs.get("group"));
  Node* dout = a.dout;
  if (!is_real_float_node(a.out)) dout = a.b.prim(OpId::ZerosLike, {a.out});  // the peer waits
  a.effects->push_back(a.b.prim(OpId::Send, {dout}, s));
  return {};
}

bool bprop_always(OpId op) { return op == OpId::Send || op == OpId::Receive; }

}  // namespace mycel::ir
