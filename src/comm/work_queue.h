// The communication queue of a process: one thread that runs communication work in issue
// order, so that collectives can run while the caller computes (comm_func's async_op=True:
// the caller gets a CommWork and waits on it when it needs the result).
//
// Order is the contract that makes collectives correct: every rank issues its collectives
// in the same order, and a backend must see them in that order. So work submitted here runs
// strictly one after another, and a synchronous collective issued while work is pending
// goes through the queue too (runtime/eager.cc): it never overtakes an earlier async one.
// One thread submits (the one running the program); the queue's own thread runs the work.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace mycel {

// One piece of submitted work: done once it ran; wait() rethrows what it threw.
class CommWork {
 public:
  void wait();
  bool done();

 private:
  friend class CommQueue;
  void finish(std::exception_ptr error);
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::exception_ptr error_;
};

class CommQueue {
 public:
  CommQueue() = default;
  ~CommQueue();  // runs what is pending, then stops the thread
  CommQueue(const CommQueue&) = delete;
  CommQueue& operator=(const CommQueue&) = delete;

  // Queues fn after everything submitted before; the thread starts with the first work.
  std::shared_ptr<CommWork> submit(std::function<void()> fn);
  // Whether nothing submitted is pending or running.
  bool idle();
  // Waits until idle (errors stay with their CommWork).
  void drain();

 private:
  void loop();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<std::function<void()>, std::shared_ptr<CommWork>>> pending_;
  bool running_ = false, stop_ = false;
  std::thread thread_;
};

}  // namespace mycel
