// Interrupting long-running C++ work (Ctrl-C while a compiled graph runs).
//
// The graph executor runs without the GIL, so Python's own SIGINT handling (a flag the
// interpreter polls between bytecodes) never reaches it. mycel chains a C-level handler in
// front of the current SIGINT handler (Python's): it sets a process-wide atomic flag and
// then calls the previous handler, which trips Python's flag as before. The executor polls
// the flag after every instruction (a relaxed load and a branch never taken: no measurable
// cost) and, when it is set, asks its host what to do (vm::RuntimeHost::check_signals: the
// Python host runs Python's signal handlers, so Ctrl-C raises KeyboardInterrupt, or a user's
// handler runs and the graph goes on). A single kernel is not interrupted: the wait is at
// most the instruction being run.
#pragma once

#include <atomic>

namespace mycel {

namespace detail {
extern std::atomic<bool> g_interrupt_pending;
}

// Whether a SIGINT arrived since the flag was last cleared (async-signal-safe to set).
inline bool interrupt_pending() {
  return detail::g_interrupt_pending.load(std::memory_order_relaxed);
}
inline void set_interrupt_pending(bool v) {
  detail::g_interrupt_pending.store(v, std::memory_order_relaxed);
}

// Puts mycel's handler in front of the current SIGINT handler unless it is already there
// (one sigaction query when it is: about 1 us here, so not on every call). Nothing is
// installed while SIGINT is ignored or has its default action (the process then ends or
// ignores it without mycel's help). Call it on the thread that owns signal handling
// (Python's main thread); a later signal.signal(SIGINT, ...) replaces the chain.
void chain_sigint_handler();

// The cheap form for every graph run: chains only when the handler may have changed since
// the last chain (at first, and after sigint_handler_changed(), which mycel's wrapper of
// Python's signal.signal calls). One relaxed load otherwise.
void sigint_handler_changed();
void chain_sigint_handler_if_changed();

}  // namespace mycel
