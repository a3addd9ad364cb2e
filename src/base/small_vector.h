// SmallVector: a vector with N elements stored inline, for shapes and strides. Tensors of rank
// <= N allocate nothing for their dims, which keeps the eager op path free of heap traffic.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <type_traits>

namespace mycel {

template <class T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds trivially copyable values");

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  explicit SmallVector(size_t n, T v = T()) { resize(n, v); }
  SmallVector(std::initializer_list<T> il) { assign(il.begin(), il.end()); }
  template <class It, class = decltype(*std::declval<It>())>
  SmallVector(It b, It e) {
    assign(b, e);
  }
  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { move_from(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      release();
      move_from(o);
    }
    return *this;
  }
  ~SmallVector() { release(); }

  template <class It>
  void assign(It b, It e) {
    size_t n = static_cast<size_t>(std::distance(b, e));
    size_ = 0;
    reserve(n);
    std::copy(b, e, data_);
    size_ = n;
  }
  void reserve(size_t n) {
    if (n <= cap_) return;
    size_t cap = std::max(n, cap_ * 2);
    T* p = new T[cap];
    if (size_) std::memcpy(p, data_, size_ * sizeof(T));
    if (data_ != inline_) delete[] data_;
    data_ = p;
    cap_ = cap;
  }
  void resize(size_t n, T v = T()) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = v;
    size_ = n;
  }
  void push_back(T v) {
    if (size_ == cap_) reserve(size_ + 1);
    data_[size_++] = v;
  }
  void pop_back() { --size_; }
  void insert(iterator pos, T v) {
    size_t i = static_cast<size_t>(pos - data_);
    push_back(v);
    std::rotate(data_ + i, data_ + size_ - 1, data_ + size_);
  }
  void erase(iterator pos) {
    std::copy(pos + 1, data_ + size_, pos);
    --size_;
  }
  void clear() { size_ = 0; }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  iterator begin() { return data_; }
  iterator end() { return data_ + size_; }
  const_iterator begin() const { return data_; }
  const_iterator end() const { return data_ + size_; }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  void release() {
    if (data_ != inline_) delete[] data_;
    data_ = inline_;
    cap_ = N;
    size_ = 0;
  }
  void move_from(SmallVector& o) {
    if (o.data_ == o.inline_) {
      data_ = inline_;
      cap_ = N;
      std::memcpy(inline_, o.inline_, o.size_ * sizeof(T));
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inline_;
      o.cap_ = N;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  T* data_ = inline_;
  size_t size_ = 0;
  size_t cap_ = N;
  T inline_[N];
};

}  // namespace mycel
