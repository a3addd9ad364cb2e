// Recording of executed ops, for PYNATIVE automatic differentiation (compiler/ad/pynative.h).
//
// While a Sink is active on this thread, every op the eager dispatcher (run_op) and the
// graph executor (vm) run is reported to it with its inputs as given (before promotion) and
// its outputs. Sinks nest (a gradient of a gradient records into both); each op goes to every
// active sink. The check on the hot path is one thread-local load.
#pragma once

#include <span>

#include "ir/value.h"
#include "ops/op_table.h"

namespace mycel::record {

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void op(const OpDef& op, const Attrs& attrs, std::span<const Tensor> in,
                  std::span<const Tensor> out) = 0;
  // A call whose gradient is the host callable `bprop(in..., out, dout) -> (d_in...)` (a
  // Cell with its own bprop), its own ops not recorded.
  virtual void custom(const ir::Value& bprop, std::span<const Tensor> in, const Tensor& out) = 0;
  // Tensor.register_hook on a tensor made by the recorded ops: the gradient reaching `x` (from
  // every use, earlier ones included) passes through the host callable `bprop(x, out, dout)
  // -> (d_x,)` first. Returns false where x is one of the sink's own inputs or weights (their
  // hooks are applied to the gradients the sink returns) or the sink cannot hook.
  virtual bool hook(const ir::Value& bprop, const Tensor& x) {
    (void)bprop;
    (void)x;
    return false;
  }
  // An op is about to write `t` in place (Assign, AssignAdd, BatchNorm's statistics): a sink
  // that holds t as the value of an earlier op keeps a copy of it, which the backward reads.
  virtual void before_write(const Tensor& t) { (void)t; }
  // Whether the sink's gradient depends on `t`: an input, a weight, or the output of an op
  // it saw that depends differentiably on one (a write into t that is no op would be lost).
  virtual bool holds(const Tensor& t) const {
    (void)t;
    return false;
  }
};

namespace detail {
extern thread_local int depth;
void emit(const OpDef& op, const Attrs& attrs, std::span<const Tensor> in,
          std::span<const Tensor> out);
}  // namespace detail

inline bool active() { return detail::depth > 0; }

inline void emit(const OpDef& op, const Attrs& attrs, std::span<const Tensor> in,
                 std::span<const Tensor> out) {
  if (detail::depth > 0) detail::emit(op, attrs, in, out);
}

namespace detail {
void before_write(const OpDef& op, std::span<const Tensor> in);
}  // namespace detail

// Before an op runs: the inputs an F_INPLACE op writes go to Sink::before_write.
inline void before_write(const OpDef& op, std::span<const Tensor> in) {
  if (detail::depth > 0 && (op.flags & F_INPLACE)) detail::before_write(op, in);
}

// Whether an active sink differentiates through `t` (Sink::holds).
bool holds(const Tensor& t);

// Activates `s` on this thread until the matching pop (innermost last).
void push(Sink* s);
void pop(Sink* s);

// Reports a custom-gradient call to every active sink.
void emit_custom(const ir::Value& bprop, std::span<const Tensor> in, const Tensor& out);

// Hooks the gradient of `x` in every active sink (Sink::hook); whether one of them took it.
bool emit_hook(const ir::Value& bprop, const Tensor& x);

// Recording is off on this thread while one exists.
class Paused {
 public:
  Paused() : saved_(detail::depth) { detail::depth = 0; }
  ~Paused() { detail::depth = saved_; }
  Paused(const Paused&) = delete;
  Paused& operator=(const Paused&) = delete;

 private:
  int saved_;
};

}  // namespace mycel::record
