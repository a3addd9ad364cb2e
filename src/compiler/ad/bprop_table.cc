// bprop_rule: the table of backward rules, one entry per op in OpId order, generated from the
// grad column of the op table's .def lines (bprop.h).
#include "compiler/ad/bprop.h"

namespace mycel::ir {

namespace {

#define NODIFF nullptr
constexpr BpropFn kRules[] = {
#define OP(name, n_in, n_out, infer, kernel, ref, grad, ...) grad,
#include "ops/defs/all.def"
#undef OP
};
#undef NODIFF

}  // namespace

BpropFn bprop_rule(OpId op) { return kRules[static_cast<size_t>(op)]; }

}  // namespace mycel::ir
