// What the tests of src/parallel share.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "base/error.h"

namespace mycel::parallel {

// The message of the ValueError `f` throws; fails the test if it throws nothing or another
// kind.
template <class F>
std::string value_error(F f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error thrown";
  return "";
}

}  // namespace mycel::parallel
