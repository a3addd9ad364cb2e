// The inside of ONNX import (serialize/onnx_import.h): the state one graph's translation
// works on (Translator) and the table of per-op translations (onnx_ops.def).
//
// A translation reads the current ONNX node through the Translator (its inputs as Vals, its
// attributes, each read marking it handled) and emits op-table primitives with op(), which
// infers their outputs at once (a bad shape is an error naming the node) and folds them when
// every input is a constant. It then sets the node's outputs. Translator::finish_node() fails
// when an attribute was left unread (so none is silently ignored) or an output the graph uses
// was not produced.
#pragma once

#include <onnx/onnx_pb.h>  // defines ONNX_API, includes onnx-ml.pb.h (ONNX_ML)

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/anf.h"
#include "ops/op_table.h"
#include "serialize/onnx_import.h"

namespace mycel::serialize::onnx_detail {

// An ONNX value while its graph is translated.
struct Val {
  ir::Node* node = nullptr;     // null: a constant or weight no node has used yet
  TensorMeta meta;              // dtype and static shape
  std::optional<Tensor> value;  // known at import: a constant, or a weight's stored value
  bool weight = false;          // a float initializer: a Parameter when used, never folded
  std::string name;             // the ONNX name (a weight's parameter name)
  bool constant() const { return value.has_value() && !weight; }
};

// The ONNX data type code of `dt`, and the mycel dtype of an ONNX code (false: none).
bool dtype_of_onnx(int code, DType* out);

class Translator {
 public:
  Translator(std::string file, const OnnxOptions& options, LoadedModel& out);

  // ---- the graph ----
  void set_opset(int64_t opset) { opset_ = opset; }
  int64_t opset() const { return opset_; }
  ir::FuncGraph* graph() const { return g_; }
  void define(const std::string& name, Val v);  // an ONNX value (error if defined twice)
  const Val& lookup(const std::string& name);   // error if not defined before its use
  ir::Node* node_of(const Val& v);              // materialises constants and weights
  Tensor decode_tensor(const onnx::TensorProto& t, const std::string& what);
  [[noreturn]] void fail(const std::string& msg) const;  // "load_onnx: '<file>': [where: ]msg"
  void set_where(std::string where) { where_ = std::move(where); }

  // ---- the node being translated ----
  void start_node(const onnx::NodeProto& np, int index);
  void finish_node();
  const onnx::NodeProto& node() const { return *np_; }
  const std::string& op_type() const { return np_->op_type(); }
  int num_inputs() const { return np_->input_size(); }
  bool has_input(int i) const { return i < np_->input_size() && !np_->input(i).empty(); }
  const Val& in(int i);  // error if absent
  // Input i's value, which must be known at import (`what` names it in the error).
  Tensor const_in(int i, const char* what);
  std::vector<int64_t> ints_in(int i, const char* what);  // an integer tensor's elements
  double scalar_in(int i, const char* what);              // a one-element tensor's value
  int num_outputs() const { return np_->output_size(); }
  bool wants_output(int i) const { return i < np_->output_size() && !np_->output(i).empty(); }
  void set_out(int i, Val v);

  bool has_attr(const char* name) const;
  int64_t attr_int(const char* name, int64_t dflt);
  double attr_float(const char* name, double dflt);
  std::string attr_str(const char* name, const std::string& dflt);
  std::vector<int64_t> attr_ints(const char* name, std::vector<int64_t> dflt);
  std::vector<double> attr_floats(const char* name);
  std::optional<Tensor> attr_tensor(const char* name);
  void ignore_attr(const char* name);  // an attribute that does not change inference results
  // The node's attribute as a required value: error when absent.
  int64_t attr_int_req(const char* name);

  // ---- emitting ----
  // One call of `id` on `ins`: inferred now (an error names the node), folded by
  // OnnxOptions::fold when every input is a constant and the op has no effect.
  std::vector<Val> op(OpId id, const std::vector<Val>& ins, const Attrs& given = {});
  Val op1(OpId id, const std::vector<Val>& ins, const Attrs& given = {});
  Val constant(Tensor t);
  Val scalar(double v, DType dt);  // a 0-d constant
  // A constant of `shape` filled with `v`; constants made at import are limited to 256 MiB.
  Val filled(const Shape& shape, Scalar v, DType dt);
  Val cast(const Val& v, DType dt);

 private:
  const onnx::AttributeProto* attr(const char* name, onnx::AttributeProto::AttributeType type);

  std::string file_;
  const OnnxOptions& options_;
  LoadedModel& out_;
  ir::Module* m_;
  ir::FuncGraph* g_;
  int64_t opset_ = 0;
  std::string where_;
  std::unordered_map<std::string, Val> vals_;
  const onnx::NodeProto* np_ = nullptr;
  std::vector<bool> attr_read_;
  std::vector<bool> out_set_;
};

// A translation: reads the current node and sets its outputs. `arg` is the table's op-table
// op for translations shared by several ONNX ops (the unary and binary families).
using TranslateFn = void (*)(Translator& t, OpId arg);

struct OnnxOp {
  std::string_view name;
  TranslateFn fn;
  OpId arg;
};

// The translation of an ONNX op type of the default domain, or nullptr.
const OnnxOp* find_onnx_op(std::string_view op_type);

// The translations, by family (onnx_ops_math.cc, onnx_ops_nn.cc, onnx_ops_array.cc).
#define ONNX_OP(name, fn, arg) void fn(Translator& t, OpId arg_);
#include "serialize/onnx_ops.def"
#undef ONNX_OP

// Shared helpers of the translations.
// An axis of a rank-`rank` tensor in [-rank, rank), as an index in [0, rank).
int64_t norm_axis(Translator& t, int64_t axis, int64_t rank, const char* what);
// Reshape to `shape` (static, no -1).
Val reshape(Translator& t, const Val& x, const Shape& shape);
// Fails unless every value is in [lo, 2^40]: sizes, pads, strides and repeats from a file,
// bounded before shape arithmetic uses them.
void check_range(Translator& t, const std::vector<int64_t>& v, int64_t lo, const char* what);
// The StridedSlice end_mask bit of `axis` (an error past 62 axes).
int64_t mask_bit(Translator& t, int64_t axis);

}  // namespace mycel::serialize::onnx_detail
