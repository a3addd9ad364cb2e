// The grad API's rules, once for both modes: which options a gradient function may have
// (MindSpore 2.x's grad, value_and_grad and GradOperation), which calls of it are valid, which
// output it differentiates and what it returns. GRAPH mode applies them while specialising a
// grad call (specialize_grad.cc; its errors then name the user's line); PYNATIVE mode through
// the _C._grad_* functions (python/py_grad.cc) that mycel.ops.composite calls around the
// recording. So both modes raise the same typed errors (TypeError, ValueError, IndexError)
// with the same words, and return the same shapes.
//
// A gradient function carries its options as one value (the host's _mycel_grad[1]):
//
//   (positions, weights, has_aux, return_value, sens_param, single_weight, return_ids)
//
// positions: None (no input gradients), an int (one gradient, returned bare), a tuple of
// ints, "all" (GradOperation's get_all: every input, zeros where an input has none) or
// "first" (GradOperation's default: the first input's gradient, returned bare; a function
// called without inputs has none, and the result is an empty tuple, as MindSpore's);
// weights: None or a tuple of Parameters (host objects) whose gradients follow the inputs';
// has_aux: the function returns (out, aux...) and out is differentiated; return_value:
// value_and_grad; sens_param: the call's last argument is the output's sensitivity;
// single_weight: the weights were given as one Parameter, not a sequence, and its gradient
// is returned bare (MindSpore's rule); return_ids: each gradient comes paired with its id
// (input position, or the Parameter's name) for get_grad (GRAPH mode's; PYNATIVE pairs them
// in Python, mycel.ops.composite._GradWithIds).
#pragma once

#include <vector>

#include "compiler/host.h"
#include "ir/abstract.h"
#include "ir/value.h"

namespace mycel::compiler {

struct GradSpec {
  ir::Value positions;
  std::vector<ir::Value> weights;
  bool has_weights = false;
  bool has_aux = false;
  bool return_value = false;
  bool sens_param = false;
  bool single_weight = false;  // weights was one Parameter: its gradient is returned bare
  bool return_ids = false;     // gradients paired with their ids: (position, g), (name, g)

  // From an options value made by grad_options or grad_operation_options.
  static GradSpec parse(const ir::Value& options);
};

// grad(fn, grad_position, weights, has_aux) and value_and_grad(...): checks the arguments
// (grad_position None, an int or a tuple of ints; not both it and weights None; has_aux a
// bool) and returns the options value. weights: None, a Parameter or a sequence of them.
// A tuple of one position is that position (its gradient comes bare, as MindSpore's).
ir::Value grad_options(bool value_and_grad, const ir::Value& positions, const ir::Value& weights,
                       const ir::Value& has_aux);

// The options with return_ids set.
ir::Value with_return_ids(const ir::Value& options);

// GradOperation(get_all, get_by_list, sens_param)(fn, weights): the options value;
// get_by_list with weights None takes no weights (their gradients: an empty tuple).
ir::Value grad_operation_options(bool get_all, bool get_by_list, bool sens_param,
                                 const ir::Value& weights);

// One call of a gradient function with `nargs` arguments (the sensitivity last, with
// sens_param).
//
// An input that is a compile-time constant number (a Python int or a tuple of them, not
// mycel.mutable: MindSpore compiles it into the graph) has no gradient: its position is left
// out of `positions`, so grad(f)(1, 2) returns an empty tuple and get_all returns the other
// inputs' gradients. A
// Python float keeps mycel's rule (an f32 tensor); GRAD_FOR_SCALAR (scalar_grads) gives
// numbers gradients.
struct GradCall {
  size_t n = 0;                   // the function's inputs (the sensitivity not counted)
  std::vector<size_t> positions;  // the inputs whose gradients are returned, in order
  bool single = false;            // grad_position was an int: its gradient is returned bare
  bool all = false;               // get_all: inputs without a gradient get zeros
};

// Whether the compiler switch GRAD_FOR_SCALAR is on (MindSpore's compile_config; mycel
// reads it from the environment as MS_DEV_GRAD_FOR_SCALAR, which
// mycel._extends.parse.compile_config sets when the attribute is assigned): gradients with
// respect to Python numbers (int, float; not bool) are then taken, as numbers, by
// differentiating with respect to a 0-d tensor holding the number (int64 or float32).
bool scalar_grads();

// Whether a wanted input of abstract `a` is a constant number with no gradient (left out of
// GradCall::positions), when scalar_grads() is off: a Python int known at compile time, or a
// non-empty tuple / list of them at any depth (a shape: MindSpore's get_all leaves it out,
// so grad(f)(indices, values, (3, 4), dense)'s third gradient is dense's).
bool constant_number(const ir::AbsPtr& a);

// The positions of a call, without checks: those out of range are left out (GRAPH mode's
// Python entry uses this to take Python floats there as f32 tensors before compiling).
GradCall grad_positions(const GradSpec& s, size_t nargs);

// The checks of a call whose arguments have abstracts `args`: the sensitivity is there, every
// position is in range, every wanted input is differentiable (a float or integer tensor, a tuple
// holding one, or a Python float, which is taken as an f32 tensor; get_all takes anything), and the
// weights are Parameters (`host` tells).
GradCall check_grad_call(const GradSpec& s, const std::vector<ir::AbsPtr>& args, ir::Host& host);

// Weight j must be a Parameter; `what` names what it is instead.
void check_grad_weight(bool is_parameter, size_t j, const std::string& what);

// The output that is differentiated, from the function's output `out`: out, or out[0] with
// has_aux (which needs a tuple of at least two). A sensitivity needs it to be
// differentiable, or to hold no tensor at all (a shape: its sensitivity is ignored and the
// gradients are zeros, as MindSpore's).
ir::AbsPtr grad_target(const GradSpec& s, const ir::AbsPtr& out);

// Whether a value of abstract `a` holds a tensor (at any depth of tuples, lists and dicts).
bool holds_tensor(const ir::AbsPtr& a);

// A sensitivity (sens_param) must be the cotangent of the differentiated output: the same
// structure, dtypes and shapes; for an output holding no tensor it is ignored.
void check_grad_sens(const ir::AbsPtr& target, const ir::AbsPtr& sens);

// What a call returns, from its parts: the gradients of the call's positions (one per
// position), of the weights, the function's output and, with has_aux, its items. T is a
// graph node (GRAPH) or a Python object (PYNATIVE); tuple(items) makes a tuple of them.
//   grads = positions None: the weights' tuple; an int: its gradient; else a tuple of them,
//           followed by the weights' as (inputs, weights) when there are weights
//   return_value: (out, grads); has_aux: (grads, aux), aux the tuple out[1:] (a 1-tuple for
//   one auxiliary output, as MindSpore's `grads, (z,) = grad_fn(x)`)
template <class T, class Tuple>
T grad_result(const GradSpec& s, const GradCall& call, const std::vector<T>& input_grads,
              const std::vector<T>& weight_grads, const T& out, const std::vector<T>& out_items,
              Tuple tuple) {
  T grads{};
  bool inputs = !s.positions.is_none();
  // One wanted input that has no gradient (a constant number): an empty tuple.
  if (inputs) grads = call.single && !input_grads.empty() ? input_grads[0] : tuple(input_grads);
  if (s.has_weights) {
    T gw = s.single_weight ? weight_grads.at(0) : tuple(weight_grads);
    grads = inputs ? tuple(std::vector<T>{grads, gw}) : gw;
  }
  if (s.return_value) return tuple(std::vector<T>{out, grads});
  if (!s.has_aux) return grads;
  T aux = tuple(std::vector<T>(out_items.begin() + 1, out_items.end()));
  return tuple(std::vector<T>{grads, aux});
}

}  // namespace mycel::compiler
