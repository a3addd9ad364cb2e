// GilOnce<T>: a lazily built value whose construction runs Python code, safe with threads.
//
// A function-local `static T x = make();` whose make() runs Python (an import, a getattr)
// deadlocks when threads race to it: the first thread holds the static's guard and runs
// Python, which may hand the GIL to a second thread (any bytecode can switch); the second
// thread, holding the GIL, blocks on the guard forever while the first waits for the GIL.
// GilOnce releases the GIL before waiting on its once-flag and builds the value with the GIL
// re-taken inside, so no thread ever waits on the flag while holding the GIL (pybind11
// 2.12's gil_safe_call_once_and_store does the same; Debian ships 2.10).
//
//   const Refs& refs() {
//     static GilOnce<Refs*> once;  // constant-initialised: no guard of its own
//     return *once.get([] { return new Refs(...); });
//   }
//
// get() may be called with or without the GIL. The value is never destroyed (Python objects may
// not be released after the interpreter is gone), so T is usually a pointer or a plain
// value. If make() throws, the exception propagates and the next get() tries again.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <mutex>
#include <new>

namespace mycel::py {

template <class T>
class GilOnce {
 public:
  constexpr GilOnce() = default;
  GilOnce(const GilOnce&) = delete;
  GilOnce& operator=(const GilOnce&) = delete;

  template <class F>
  T& get(F&& make) {
    if (!done_.load(std::memory_order_acquire)) {
      auto build = [&] {
        pybind11::gil_scoped_acquire gil;
        new (storage_) T(make());
        done_.store(true, std::memory_order_release);
      };
      if (PyGILState_Check()) {
        pybind11::gil_scoped_release nogil;
        std::call_once(once_, build);
      } else {
        std::call_once(once_, build);
      }
    }
    return *std::launder(reinterpret_cast<T*>(storage_));
  }

 private:
  alignas(T) unsigned char storage_[sizeof(T)] = {};
  std::once_flag once_;
  std::atomic<bool> done_{false};
};

}  // namespace mycel::py
