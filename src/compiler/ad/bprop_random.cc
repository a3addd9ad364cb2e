// Backward rules of the random family (ops/defs/random.def): StandardNormal and UniformReal
// take no tensor inputs and are NODIFF, so the family has no rules. Dropout, which draws
// random numbers but has a gradient, is in the nn family (bprop_nn.cc).
#include "compiler/ad/bprop.h"

namespace mycel::ir {

BpropFn bprop_rule_random(OpId) { return nullptr; }

}  // namespace mycel::ir
