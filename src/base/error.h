// Errors in two tiers (see docs/architecture.md, "Errors").
//
//   MC_CHECK(cond, Kind, msg...)  a user error: bad shapes, dtypes, axes, indices. Throws
//                                 mycel::Error of that kind, which Python sees as ValueError,
//                                 TypeError, IndexError or RuntimeError.
//   MC_ASSERT(cond, msg...)       a bug in mycel. Throws an Error of kind Internal whose text
//                                 starts with "internal error" and names the source location.
//
// Neither aborts: bad input never takes the process down. The eager dispatcher prefixes user
// errors with the op ("For 'MatMul', ..."), so checks inside rules name only what they test.
#pragma once

#include <exception>
#include <sstream>
#include <string>
#include <utility>

namespace mycel {

// Recursion: a program nested beyond a compiler limit (Python's RecursionError).
// Overflow: a graph-mode int beyond 64 bits, a float infinity made an int (OverflowError).
enum class ErrorKind { Value, Type, Index, Runtime, Recursion, Overflow, Internal };

class Error : public std::exception {
 public:
  Error(ErrorKind kind, std::string msg) : kind_(kind), msg_(std::move(msg)) {}
  const char* what() const noexcept override { return msg_.c_str(); }
  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return msg_; }

 private:
  ErrorKind kind_;
  std::string msg_;
};

// Concatenates anything with an operator<< into a string.
template <class... Args>
std::string str(const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return {};
  } else {
    std::ostringstream os;
    (os << ... << args);
    return os.str();
  }
}

[[noreturn]] void throw_error(ErrorKind kind, std::string msg);
[[noreturn]] void throw_internal(const char* file, int line, const char* cond, std::string msg);

}  // namespace mycel

#define MC_CHECK(cond, kind, ...)                                                \
  do {                                                                           \
    if (!(cond)) [[unlikely]]                                                    \
      ::mycel::throw_error(::mycel::ErrorKind::kind, ::mycel::str(__VA_ARGS__)); \
  } while (0)

#define MC_THROW(kind, ...) \
  ::mycel::throw_error(::mycel::ErrorKind::kind, ::mycel::str(__VA_ARGS__))

#define MC_ASSERT(cond, ...)                                                         \
  do {                                                                               \
    if (!(cond)) [[unlikely]]                                                        \
      ::mycel::throw_internal(__FILE__, __LINE__, #cond, ::mycel::str(__VA_ARGS__)); \
  } while (0)
