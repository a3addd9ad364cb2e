// InlineVector<T, N>: up to N elements in place, more on the heap. Unlike SmallVector it holds
// any default-constructible, movable T (Tensors, TensorMetas): the eager dispatcher keeps its
// inputs and outputs in these, so a typical op makes no vector allocation.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace mycel {

template <class T, size_t N>
class InlineVector {
 public:
  InlineVector() = default;
  explicit InlineVector(size_t n) { resize(n); }

  void push_back(T v) {
    if (!spilled_ && size_ < N) {
      inline_[size_++] = std::move(v);
      return;
    }
    spill();
    heap_.push_back(std::move(v));
    ++size_;
  }
  void resize(size_t n) {
    if (n > N) spill();
    if (spilled_) heap_.resize(n);
    size_ = n;
  }

  // Drops every element (their destructors run now, not when the slot is reused).
  void clear() {
    for (size_t i = 0; i < size_ && !spilled_; ++i) inline_[i] = T();
    heap_.clear();
    spilled_ = false;
    size_ = 0;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return spilled_ ? heap_.data() : inline_.data(); }
  const T* data() const { return spilled_ ? heap_.data() : inline_.data(); }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  operator std::span<T>() { return {data(), size_}; }              // NOLINT: by design
  operator std::span<const T>() const { return {data(), size_}; }  // NOLINT: by design

 private:
  void spill() {
    if (spilled_) return;
    heap_.reserve(std::max(size_ * 2, N + 1));
    for (size_t i = 0; i < size_; ++i) heap_.push_back(std::move(inline_[i]));
    spilled_ = true;
  }

  std::array<T, N> inline_{};
  std::vector<T> heap_;
  size_t size_ = 0;
  bool spilled_ = false;
};

}  // namespace mycel
