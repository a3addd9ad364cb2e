// Executable::compile: turns each graph reachable from the entry into a linear instruction
// list over registers, with the liveness plan (kills and moves) described in vm.h; and
// Executable::dump, the listing.
#include <queue>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "base/error.h"
#include "ir/walk.h"
#include "runtime/vm_code.h"
#include "tensor/dynamic_shape.h"

namespace mycel::vm {

using namespace ir;

class Compiler {
 public:
  static std::unique_ptr<Executable> compile(FuncGraph* entry, const FusedKernels* fused) {
    MC_ASSERT(entry != nullptr && entry->module() != nullptr);
    std::unique_ptr<Executable> exe(new Executable());
    std::vector<FuncGraph*> graphs = entry->module()->reachable_graphs(entry);
    for (size_t i = 0; i < graphs.size(); ++i) {
      exe->index_[graphs[i]] = static_cast<int32_t>(i);
      exe->graphs_.push_back(std::make_unique<GraphCode>());
    }
    for (size_t i = 0; i < graphs.size(); ++i) {
      Compiler c(*exe, graphs[i], *exe->graphs_[i], fused);
      c.emit_graph();
      c.plan_liveness();
      if (i == 0) c.plan_result_items();
    }
    return exe;
  }

 private:
  Compiler(const Executable& exe, FuncGraph* g, GraphCode& gc, const FusedKernels* fused)
      : exe_(exe), g_(g), gc_(gc), fused_(fused) {}

  // The generated kernel of a call of graph constant `cv`, or null.
  std::shared_ptr<const FusedKernel> fused_kernel(const Value* cv) const {
    if (fused_ == nullptr || cv == nullptr || !cv->is(ValueKind::Graph)) return nullptr;
    auto it = fused_->find(cv->as_graph());
    return it == fused_->end() ? nullptr : it->second;
  }

  Operand add_const(const ValueNode* v) {
    auto it = consts_.find(v);
    if (it != consts_.end()) return it->second;
    gc_.consts.push_back(v->value());
    Operand o = ~static_cast<int32_t>(gc_.consts.size() - 1);
    consts_[v] = o;
    return o;
  }

  Operand operand(const Node* n, const CNode* user) {
    if (n->is_value()) return add_const(static_cast<const ValueNode*>(n));
    auto it = regs_.find(n);
    MC_ASSERT(it != regs_.end(), "executor: node %", n->id(), " used by %", user ? user->id() : 0u,
              " in @", g_->name(),
              " is not of this graph (free "
              "variables must be lambda-lifted before execution)");
    return it->second;
  }

  int32_t graph_index(const FuncGraph* g) const {
    auto it = exe_.index_.find(g);
    MC_ASSERT(it != exe_.index_.end(), "executor: graph @", g->name(), " was not compiled");
    return it->second;
  }

  void add_operands(Instr& in, const CNode* c, size_t first) {
    in.args_begin = static_cast<uint32_t>(gc_.operands.size());
    for (size_t i = first; i < c->size(); ++i) gc_.operands.push_back(operand(c->input(i), c));
    in.nargs = static_cast<uint32_t>(gc_.operands.size() - in.args_begin);
  }

  // The output metas of a prim call from the node's abstract: a Tensor, or a Tuple of
  // Tensors. Anything else (hand-built IR without abstracts) infers at run time, and so does
  // a call with a dynamic shape among its inputs or outputs (its metas are then checked
  // against the run-time ones).
  static void set_metas(Instr& in, const CNode* c) {
    const ir::AbsPtr& a = c->abstract();
    if (a && a->kind == AbsKind::Tensor) {
      in.metas.push_back(a->meta());
    } else if (a && a->kind == AbsKind::Tuple) {
      bool all = true;
      for (const auto& e : a->elems) all = all && e && e->kind == AbsKind::Tensor;
      if (all) {
        for (const auto& e : a->elems) in.metas.push_back(e->meta());
        in.tuple_out = true;
      }
    }
    if (in.metas.empty()) {
      in.infer = true;
      return;
    }
    bool dynamic = false;
    for (const TensorMeta& m : in.metas) dynamic = dynamic || is_dynamic(m.shape);
    for (size_t k = 1; k < c->size() && !dynamic; ++k) {
      const ir::AbsPtr& ia = c->input(k)->abstract();
      dynamic = ia && ia->kind == AbsKind::Tensor && is_dynamic(ia->shape);
    }
    in.infer = in.check = dynamic;
  }

  void emit_graph() {
    gc_.name = g_->name();
    gc_.graph = g_;
    gc_.nparams = static_cast<uint32_t>(g_->params().size());
    int32_t next = 0;
    for (const ir::Parameter* p : g_->params()) {
      regs_[p] = next++;
      gc_.param_abs.push_back(p->abstract());
    }
    MC_ASSERT(g_->output() != nullptr, "executor: @", g_->name(), " has no output");
    std::vector<CNode*> order = schedule();
    // The value returned, under depend()s; a call there is a tail call when it runs last.
    Node* out = g_->output();
    while (is_depend(out)) out = static_cast<CNode*>(out)->input(1);
    const CNode* last = nullptr;
    for (CNode* c : order)
      if (!is_depend(c)) last = c;
    for (CNode* c : order) {
      if (is_depend(c)) {
        // depend(x, effects...) is x, its effects scheduled first; nothing reads a depend()
        // over the tail call.
        if (!tail_called_.count(c->input(1)))
          regs_[c] = operand(c->input(1), c);
        else
          tail_called_.insert(c);
        continue;
      }
      Instr in;
      in.span = c->span();
      const Node* callee = c->callee();
      bool tail = c == out && c == last;
      const Value* cv =
          callee->is_value() ? &static_cast<const ValueNode*>(callee)->value() : nullptr;
      if (cv && cv->is(ValueKind::Prim)) {
        in.code = OpCode::Prim;
        in.callee = add_const(static_cast<const ValueNode*>(callee));
        const ir::PrimData& pd = gc_.consts[const_index(in.callee)].as_prim();
        in.op = pd.op;
        in.attrs = &pd.attrs;
        add_operands(in, c, 1);
        MC_ASSERT(
            pd.op->num_inputs == kVariadic || in.nargs == static_cast<uint32_t>(pd.op->num_inputs),
            "executor: ", pd.op->name, " called with ", in.nargs, " inputs in @", g_->name());
        set_metas(in, c);
        // Buffer reuse candidates: inputs of an elementwise op with the output's meta.
        if (pd.op->id >= OpId::Neg && pd.op->id <= OpId::LogicalOr && !in.infer && !in.tuple_out) {
          for (size_t k = 1; k < c->size() && in.reuse < 0; ++k) {
            const ir::AbsPtr& a = c->input(k)->abstract();
            if (c->input(k)->is_value() || !a || a->kind != AbsKind::Tensor) continue;
            if (a->dtype == in.metas[0].dtype && a->shape == in.metas[0].shape)
              reuse_candidates_.push_back({gc_.code.size(), static_cast<uint32_t>(k - 1)});
          }
        }
        tail = false;
      } else if (cv && cv->is(ValueKind::Builtin)) {
        Builtin b = cv->as_builtin();
        MC_ASSERT(ir::builtin_executes(b), "executor: builtin ", ir::builtin_name(b), " in @",
                  g_->name(), " should have been removed by specialisation");
        int arity = ir::builtin_arity(b);
        MC_ASSERT(arity < 0 || static_cast<size_t>(arity) + 1 == c->size(),
                  "executor: ", ir::builtin_name(b), " with ", c->size() - 1, " arguments");
        in.code = OpCode::Builtin;
        in.builtin = b;
        add_operands(in, c, 1);
        tail = false;
      } else if (std::shared_ptr<const FusedKernel> k = fused_kernel(cv)) {
        in.code = OpCode::Fused;
        in.callee = add_const(static_cast<const ValueNode*>(callee));
        in.fused = k.get();
        in.target = graph_index(cv->as_graph());  // run as a call under a recorder (vm_run.cc)
        in.tuple_out = c->abstract() && c->abstract()->kind == AbsKind::Tuple;
        fused_donatable_.emplace_back(gc_.code.size(), k->donatable());
        gc_.fused.push_back(std::move(k));
        add_operands(in, c, 1);
        tail = false;
      } else {
        in.code = tail ? OpCode::TailCall : OpCode::Call;
        in.callee = operand(callee, c);
        if (cv && cv->is(ValueKind::Graph)) in.target = graph_index(cv->as_graph());
        add_operands(in, c, 1);
      }
      if (in.code == OpCode::TailCall) tail_called_.insert(c);
      if (!tail || in.code != OpCode::TailCall) {
        in.out = next;
        regs_[c] = next++;
      }
      gc_.code.push_back(std::move(in));
    }
    if (gc_.code.empty() || gc_.code.back().code != OpCode::TailCall) {
      // (A Return also follows a depend() whose value was computed before its effects.)
      Instr ret;
      ret.code = OpCode::Return;
      ret.callee = operand(g_->output(), nullptr);
      ret.span = g_->output()->span();
      gc_.code.push_back(std::move(ret));
    }
    gc_.nregs = static_cast<uint32_t>(next);
  }

  // The registers of the returned tuple's items (GraphCode::result_items), when the graph
  // returns a make_tuple of its own.
  void plan_result_items() {
    const Instr& ret = gc_.code.back();
    if (ret.code != OpCode::Return || is_const_operand(ret.callee)) return;
    for (const Instr& in : gc_.code) {
      if (in.out != ret.callee) continue;
      if (in.code != OpCode::Builtin || in.builtin != Builtin::MakeTuple) return;
      gc_.is_item.assign(gc_.nregs, 0);
      for (uint32_t k = 0; k < in.nargs; ++k) {
        Operand o = gc_.operands[in.args_begin + k];
        if (is_const_operand(o)) continue;
        gc_.result_items.emplace_back(o, k);
        gc_.is_item[static_cast<size_t>(o)] = 1;
      }
      return;
    }
  }

  static bool is_depend(const Node* n) {
    return n->is_cnode() && static_cast<const CNode*>(n)->is_builtin(Builtin::Depend);
  }

  // The CNodes of g in execution order: inputs before users, the graph's effects (in order)
  // before its output, and in depend(x, effects...) the effects before x. (Module::toposort
  // would run x first, and a loop's tail call under a depend() would then not be last.)
  std::vector<CNode*> schedule() const {
    std::vector<Node*> roots = g_->effects;
    roots.push_back(g_->output());
    const Node* result = g_->output();  // the value returned: depend(x, effects...) is x
    while (is_depend(result)) result = static_cast<const CNode*>(result)->input(1);
    return hoist_sinks(ir::toposort(g_, roots, ir::DependOrder::EffectsFirst), result);
  }

  static bool is_collective(const CNode* c) {
    const ir::PrimData* p = c->prim();
    return p != nullptr && (p->op->flags & F_COLLECTIVE) != 0;
  }

  // Whether c writes some of its inputs (an F_INPLACE prim: an optimizer's update, Assign).
  static bool is_update(const CNode* c) {
    const ir::PrimData* p = c->prim();
    return p != nullptr && (p->op->flags & F_INPLACE) != 0;
  }

  // Whether c may run earlier than its place without changing any result: a prim without
  // effects (kEffectFlags) or a tuple builtin.
  static bool is_pure(const CNode* c) {
    if (const ir::PrimData* p = c->prim()) return (p->op->flags & kEffectFlags) == 0;
    return c->is_builtin(Builtin::MakeTuple) || c->is_builtin(Builtin::GetItem);
  }

  // Sinks and their cones move up: a sink runs, after its cone, as soon as everything the
  // cone reads from outside is computed. The sinks are
  //   - the collectives: the executor runs them on the communication queue while the graph
  //     computes on, and waits where their results are read (data parallelism's gradient
  //     buckets start while the backward pass runs);
  //   - the pure items of a returned make_tuple: a PYNATIVE backward reports each gradient
  //     as soon as it is computed (vm::ResultObserver);
  //   - the pure inputs of updates (is_update): in a training step, the gradient an
  //     optimizer's update reads. The effects come in parameter order, first layer first, so
  //     without this the depth-first order computes every weight's gradient after the whole
  //     backward chain, keeping each layer's activation and activation gradient alive until
  //     then (two tensors per layer); hoisted, a weight's gradient is computed as soon as its
  //     layer's activation gradient is, and both die early, as in a returned tuple.
  // A sink's cone is the pure nodes that lead to it alone (every user in the cone, every
  // path to a sink reaching it first): in a
  // backward graph, the MatMul computing a weight's gradient from the activation gradient,
  // or the concatenation of a bucket. What several sinks share stays in its place, and so
  // cones are not computed before their sink can be (no value is held longer than needed).
  // Collectives keep their order among themselves; of sinks ready at once, the one with the
  // smaller cone runs first; every rank schedules the same graph the same way.
  static std::vector<CNode*> hoist_sinks(const std::vector<CNode*>& order, const Node* output) {
    const size_t n = order.size();
    std::unordered_map<const Node*, size_t> pos;
    for (size_t i = 0; i < n; ++i) pos[order[i]] = i;
    std::vector<std::vector<size_t>> users(n);
    for (size_t i = 0; i < n; ++i)
      for (size_t k = 1; k < order[i]->size(); ++k) {
        auto it = pos.find(order[i]->input(k));
        if (it != pos.end()) users[it->second].push_back(i);
      }
    const bool tuple_out =
        output->is_cnode() && static_cast<const CNode*>(output)->is_builtin(Builtin::MakeTuple);
    constexpr size_t kNone = SIZE_MAX, kMany = SIZE_MAX - 1;
    // after_comm[i]: i is pure and reads a collective's result, directly or through pure
    // nodes. Such an update input stays in place: hoisted, it would wait for the collective
    // right after issuing it, and the backward would no longer overlap the communication.
    std::vector<uint8_t> sink(n, 0), after_comm(n, 0);
    size_t num_sinks = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!is_pure(order[i])) continue;
      for (size_t k = 1; k < order[i]->size(); ++k) {
        auto it = pos.find(order[i]->input(k));
        if (it != pos.end() && (is_collective(order[it->second]) || after_comm[it->second]))
          after_comm[i] = 1;
      }
    }
    for (size_t i = 0; i < n; ++i) {
      bool item = false;
      for (size_t u : users[i])
        item = item || (tuple_out && order[u] == output) || (is_update(order[u]) && !after_comm[i]);
      sink[i] = order[i] != output && (is_collective(order[i]) || (item && is_pure(order[i])));
      num_sinks += sink[i];
    }
    if (num_sinks == 0) return order;
    // cone[i]: the sink whose cone holds i (itself for a sink), or kNone.
    std::vector<size_t> reach(n, kNone), cone(n, kNone);
    for (size_t i = n; i-- > 0;) {
      bool exclusive = is_pure(order[i]) && order[i] != output;
      for (size_t u : users[i]) {  // the first sinks on the paths from i
        const size_t x = sink[u] ? u : reach[u];
        if (x != kNone) reach[i] = reach[i] == kNone || reach[i] == x ? x : kMany;
        exclusive = exclusive && cone[u] != kNone;
      }
      if (sink[i]) {
        cone[i] = i;
      } else if (exclusive && reach[i] < kMany) {
        cone[i] = reach[i];
      }
    }
    // Each sink's members in order, and what it waits for: the nodes its cone reads from
    // outside, and for a collective the collective before it.
    std::vector<std::vector<size_t>> members(n), triggers(n);
    std::vector<size_t> waiting(n, 0), stamp(n, kNone);
    for (size_t i = 0; i < n; ++i)
      if (cone[i] != kNone) members[cone[i]].push_back(i);
    for (size_t i = 0, prev = kNone; i < n; ++i) {
      if (!sink[i]) continue;
      for (size_t m : members[i])
        for (size_t k = 1; k < order[m]->size(); ++k) {
          auto it = pos.find(order[m]->input(k));
          if (it == pos.end() || cone[it->second] == i || stamp[it->second] == i) continue;
          stamp[it->second] = i;
          triggers[it->second].push_back(i);
          ++waiting[i];
        }
      if (is_collective(order[i])) {
        if (prev != kNone) {
          triggers[prev].push_back(i);
          ++waiting[i];
        }
        prev = i;
      }
    }
    std::vector<uint8_t> emitted(n, 0);
    // Sinks ready at once: the smaller cone first (it is done sooner), then in order.
    auto later = [&](size_t x, size_t y) {
      return std::pair(members[x].size(), x) > std::pair(members[y].size(), y);
    };
    std::priority_queue<size_t, std::vector<size_t>, decltype(later)> ready(later);
    std::vector<CNode*> out;
    out.reserve(n);
    auto emit = [&](size_t i) {
      out.push_back(order[i]);
      emitted[i] = 1;
      for (size_t s : triggers[i])
        if (--waiting[s] == 0) ready.push(s);
    };
    auto drain = [&] {
      while (!ready.empty()) {
        size_t s = ready.top();
        ready.pop();
        for (size_t m : members[s]) emit(m);
      }
    };
    for (size_t i = 0; i < n; ++i)
      if (sink[i] && waiting[i] == 0) ready.push(i);
    drain();
    for (size_t i = 0; i < n; ++i) {
      if (emitted[i] || cone[i] != kNone) continue;  // a cone runs with its sink
      emit(i);
      drain();
    }
    MC_ASSERT(out.size() == n, "executor: hoist_sinks scheduled ", out.size(), " of ", n, " nodes");
    return out;
  }

  // Last uses: a register dies after the last instruction that reads it (or right after its
  // definition when nothing does; parameters nothing reads die at frame entry). Return and
  // TailCall discard the whole frame, so they kill nothing; their operands are moved.
  void plan_liveness() {
    std::vector<int64_t> last(gc_.nregs, -1);
    for (size_t i = 0; i < gc_.code.size(); ++i) {
      const Instr& in = gc_.code[i];
      int64_t at = static_cast<int64_t>(i);
      if (in.out >= 0) last[static_cast<size_t>(in.out)] = at;
      if (!is_const_operand(in.callee) && in.code != OpCode::Prim && in.code != OpCode::Builtin)
        last[static_cast<size_t>(in.callee)] = at;
      for (uint32_t k = 0; k < in.nargs; ++k) {
        Operand o = gc_.operands[in.args_begin + k];
        if (!is_const_operand(o)) last[static_cast<size_t>(o)] = at;
      }
    }
    gc_.moves.assign(gc_.operands.size(), 0);
    // An elementwise op may write into an input that dies here (and is not passed twice)
    // when a kernel of this graph allocated it: not a view, an argument or a host's tensor
    // (which may wrap memory someone else owns).
    // A generated kernel allocates its outputs too (or writes into a donated fresh input):
    // its single result is fresh, and so is each item a getitem takes from its tuple (the
    // run-time check sees the tuple's reference while the tuple lives).
    std::vector<uint8_t> fresh(gc_.nregs, 0), fused_tuple(gc_.nregs, 0);
    for (const Instr& in : gc_.code) {
      if (in.out < 0) continue;
      auto out = static_cast<size_t>(in.out);
      if (in.code == OpCode::Prim && !in.infer && !(in.op->flags & F_VIEW) && !in.tuple_out)
        fresh[out] = 1;
      if (in.code == OpCode::Fused) (in.tuple_out ? fused_tuple : fresh)[out] = 1;
      if (in.code == OpCode::Builtin && in.builtin == Builtin::GetItem && in.nargs == 2) {
        Operand t = gc_.operands[in.args_begin];
        if (!is_const_operand(t) && fused_tuple[static_cast<size_t>(t)]) fresh[out] = 1;
      }
    }
    for (auto [i, k] : reuse_candidates_) {
      Instr& in = gc_.code[i];
      Operand o = gc_.operands[in.args_begin + k];
      if (in.reuse >= 0 || !fresh[static_cast<size_t>(o)] ||
          last[static_cast<size_t>(o)] != static_cast<int64_t>(i))
        continue;
      int uses = 0;
      for (uint32_t j = 0; j < in.nargs; ++j) uses += gc_.operands[in.args_begin + j] == o;
      if (uses == 1) in.reuse = static_cast<int8_t>(k);
    }
    // A Fused call donates the fresh inputs that die at it (and are not passed twice) where
    // its kernel can store an output into them.
    gc_.donates.assign(gc_.operands.size(), 0);
    for (const auto& [i, can] : fused_donatable_) {
      const Instr& in = gc_.code[i];
      for (uint32_t k = 0; k < in.nargs && k < can.size(); ++k) {
        Operand o = gc_.operands[in.args_begin + k];
        if (!can[k] || is_const_operand(o) || !fresh[static_cast<size_t>(o)] ||
            last[static_cast<size_t>(o)] != static_cast<int64_t>(i))
          continue;
        int uses = 0;
        for (uint32_t j = 0; j < in.nargs; ++j) uses += gc_.operands[in.args_begin + j] == o;
        if (uses == 1) gc_.donates[in.args_begin + k] = 1;
      }
    }
    std::vector<std::vector<int32_t>> dying(gc_.code.size());
    for (uint32_t r = 0; r < gc_.nregs; ++r) {
      if (last[r] < 0) {
        gc_.entry_kills.push_back(static_cast<int32_t>(r));  // an unused parameter
        continue;
      }
      dying[static_cast<size_t>(last[r])].push_back(static_cast<int32_t>(r));
    }
    for (size_t i = 0; i < gc_.code.size(); ++i) {
      Instr& in = gc_.code[i];
      bool frame_ends = in.code == OpCode::Return || in.code == OpCode::TailCall;
      if (in.code == OpCode::Call || in.code == OpCode::TailCall) {
        // Move a dying argument into the callee's frame (its last occurrence only, and not
        // when it is also the callee, which is read after the arguments are gathered).
        for (uint32_t k = in.nargs; k-- > 0;) {
          Operand o = gc_.operands[in.args_begin + k];
          if (is_const_operand(o) || o == in.callee ||
              last[static_cast<size_t>(o)] != static_cast<int64_t>(i))
            continue;
          bool later = false;
          for (uint32_t j = k + 1; j < in.nargs; ++j) later |= gc_.operands[in.args_begin + j] == o;
          if (!later) gc_.moves[in.args_begin + k] = 1;
        }
      }
      in.kill_begin = static_cast<uint32_t>(gc_.kills.size());
      if (!frame_ends) {
        for (int32_t r : dying[i]) gc_.kills.push_back(r);
      }
      in.nkill = static_cast<uint32_t>(gc_.kills.size() - in.kill_begin);
    }
  }

  const Executable& exe_;
  FuncGraph* g_;
  GraphCode& gc_;
  const FusedKernels* fused_;  // may be null
  std::unordered_map<const Node*, Operand> regs_;
  std::unordered_map<const ValueNode*, Operand> consts_;
  std::unordered_set<const Node*> tail_called_;
  std::vector<std::pair<size_t, uint32_t>>
      reuse_candidates_;  // (instruction, argument)  // the tail call and depend()s over it
  // Fused instructions and their kernels' donatable() flags.
  std::vector<std::pair<size_t, std::vector<uint8_t>>> fused_donatable_;
};

Executable::Executable() = default;
Executable::~Executable() = default;

std::unique_ptr<Executable> Executable::compile(ir::FuncGraph* entry, const FusedKernels* fused) {
  return Compiler::compile(entry, fused);
}

namespace {

std::string short_value(const Value& v) {
  std::string s = v.to_string();
  if (s.size() > 48) s = s.substr(0, 45) + "...";
  return s;
}

std::string operand_str(const GraphCode& gc, Operand o) {
  if (is_const_operand(o)) return short_value(gc.consts[const_index(o)]);
  return str("r", o);
}

std::string metas_str(const Instr& in) {
  auto one = [](const TensorMeta& m) {
    return std::string(ir::dtype_short_name(m.dtype)) + shape_str(m.shape);
  };
  if (in.infer && !in.check) return "?";
  if (!in.tuple_out) return one(in.metas[0]);
  std::string s = "tuple(";
  for (size_t i = 0; i < in.metas.size(); ++i) s.append(i ? ", " : "").append(one(in.metas[i]));
  return s + ")";
}

}  // namespace

std::string Executable::dump() const {
  std::ostringstream os;
  for (const auto& gp : graphs_) {
    const GraphCode& gc = *gp;
    os << '@' << gc.name << '(';
    for (uint32_t p = 0; p < gc.nparams; ++p) os << (p ? ", r" : "r") << p;
    os << "): " << gc.nregs << " registers, " << gc.consts.size() << " constants\n";
    if (!gc.entry_kills.empty()) {
      os << "        free";
      for (int32_t r : gc.entry_kills) os << " r" << r;
      os << '\n';
    }
    for (size_t i = 0; i < gc.code.size(); ++i) {
      const Instr& in = gc.code[i];
      std::ostringstream line;
      line << "  " << (i < 10 ? "  " : i < 100 ? " " : "") << i << "  ";
      if (in.out >= 0) line << 'r' << in.out << " = ";
      auto args = [&] {
        line << '(';
        for (uint32_t k = 0; k < in.nargs; ++k) {
          if (k) line << ", ";
          if (gc.moves.size() > in.args_begin + k && gc.moves[in.args_begin + k]) line << "move ";
          if (gc.donates.size() > in.args_begin + k && gc.donates[in.args_begin + k])
            line << "donate ";
          line << operand_str(gc, gc.operands[in.args_begin + k]);
        }
        line << ')';
      };
      switch (in.code) {
        case OpCode::Prim:
          line << operand_str(gc, in.callee);
          args();
          line << " : " << metas_str(in);
          if (in.reuse >= 0)
            line << " in " << operand_str(gc, gc.operands[in.args_begin + in.reuse]);
          break;
        case OpCode::Builtin:
          line << ir::builtin_name(in.builtin);
          args();
          break;
        case OpCode::Fused:
          line << "fused " << operand_str(gc, in.callee);
          args();
          break;
        case OpCode::Call:
        case OpCode::TailCall:
          line << (in.code == OpCode::Call ? "call " : "tailcall ") << operand_str(gc, in.callee);
          args();
          break;
        case OpCode::Return:
          line << "return " << operand_str(gc, in.callee);
          break;
      }
      std::string s = line.str();
      if (in.nkill > 0) {
        if (s.size() < 44) s.resize(44, ' ');
        s += "  free";
        for (uint32_t k = 0; k < in.nkill; ++k) s += str(" r", gc.kills[in.kill_begin + k]);
      }
      os << s << '\n';
    }
  }
  return os.str();
}

}  // namespace mycel::vm
