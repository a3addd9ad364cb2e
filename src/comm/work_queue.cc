#include "comm/work_queue.h"

namespace mycel {

void CommWork::wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return done_; });
  if (error_) std::rethrow_exception(error_);
}

bool CommWork::done() {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

void CommWork::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    error_ = std::move(error);
  }
  cv_.notify_all();
}

CommQueue::~CommQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::shared_ptr<CommWork> CommQueue::submit(std::function<void()> fn) {
  auto work = std::make_shared<CommWork>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.emplace_back(std::move(fn), work);
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  }
  cv_.notify_all();
  return work;
}

bool CommQueue::idle() {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_.empty() && !running_;
}

void CommQueue::drain() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return pending_.empty() && !running_; });
}

void CommQueue::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !pending_.empty(); });
    if (pending_.empty()) return;  // stop_, nothing left
    auto [fn, work] = std::move(pending_.front());
    pending_.pop_front();
    running_ = true;
    lock.unlock();
    std::exception_ptr error;
    try {
      fn();
    } catch (...) {
      error = std::current_exception();
    }
    work->finish(error);
    lock.lock();
    running_ = false;
    cv_.notify_all();  // drain() waiters
  }
}

}  // namespace mycel
