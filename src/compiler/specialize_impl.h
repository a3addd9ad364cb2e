// The specialiser's internals, shared by specialize*.cc (see specialize.h for what it does).
#pragma once

#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/specialize.h"

namespace mycel::ir::spec {

using KwNodes = std::vector<std::pair<std::string, Node*>>;

// One specialisation context: a source graph, the context of its enclosing graph (for free
// variables), and the argument abstracts. Its result is one graph of the output module.
struct Ctx {
  FuncGraph* src = nullptr;
  Ctx* parent = nullptr;
  std::vector<AbsPtr> args;
  FuncGraph* out = nullptr;
  std::unordered_map<Node*, Node*> map;  // source node -> output node
  AbsPtr ret;                            // null while unknown (recursion in progress)
  uint64_t seq = 0;                      // creation order
  bool done = false;
  bool active = false;
  bool used_provisional = false;  // a recursive call read `ret` before it was final
  bool stale = false;             // built on a provisional result; not reused
  int round = 0;                  // rebuilds so far (recursion reaching a fixed point)
  bool tainted = false;           // no result yet because a recursion is being solved
  // Program order of effects (see "State" in specialize.h): the node after which the next
  // read of a Parameter or effect must run (null: none yet), the token passed for it to
  // calls (made on demand), and whether this context has effects its callers must order.
  Node* state = nullptr;
  Node* token = nullptr;
  bool effects = false;
  // Recompute: kRecomputeAttr's mark for the ops emitted here (0: none), the scope of the
  // recomputed Cell call this context was made in (contexts differ by it).
  int64_t recompute = 0;
  // Downward closures (see "Function values" in Specializer): the contexts whose closures
  // this context's graph calls directly although they are not on its static chain. Its
  // graph then captures their values, so it is reused only while they are on the stack.
  std::vector<const Ctx*> pins;
  // Unrolled loops without recursion per iteration (see "Unrolled loops" in Specializer,
  // specialize_unroll.cc). iter: the entries of the same graph and parent before this one
  // (a loop's iteration number; the unrolling limits count it).
  int iter = 0;
  bool pending = false;          // a deferred iteration its driver has not run yet
  Ctx* driver = nullptr;         // whose context_for runs it (deferred contexts)
  std::vector<Ctx*> queue;       // a driver's deferred iterations, in order
  Ctx* waits_on = nullptr;       // ret is that context's, not known yet (a tail call of it)
  std::vector<Ctx*> waiters;     // contexts waiting on this one's ret
  std::vector<Node*> ret_nodes;  // nodes whose abstract is this one's ret, once known
};

// The scoping of the source IR (specialize_scopes.cc): what each graph of the front end
// evaluates, and which graphs own its free variables. The walk follows it: a graph's
// statements run in region order, and a graph value's context is the innermost context on
// the chain whose graph is one of its owners.
//
//   region(g)  the CNodes Python evaluates in g's region, in source (creation) order: those
//              reachable from g's output and effects, and those of g that only graphs nested
//              in g use, at any depth (`red = flat[0]` after an inner loop is a node of the
//              loop's exit graph, read only by the body of the loop that follows it).
//   owners(g)  the graphs owning free variables of g or of the graphs g refers to, directly
//              or through others, g excluded at each step: a graph reached only through g
//              (nested in it) owns nothing of g's. Free variables of region nodes count, so
//              `red`'s read of the first loop's phi makes that loop's header an owner of the
//              exit graph and of everything that refers to it.
//
// Both are computed at once for a group of graphs closed under references and free
// variables (a parsed function with its blocks and nested defs, which only use each other's
// nodes), when one of them is first asked about; functions parsed later form their own.
class SourceScopes {
 public:
  const std::vector<CNode*>& region(FuncGraph* g) { return scope(g).region; }
  const std::unordered_set<FuncGraph*>& owners(FuncGraph* g) { return scope(g).owners; }

 private:
  struct Scope {
    std::vector<CNode*> region;
    std::vector<FuncGraph*> refs;  // graphs its region and output refer to
    std::unordered_set<FuncGraph*> owners;
  };
  Scope& scope(FuncGraph* g);
  void analyse(FuncGraph* root);
  std::unordered_map<FuncGraph*, Scope> scopes_;
};

// How much of a gradient call grad_call expands: all of it; only vjp(@W, (w...), x...), the
// forward (returned); or the rest, from such a node made earlier (ops.vjp: vjp_half).
enum class GradHalf { kWhole, kForward, kBackward };

class Specializer {
 public:
  Specializer(Module& src, Module& out, Host& host) : src_(src), out_(out), host_(host) {}
  Specialized run(const Value& fn, const std::vector<AbsPtr>& args);

  // ---- engine (specialize.cc)
  // The value of n in context c (n may belong to an enclosing context). Operands are
  // evaluated first with an explicit stack, so long chains of nodes do not recurse.
  Node* eval(Node* n, Ctx* c);
  Node* call(Ctx* c, Node* fn, std::vector<Node*> args, KwNodes kw, const SourceSpan& sp);
  // tail: the call is the output of c's graph, and c is the context being specialised (see
  // "Unrolled loops").
  Node* call_graph(Ctx* c, FuncGraph* g, Ctx* pctx, std::vector<Node*> args, KwNodes kw,
                   const SourceSpan& sp, bool tail = false);
  Node* constant(const Value& v, const SourceSpan& sp = {});
  Node* bottom();  // the value of a call whose result is not known yet (recursion)
  static bool is_bottom(Node* n) { return n->abstract() == nullptr; }
  CNode* emit(Ctx* c, std::vector<Node*> inputs, AbsPtr abs, const SourceSpan& sp);
  CNode* emit_builtin(Ctx* c, Builtin b, std::vector<Node*> args, AbsPtr abs, const SourceSpan& sp);
  Node* weight(const Value& param);  // the entry parameter standing for a Parameter
  // ---- program order of effects (specialize_effects.cc)
  // A read of a Parameter at this point of c: the weight, after c's last effect.
  Node* read_weight(Ctx* c, const Value& param);
  // Whether n is a parameter of a specialised graph (through depends): a weight or argument
  // of the entry, or a value a caller passed down (an entry argument reaches the Cell's
  // construct and the functions it calls this way) — a tensor that an update may write,
  // so it is read again where an op uses it.
  bool is_graph_param(const Node* n) const;
  // Whether an op reading n at this point must read it after the state: a parameter (above),
  // or a tensor an update wrote or a graph call with effects took as an argument (written_).
  bool read_after_effects(const Node* n) const;
  // n (a written input of an update, or a tensor argument of a call with effects) may hold
  // new values from here on.
  void mark_written(const Node* n);
  // x, ordered after c's last effect (x itself when there is none).
  Node* after_state(Ctx* c, Node* x, const SourceSpan& sp);
  // n is an effect of c: later reads and effects run after it.
  void took_effect(Ctx* c, Node* n);
  // A call of graph context k from c (the call node `call`): c's state follows k's effects.
  void after_call(Ctx* c, const Ctx* k, Node* call);
  // Appends c's state token (when c has a state) to a graph call's arguments and abstracts.
  void pass_state(Ctx* c, std::vector<Node*>& args, std::vector<AbsPtr>* abs, const SourceSpan& sp);
  [[noreturn]] void fail(ErrorKind kind, const SourceSpan& sp, const std::string& msg);
  void warn(const SourceSpan& sp, const std::string& msg);
  Host& host() { return host_; }
  Module& src() { return src_; }

  // ---- calls of builtins and host callables (specialize_builtins.cc)
  Node* builtin(Ctx* c, Builtin b, std::vector<Node*> args, KwNodes kw, const SourceSpan& sp);
  Node* call_host(Ctx* c, Node* fn, std::vector<Node*> args, KwNodes kw, const SourceSpan& sp);
  Node* getattr(Ctx* c, Node* obj, const std::string& name, const SourceSpan& sp);
  // An attribute of a struct value (a tuple (class, fields...), specialize_builtins.cc).
  Node* struct_attr(Ctx* c, Node* obj, const Value& cls, const std::string& name,
                    const SourceSpan& sp);
  // Whether a is a struct value / holds one (at any depth of tuples and lists).
  bool is_struct(const AbsPtr& a);
  bool has_struct(const AbsPtr& a);
  // broaden(a), except that a struct keeps its numbers (a sparse tensor's dense shape)
  // constant: only its tensors are broadened (a loop carrying a sparse tensor).
  AbsPtr broaden_arg(const AbsPtr& a);
  // x.shape[i]: a constant, or for a dynamic dimension (-1 under set_inputs) its size read
  // at run time, so arithmetic on it is right (never the -1 that stands for "unknown").
  Node* tensor_dim(Ctx* c, Node* x, size_t i, const SourceSpan& sp);
  Node* truth(Ctx* c, Node* x, const SourceSpan& sp);
  Node* getitem(Ctx* c, Node* x, Node* idx, const SourceSpan& sp);
  Node* make_seq(Ctx* c, bool list, std::vector<Node*> items, const SourceSpan& sp);
  std::vector<Node*> unpack(Ctx* c, Node* seq, const SourceSpan& sp);  // a static-length seq
  // x[key] = v on a list, tuple or dict (a new one), or a tensor (tensor_setitem).
  Node* setitem(Ctx* c, Node* x, Node* key, Node* v, const SourceSpan& sp);
  Node* make_dict(Ctx* c, const std::vector<Node*>& args, const SourceSpan& sp);
  // The rules of builtin() that take more than a line, one per builtin or group.
  Node* switch_rule(Ctx* c, const std::vector<Node*>& args, const SourceSpan& sp);
  Node* partial_rule(Ctx* c, const std::vector<Node*>& args, const SourceSpan& sp);
  Node* not_rule(Ctx* c, Node* x, const SourceSpan& sp);
  Node* unary_rule(Ctx* c, Builtin b, const std::vector<Node*>& args, const SourceSpan& sp);
  Node* make_slice(const std::vector<Node*>& args, const SourceSpan& sp);
  Node* is_rule(Builtin b, const std::vector<Node*>& args, const SourceSpan& sp);
  Node* in_rule(Builtin b, const std::vector<Node*>& args, const SourceSpan& sp);
  Node* print_rule(Ctx* c, std::vector<Node*> args, const KwNodes& kw, const SourceSpan& sp);
  Node* raise_rule(Ctx* c, const std::vector<Node*>& args, const SourceSpan& sp);
  Node* py_execute_rule(Ctx* c, std::vector<Node*> args, const SourceSpan& sp);
  Node* binary_rule(Ctx* c, Builtin b, const std::vector<Node*>& args, const SourceSpan& sp);

  // ---- op-table prims (specialize_prims.cc)
  Node* prim_call(Ctx* c, const PrimData& p, std::vector<Node*> args, KwNodes kw,
                  const SourceSpan& sp);
  // Emits the prim on tensor nodes through IrBuilder::type_prim (attributes completed with
  // the op's defaults, the casts its flags ask for, the output inferred); user errors name
  // the op and the source line; Parameters and updates are ordered after c's state.
  Node* emit_prim(Ctx* c, const OpDef& op, Attrs attrs, std::vector<Node*> inputs,
                  const SourceSpan& sp);
  Node* to_tensor(Ctx* c, Node* x, const DType* like, const SourceSpan& sp);
  Node* binary_tensor_op(Ctx* c, Builtin b, Node* x, Node* y, const SourceSpan& sp);
  Node* unary_tensor_op(Ctx* c, Builtin b, Node* x, const SourceSpan& sp);
  Node* tensor_index(Ctx* c, Node* x, Node* idx, const SourceSpan& sp);
  Node* tensor_setitem(Ctx* c, Node* x, Node* idx, Node* v, const SourceSpan& sp);

  // ---- Python builtins and host callables (specialize_host.cc)
  // nullptr: not modelled, the host evaluates the call on constants.
  Node* host_builtin(Ctx* c, const std::string& name, std::vector<Node*> args, KwNodes kw,
                     const SourceSpan& sp);
  // Its rules that take more than a few lines (len_rule: nullptr when not modelled).
  Node* len_rule(Ctx* c, Node* x, const SourceSpan& sp);
  Node* zip_rule(Ctx* c, bool enumerate, const std::vector<Node*>& args, const KwNodes& kw,
                 const SourceSpan& sp);
  Node* map_rule(Ctx* c, const std::vector<Node*>& args, const SourceSpan& sp);
  Node* scalar_conversion(Ctx* c, const std::string& name, Node* x, const SourceSpan& sp);
  Node* min_max_rule(Ctx* c, const std::string& name, const std::vector<Node*>& args,
                     const SourceSpan& sp);
  // x with its floating-point tensors (also inside tuples and lists) cast to t: what a Cell
  // under to_float(t) receives (Host::mixed_precision).
  Node* mixed_cast(Ctx* c, Node* x, DType t, const SourceSpan& sp);

  // ---- gradient transforms (specialize_grad.cc)
  // grad(...) / value_and_grad(...) called in graph code: the gradient function's value.
  Node* make_grad(Ctx* c, bool value, std::vector<Node*> args, KwNodes kw, const SourceSpan& sp);
  // GradOperation(get_all, get_by_list, sens_param)(fn, weights) in graph code.
  Node* make_grad_operation(Ctx* c, std::vector<Node*> args, const SourceSpan& sp);
  // A call of a gradient function: args = (fn, options, call arguments...), kw its keyword
  // arguments (inputs after the positional ones, as MindSpore's: gradients in that order).
  Node* grad_call(Ctx* c, std::vector<Node*> args, KwNodes kw, const SourceSpan& sp,
                  GradHalf half = GradHalf::kWhole, Node* pair = nullptr);
  // ops.vjp's halves (mycel.ops.composite._vjp_forward / _vjp_backward), so that the forward
  // runs once however often the pullback is called: forward, args = (fn, weights, x...):
  // vjp(@W, (w...), x...) = (fn(x...), bprop); backward, args = (that pair, sens, weights,
  // x...): what GradOperation(get_all=True, get_by_list=weights given, sens_param=True)
  // returns for sens, computed by the pair's bprop.
  Node* vjp_half(Ctx* c, bool forward, std::vector<Node*> args, const SourceSpan& sp);
  // composite._vjp_out_zeros(fn, x...): zeros shaped as fn(x...)'s output (None for what is
  // not a tensor), from its abstract: fn is specialised, not run (ops.jvp's cotangent seed).
  Node* vjp_out_zeros(Ctx* c, std::vector<Node*> args, const SourceSpan& sp);
  // get_grad(gradients, id) on grad(..., return_ids=True)'s result: the gradient paired with
  // id (an input position, or a Parameter, matched by name), found at compile time.
  Node* get_grad_rule(Ctx* c, std::vector<Node*> args, const SourceSpan& sp);
  // Its parts: vjp(@W, (w...), x...), with W's effects; the default sensitivity of W's
  // output `out` (ones for the differentiated output, zeros for aux outputs).
  Node* grad_vjp(Ctx* c, FuncGraph* w, const std::vector<Node*>& inputs,
                 const std::vector<Node*>& weights, const SourceSpan& sp);
  Node* grad_seed(Ctx* c, Node* out, bool has_aux, const SourceSpan& sp);
  // A call of a Cell with its own bprop: args = (construct, bprop, call arguments...).
  Node* custom_vjp_call(Ctx* c, std::vector<Node*> args, const SourceSpan& sp);
  // vmap(fn, in_axes=0, out_axes=0) called in graph code: the vmap function's value.
  Node* make_vmap(Ctx* c, std::vector<Node*> args, KwNodes kw, const SourceSpan& sp);
  // A call of a vmap function: args = (fn, (in_axes, out_axes), call arguments...)
  // (specialize_vmap.cc; compiler/vmap/vmap.h).
  Node* vmap_call(Ctx* c, std::vector<Node*> args, const SourceSpan& sp);
  // A graph W(params with `abs`...) = fn(params...), specialised in a context nested in c;
  // the last kw_names.size() parameters are passed as those keyword arguments.
  FuncGraph* wrap_call(Ctx* c, Node* fn, const std::vector<AbsPtr>& abs, const std::string& name,
                       const SourceSpan& sp, const std::vector<std::string>& kw_names = {});

 private:
  // Whether a constant-trip loop (graph g, entered from pctx) that carried `prev` in its
  // last iteration and now carries `cur` can become a compact loop (context_for).
  bool settled(FuncGraph* g, Ctx* pctx, const std::vector<AbsPtr>& prev,
               const std::vector<AbsPtr>& cur);
  Ctx* context_for(FuncGraph* g, Ctx* pctx, std::vector<AbsPtr> args, bool dynamic,
                   const SourceSpan& sp, bool tail = false);
  // A constant-trip loop whose broadened trial (context `failed`) failed with `e`: drops
  // the trial and unrolls on from the exact arguments (see unroll_only_).
  Ctx* unroll_on(Ctx* failed, std::vector<AbsPtr> exact, bool dynamic, const SourceSpan& sp,
                 const Error& e, size_t warnings_before, bool tail);
  // ---- unrolled loops without recursion per iteration (specialize_unroll.cc)
  // A constant-trip loop is unrolled by specialising each iteration's context. Specialised
  // inside the last (the body tail-calls the header), each iteration would nest one level
  // deeper: compile-time depth and C stack growing with the trip count, and nested loops with
  // the product of theirs. Instead the next iteration's context is made but deferred: its
  // driver (the loop's first iteration, whose context_for is still live below) runs it after
  // the current iteration returns, so the depth is the loops' nesting, not their trips.
  //   When: a tail call (the call is its graph's output; the caller is the context on top of
  //   the stack) of a loop header re-entered with no run-time choice between the previous
  //   iteration and this call (else the loop is broadened), not a broadening trial, and every
  //   context entered since the previous iteration entered by a tail call: so the unknown
  //   result flows only into outputs, up to the previous iteration.
  //   The result: every context of that chain ends with a call whose result is not known yet;
  //   it waits on its callee (waits_on), and the calls and outputs that carry the result are
  //   recorded (ret_nodes). When the last iteration returns (the loop's exit, which may itself
  //   tail-call an enclosing loop's next, deferred, iteration) settle() gives the result, the
  //   effects flag and the taint of a recursion being solved to every waiting context.
  //   Iterations count by Ctx::iter, not by the stack, so the unrolling limits hold.
  // Whether the contexts on the stack above position `from` all entered by tail calls.
  bool tail_chain(size_t from) const;
  // Makes k a deferred iteration after `prev` (its driver runs it).
  void defer(Ctx* k, Ctx* prev);
  // Runs a driver's deferred iterations in order (each may defer the next).
  void run_queue(Ctx* driver);
  // k's output is a call of `target`, whose result is not known yet: k waits on it.
  void await_tail(Ctx* k, Ctx* target);
  // k's result is final (maybe none: it raises): give it to the contexts waiting on it.
  void settle(Ctx* k);
  static bool awaiting(const Ctx* k) { return k->pending || k->waits_on != nullptr; }
  void run_ctx(Ctx* c);
  Ctx* enclosing_ctx(FuncGraph* g, Ctx* c);
  Node* eval_value(const Value& v, const SourceSpan& sp, Ctx* c);
  void patch_placeholders();
  bool stale_graph(const FuncGraph* g) const;
  bool resolve_through(Node* fn, FuncGraph* g, Ctx* pctx, FuncGraph* spec, const SourceSpan& sp,
                       int depth);
  Node* eval_cnode(CNode* n, Ctx* c);
  Ctx* owner_ctx(Node* n, Ctx* c);  // the context of n's graph: c or one enclosing it
  void eval_operands(CNode* root, Ctx* c);
  Node* eval_now(CNode* n, Ctx* k);  // eval_cnode, then records the result
  // The CNodes of g that Python evaluates in g's region (SourceScopes::region), in source
  // (creation) order, keyword arguments left to their calls (specialize_effects.cc).
  const std::vector<CNode*>& source_order(FuncGraph* g);
  Node* call_union(Ctx* c, Node* fn, std::vector<Node*> args, const SourceSpan& sp);
  std::vector<Node*> bind_args(FuncGraph* g, std::vector<Node*> args, KwNodes kw, Ctx* c,
                               const SourceSpan& sp);
  // Function values passed down (a closure handed to a function and called there).
  // A closure of context p travels at run time with its captured values, and its graph is
  // specialised once per call signature. Where the function it is passed to runs while p
  // is on the context stack (p's frame is live: the call is below p's), the parameter that
  // receives it stands for the closure itself (closure_param): each call there calls the
  // specialisation of its own signature directly, so one closure may be called with several
  // signatures (MindSpore's function abstracts). A graph that is not nested in p's then
  // captures p's values through the specialisations it calls, and so do the graphs that
  // call it: the contexts on the stack above p are pinned to p (Ctx::pins). An escaped
  // closure (returned from p's frame, p no longer live) is called through its run-time
  // value, with one signature.
  bool on_stack(const Ctx* p) const;
  bool on_chain(const Ctx* p, const Ctx* c) const;  // p is c or encloses it
  void pin_to(const Ctx* p);
  // The node a parameter of k with abstract `a` stands for: the closure itself for a
  // downward closure (the output parameter is then dead: dead_params_), else nullptr.
  Node* closure_param(Ctx* k, const AbsPtr& a, Parameter* out, const SourceSpan& sp);
  // strict: chosen at run time (switch, value call), so one specialisation only.
  void resolve_placeholder(FuncGraph* g, Ctx* pctx, FuncGraph* spec, const SourceSpan& sp,
                           bool strict);

  Module& src_;
  Module& out_;
  Host& host_;
  Specialized result_;
  FuncGraph* entry_ = nullptr;
  std::vector<std::unique_ptr<Ctx>> ctxs_;
  std::vector<Ctx*> stack_;          // active contexts, innermost last
  std::vector<bool> stack_dynamic_;  // entered through a call on a run-time condition
  std::vector<bool> stack_tail_;     // entered by a tail call (see "Unrolled loops")
  bool tail_call_ = false;           // eval_cnode -> call: the call is a tail call
  // Calls of a deferred or waiting context emitted with no result yet -> that context.
  std::unordered_map<const Node*, Ctx*> tail_calls_;
  uint64_t next_seq_ = 0;
  // Constant-trip loops (their header graphs) that cannot be compiled as loops: broadened
  // after kMaxUnroll iterations, their body failed to specialise (it needs the counter as a
  // compile-time constant: a shape, a tuple index, a Python helper's argument; MindSpore
  // unrolls such loops). They unroll on, up to kMaxUnrolledLoop iterations; the value is the
  // broadened body's error, which the error past that limit quotes. Retrying as unrolling is
  // exact: the unrolled body is what the first kMaxUnroll iterations ran, so an error of the
  // user's own (one that does not come from broadening) comes back as itself, at its
  // iteration, or past the limit quoted in its error.
  std::unordered_map<FuncGraph*, std::string> unroll_only_;
  // The mark of the recomputed Cell call being specialised (Ctx::recompute; 0: none) and the
  // number of such calls so far (each a scope of its own).
  int64_t recompute_scope_ = 0;
  int64_t recompute_calls_ = 0;
  uint64_t provisional_reads_ = 0;  // reads of a result still being solved
  SourceScopes scopes_;
  std::vector<std::pair<Value, Node*>> weights_;
  // ---- program order of effects, the private part (specialize_effects.cc)
  // Tensors computed in the program (not parameters) that an update writes in place, here or
  // in a graph it calls (`y = x * 1; ops.assign_add(y, 1)`, also inside an `if` branch or a
  // function taking y): later reads of them are ordered after the state, as PYNATIVE sees the
  // write. Nodes stand for their tensor with depends stripped.
  std::unordered_set<const Node*> written_;
  // A tensor (as in written_: computed, or a parameter of a called graph -- an input of the
  // differentiated function; not a parameter of the entry, a weight, whose reads stay
  // depend(w, state): GRAPH-mode tests of weights written between reads rely on that order)
  // that Assign or AssignAdd wrote -> that update's output:
  // its value from then on. Later reads read the update (after_state), so the gradient
  // flows through the write as in PYNATIVE (the update's bprop rule: the value, or the
  // variable plus the value). An update in a graph that is not on the reader's chain (an
  // `if` branch, a called function) is not followed: see latest_value.
  std::unordered_map<const Node*, Node*> updated_;
  // x's latest value visible from c: the chain of updated_ from x, while the update's graph
  // is c's or one of its parents'.
  Node* latest_value(const Ctx* c, Node* x) const;
  // The update `r` wrote `var` (its first input): recorded in updated_.
  void note_update(Node* var, Node* r);
  Node* bottom_ = nullptr;
  // Graph values waiting for the specialisation their call will choose.
  struct Placeholder {
    FuncGraph* g;
    Ctx* pctx;
    FuncGraph* resolved = nullptr;
    SourceSpan span;
    Ctx* owner = nullptr;    // where it was evaluated, and in which round: an earlier
    int round = 0;           // round's placeholders are dead
    bool strict = false;     // resolved by a run-time choice
    bool ambiguous = false;  // called directly with several signatures
  };
  std::unordered_map<Node*, Placeholder> placeholders_;
  // The placeholders of each source graph (resolve_placeholder looks only at those: a scan
  // of all of them per call made long unrolled programs compile in O(n^2)), and the context
  // that built each output graph (stale_graph).
  std::unordered_map<const FuncGraph*, std::vector<Placeholder*>> placeholders_of_;
  std::unordered_map<const FuncGraph*, Ctx*> ctx_of_out_;
  void add_placeholder(ValueNode* node, const Placeholder& ph);
  // Output parameters that receive a downward closure (closure_param) or a constant function
  // that holds a source graph (a bound method, run_ctx), never read: the argument passed for
  // them need not resolve to one specialisation, and becomes None (patch_placeholders).
  std::unordered_set<const Node*> dead_params_;
  // A graph of the source module that v holds (else nullptr): a Cell's bound method is the constant
  // closure (source graph of its function, self). Every call of it specialises it through
  // the constant (call); the constant itself is not valid in the output, where it may be
  // only a dead argument (patch_placeholders replaces it, or fails naming the function).
  const FuncGraph* source_graph(const Value& v) const;
  // Bound methods chosen at run time (call_union): each closure's one specialisation (nullptr
  // when called with several signatures), which patch_placeholders puts in its place.
  std::vector<std::pair<Value, FuncGraph*>> runtime_closures_;
  void note_runtime_closure(const FuncCandidate& cand, FuncGraph* spec);
  // A bound method of runtime_closures_ as a run-time value made in `where`: the partial
  // application of its specialisation to its constants (a node, so that lifting passes the
  // specialisation's free variables along); nullptr when v is not one or was called with
  // several signatures.
  Node* runtime_closure(FuncGraph* where, const Value& v, const SourceSpan& sp);
  std::unordered_map<FuncGraph*, std::vector<CNode*>> source_order_;
  bool entry_call_ = false;  // the next bind_args binds the entry's arguments
};

// Python semantics of a binary operator on two constant scalars.
Value fold_scalar(Builtin op, const Value& x, const Value& y);

// Helpers of the builtins' rules (specialize_builtins.cc), shared with the operators'
// (specialize_operators.cc).
bool is_scalar_abs(const AbsPtr& a);  // a bool, int or float scalar
bool is_seq_abs(const AbsPtr& a);     // a tuple or a list
// The function `name` of mycel.common.graph_methods (graph code for the methods of dicts,
// lists and tuples, and the run-time `in`), or none when the module has no such function.
std::optional<Value> graph_method(Host& host, Module& m, const std::string& name);
// Struct values: an object whose class's metaclass sets __mycel_graph_struct__ (the field
// names; the sparse tensors of common/sparse_tensor.py) is, in graph code, the tuple
// (class, field values...) (frontend/py_value.cc converts such objects and back; the class's
// _graph_new makes one in graph code). The class when `a` is such a tuple, else none.
std::optional<Value> struct_class(Host& host, Module& m, const AbsPtr& a);

// Where the error came from: appends the source excerpt once.
std::string with_location(const std::string& msg, const SourceSpan& sp);

}  // namespace mycel::ir::spec
