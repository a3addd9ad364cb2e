#include "base/interrupt.h"

#include <signal.h>

namespace mycel {

namespace detail {
std::atomic<bool> g_interrupt_pending{false};
}

namespace {

// The handler found when ours was installed; ours calls it after setting the flag. Written
// only while ours is not installed, so the handler never sees a half-written one.
struct sigaction g_previous;
std::atomic<bool> g_handler_changed{true};  // chain at the first call

void on_sigint(int sig, siginfo_t* info, void* context) {
  detail::g_interrupt_pending.store(true, std::memory_order_relaxed);
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction != nullptr) g_previous.sa_sigaction(sig, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
  }
}

}  // namespace

void chain_sigint_handler() {
  struct sigaction current;
  if (sigaction(SIGINT, nullptr, &current) != 0) return;
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_sigint) return;
  if (!(current.sa_flags & SA_SIGINFO) &&
      (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN))
    return;
  g_previous = current;
  struct sigaction ours = current;
  ours.sa_sigaction = on_sigint;
  ours.sa_flags = current.sa_flags | SA_SIGINFO;
  sigaction(SIGINT, &ours, nullptr);
}

void sigint_handler_changed() { g_handler_changed.store(true, std::memory_order_relaxed); }

void chain_sigint_handler_if_changed() {
  if (!g_handler_changed.load(std::memory_order_relaxed)) return;
  g_handler_changed.store(false, std::memory_order_relaxed);
  chain_sigint_handler();
}

}  // namespace mycel
