// The op table is complete: every op has an inference rule, a kernel, a reference kernel (all
// checked at link time: each is a named function) and at least one kernel test case; names
// are unique; attributes are well formed.
#include <gtest/gtest.h>

#include <set>

#include "../kernels/kernel_cases.h"
#include "kernels/kernel_table.h"
#include "ops/op_table.h"

namespace mycel {
namespace {

TEST(OpTable, EveryOpHasHooks) {
  for (const OpDef& d : op_table()) {
    EXPECT_NE(d.infer, nullptr) << d.name;
    EXPECT_NE(cpu_kernel(d), nullptr) << d.name;
    EXPECT_NE(ref_kernel(d), nullptr) << d.name;
    EXPECT_NE(cpu_kernel(d), ref_kernel(d)) << d.name << ": the reference must be a separate kernel";
  }
}

TEST(OpTable, IdsMatchPositionsAndNamesAreUnique) {
  std::set<std::string> names;
  size_t i = 0;
  for (const OpDef& d : op_table()) {
    EXPECT_EQ(static_cast<size_t>(d.id), i++) << d.name;
    EXPECT_TRUE(names.insert(d.name).second) << "duplicate op " << d.name;
    EXPECT_EQ(find_op(d.name), &d);
  }
}

TEST(OpTable, EveryOpHasKernelTestCases) {
  std::set<std::string> covered;
  for (const auto& c : test::all_kernel_cases()) covered.insert(c.op);
  for (const auto& c : test::comm_cases()) covered.insert(c.op);  // run under mpirun
  for (const OpDef& d : op_table()) {
    EXPECT_TRUE(covered.count(d.name)) << d.name << " has no kernel test case";
  }
}

TEST(OpTable, AttributeDefaultsHaveTheirKind) {
  for (const OpDef& d : op_table()) {
    std::set<std::string> seen;
    bool required = false;
    for (const AttrSpec& s : d.attrs) {
      EXPECT_TRUE(seen.insert(s.name).second) << d.name << " repeats attribute " << s.name;
      required |= std::holds_alternative<std::monostate>(s.dflt);
    }
    // With no required attribute, the defaults alone must validate against their kinds.
    if (!required) {
      EXPECT_NO_THROW(make_attrs(d, Attrs())) << d.name;
    }
  }
}

TEST(OpTable, UnknownAttributeIsATypeError) {
  Attrs a;
  a.set("no_such_attr", int64_t{1});
  try {
    make_attrs(op_def(OpId::Add), a);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Type);
    EXPECT_NE(std::string(e.what()).find("For 'Add', unknown attribute 'no_such_attr'"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace mycel
