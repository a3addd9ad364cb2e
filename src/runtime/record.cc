#include "runtime/record.h"

#include <algorithm>
#include <vector>

#include "base/error.h"

namespace mycel::record {

namespace {
thread_local std::vector<Sink*> sinks;
}

namespace detail {
thread_local int depth = 0;

void emit(const OpDef& op, const Attrs& attrs, std::span<const Tensor> in,
          std::span<const Tensor> out) {
  // Sinks are pushed and popped from Python between ops, never from inside one.
  for (Sink* s : sinks) s->op(op, attrs, in, out);
}

void before_write(const OpDef& op, std::span<const Tensor> in) {
  for (size_t i = 0; i < in.size(); ++i)
    if (writes_input(op, i))
      for (Sink* s : sinks) s->before_write(in[i]);
}
}  // namespace detail

void emit_custom(const ir::Value& bprop, std::span<const Tensor> in, const Tensor& out) {
  if (detail::depth == 0) return;
  for (Sink* s : sinks) s->custom(bprop, in, out);
}

bool emit_hook(const ir::Value& bprop, const Tensor& x) {
  bool any = false;
  if (detail::depth == 0) return any;
  for (Sink* s : sinks) any = s->hook(bprop, x) || any;
  return any;
}

bool holds(const Tensor& t) {
  if (detail::depth == 0) return false;
  for (const Sink* s : sinks)
    if (s->holds(t)) return true;
  return false;
}

void push(Sink* s) {
  sinks.push_back(s);
  detail::depth = static_cast<int>(sinks.size());
}

void pop(Sink* s) {
  auto it = std::find(sinks.begin(), sinks.end(), s);
  MC_ASSERT(it != sinks.end(), "record::pop of a sink that is not active");
  sinks.erase(it);
  detail::depth = static_cast<int>(sinks.size());
}

}  // namespace mycel::record
