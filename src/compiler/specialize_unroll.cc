// Unrolled loops without recursion per iteration ("Unrolled loops" in specialize_impl.h):
// a constant-trip loop's next iteration, tail-called by the last, is deferred to the loop's
// driver instead of specialised inside it, and the contexts whose result is that call's wait
// for it. Compile-time depth and C stack then grow with the nesting of loops, not with their
// trip counts (a 64 x 64 nest of loops that need their counters as constants compiles at the
// default max_call_depth).
#include <algorithm>

#include "compiler/specialize_impl.h"

namespace mycel::ir::spec {

bool Specializer::tail_chain(size_t from) const {
  return std::all_of(stack_tail_.begin() + static_cast<std::ptrdiff_t>(from), stack_tail_.end(),
                     [](bool t) { return t; });
}

void Specializer::defer(Ctx* k, Ctx* prev) {
  k->pending = true;
  k->driver = prev->driver != nullptr ? prev->driver : prev;
  // The call is emitted now: its graph exists before its body is specialised.
  k->out = out_.new_graph(k->src->name());
  ctx_of_out_[k->out] = k;
  k->out->is_loop = k->src->is_loop;
  k->driver->queue.push_back(k);
}

void Specializer::run_queue(Ctx* driver) {
  // Each iteration run here may defer the next one to this driver: the queue grows while it
  // runs. The stack holds the iteration as its last did (entered by a tail call, from no
  // run-time choice), without the iterations before it.
  for (size_t i = 0; i < driver->queue.size(); ++i) {
    Ctx* k = driver->queue[i];
    k->pending = false;
    // A context a recursion's later round replaced (run_ctx) made it: its replacement is
    // queued after it.
    if (k->stale) continue;
    stack_.push_back(k);
    stack_dynamic_.push_back(false);
    stack_tail_.push_back(true);
    auto pop = [&] {
      stack_.pop_back();
      stack_dynamic_.pop_back();
      stack_tail_.pop_back();
      k->active = false;
    };
    try {
      run_ctx(k);
    } catch (...) {
      pop();
      driver->queue.clear();
      throw;
    }
    pop();
    if (k->waits_on == nullptr) settle(k);
  }
  driver->queue.clear();
}

void Specializer::await_tail(Ctx* k, Ctx* target) {
  // Reusing a waiting context can close a cycle (a loop whose carried values come back to
  // an earlier iteration's, with a constant condition): it never ends.
  for (const Ctx* t = target; t != nullptr; t = t->waits_on)
    if (t == k)
      fail(ErrorKind::Runtime, k->src->span(),
           str("'", k->src->name(),
               "' never returns: its loop comes back to an earlier iteration's values with a "
               "condition known at compile time (an endless loop)"));
  k->waits_on = target;
  target->waiters.push_back(k);
}

void Specializer::settle(Ctx* k) {
  // The chain of waiting contexts is as long as the unrolled loop: a work list, no recursion.
  std::vector<Ctx*> work{k};
  while (!work.empty()) {
    Ctx* t = work.back();
    work.pop_back();
    for (Node* n : t->ret_nodes) n->set_abstract(t->ret);
    t->ret_nodes.clear();
    for (Ctx* w : t->waiters) {
      w->waits_on = nullptr;
      w->ret = t->ret;
      w->effects = w->effects || t->effects;
      w->tainted = w->tainted || t->tainted;
      work.push_back(w);
    }
    t->waiters.clear();
  }
}

}  // namespace mycel::ir::spec
