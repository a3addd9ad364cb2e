// Bounds on the compiler's recursion, so that a deep program gives a RecursionError instead
// of overflowing the C stack (SIGSEGV).
//
// Straight-line code never recurses: walks over a graph's nodes use explicit stacks (the
// specialiser's eval, ir::topo_order, the passes' walks), so a function of any number of
// statements compiles. What still recurses is nesting: nested expressions in the parser,
// nested blocks (if / while / elif chains), nested calls being specialised, nested graphs
// and nested constants (tuples of tuples). Each such walk counts its depth with a DepthGuard
// and fails past its documented limit (kMaxNesting, max_call_depth()), and also when the
// thread's stack is nearly used up: the limits are sized for Linux's default 8 MiB stacks,
// and the stack check keeps smaller stacks (a thread made with a small stack size) safe.
#pragma once

#include <cstddef>
#include <string>

namespace mycel::ir {

// Nested expressions, blocks, graphs and constants a walk accepts (CPython's own compiler
// gives up at about 3000 levels of nested expressions).
inline constexpr int kMaxNesting = 3000;
// Calls being specialised inside one another (nested helper calls, recursion on constants):
// kDefaultMaxCallDepth unless set_max_call_depth changed it (mycel.set_recursion_limit and
// set_context(max_call_depth=N), MindSpore's two names). A larger limit stays safe: the
// stack check below still stops a walk before the thread's stack runs out. A limit above
// the executor's least run-time limit also raises that one (runtime/vm.h, kMinDepth).
inline constexpr int kDefaultMaxCallDepth = 1000;
int max_call_depth();
// Sets the limit for compiles that start afterwards; a ValueError unless limit > 0.
void set_max_call_depth(int limit);
// Stack that must remain below a guarded frame: room for the deepest non-recursive work a
// guarded walk does (kernels run at compile time, pybind11 calls into Python).
inline constexpr size_t kStackReserve = size_t{512} << 10;

// Bytes of stack left below the caller's frame on the calling thread (SIZE_MAX when the
// thread's stack bounds are unknown).
size_t stack_left();

// One level of a recursive walk: increments `depth` for the guard's lifetime.
//   DepthGuard g(depth_);
//   if (g.too_deep(kMaxNesting)) fail(span, depth_error("expressions", kMaxNesting));
class DepthGuard {
 public:
  explicit DepthGuard(int& depth) : depth_(depth) { ++depth_; }
  ~DepthGuard() { --depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
  bool too_deep(int limit) const { return depth_ > limit || stack_left() < kStackReserve; }

 private:
  int& depth_;
};

// "RecursionError: <what> nested too deeply (the limit is N levels ...)": the message of
// the error a walk raises past its limit.
std::string depth_message(const std::string& what, int limit);

// Throws the RecursionError (ErrorKind::Recursion) of depth_message.
[[noreturn]] void throw_too_deep(const std::string& what, int limit);

}  // namespace mycel::ir
