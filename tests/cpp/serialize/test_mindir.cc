// MINDIR export/import (serialize/mindir.h) on hand-built specialised IR: a loop (a
// self-tail-calling graph behind a switch), a weight, constants of several kinds and a tuple
// output survive the round trip bit for bit; files edited after export fail with errors
// naming the file and the node.
#include <gtest/gtest.h>

#include "../ir/ir_test_util.h"
#include "../runtime/test_vm_util.h"
#include "serialize/mindir.h"
#include "serialize/mindir_format.h"

namespace mycel::serialize {
namespace {

using ir::AbsPtr;
using ir::Abstract;
using ir::Builtin;
using ir::FuncGraph;
using ir::Node;
using ir::Value;
using vmtest::Builder;
using vmtest::f32;
using vmtest::i64;
using vmtest::tv;

// @main(n, x, w) = (Mul(@loop(0, n, x), w), 3, ("s", None), Cast{f64}(x))
// @loop(i, n, x) = switch(Less(i, n), partial(@body, i, n, x), partial(@exit, x))()
// @body(i, n, x) = @loop(i + 1, n, x * 0.5 + 1)
struct Program {
  Builder b;
  FuncGraph* main = nullptr;
  Tensor w = vmtest::make_tensor({4}, 3);

  Program() {
    Shape shape{4};
    AbsPtr it = i64({});
    main = b.graph("main", {it, f32(shape), f32(shape)});
    main->param(0)->set_name("n");
    main->param(1)->set_name("x");
    FuncGraph* loop = b.graph("loop", {it, it, f32(shape)});
    FuncGraph* body = b.graph("body", {it, it, f32(shape)});
    FuncGraph* exit = b.graph("exit", {f32(shape)});
    loop->is_loop = true;
    exit->set_output(b.param(exit, 0));
    Node* cond = b.prim(loop, OpId::Less, {b.param(loop, 0), b.param(loop, 1)});
    Node* c = b.builtin(loop, Builtin::TensorToScalar, {cond}, vmtest::bool_abs());
    Node* pb = b.builtin(loop, Builtin::Partial,
                         {b.ref(body), b.param(loop, 0), b.param(loop, 1), b.param(loop, 2)});
    Node* pe = b.builtin(loop, Builtin::Partial, {b.ref(exit), b.param(loop, 2)});
    Node* sw = b.builtin(loop, Builtin::Switch, {c, pb, pe});
    loop->set_output(b.call(loop, sw, {}, f32(shape)));
    Node* i1 = b.prim(body, OpId::Add, {b.param(body, 0), b.c(tv(scalar(1, DType::Int64)))});
    Node* x1 = b.prim(
        body, OpId::Add,
        {b.prim(body, OpId::Mul, {b.param(body, 2), b.c(tv(scalar(0.5)))}), b.c(tv(scalar(1.0)))});
    body->set_output(b.call(body, b.ref(loop), {i1, b.param(body, 1), x1}, f32(shape)));
    Node* r =
        b.call(main, b.ref(loop),
               {b.c(tv(scalar(0, DType::Int64))), b.param(main, 0), b.param(main, 1)}, f32(shape));
    Node* y = b.prim(main, OpId::Mul, {r, b.param(main, 2)});
    Attrs to64;
    to64.set("dtype", DType::Float64);
    Node* x64 = b.prim(main, OpId::Cast, {b.param(main, 1)}, to64);
    Value pair = Value::tuple({Value::string("s"), Value::none()});
    std::vector<AbsPtr> outs{y->abstract(), Abstract::constant(Value::integer(3)),
                             Abstract::constant(pair), x64->abstract()};
    main->set_output(b.builtin(main, Builtin::MakeTuple,
                               {y, b.c(Value::integer(3)), b.c(pair), x64}, Abstract::tuple(outs)));
    main->param(2)->set_name("w");
    ir::verify(main, {.specialized = true, .lifted = true});
  }

  static Tensor scalar(double v, DType dt = DType::Float32) {
    return dt == DType::Int64 ? Tensor::scalar(Scalar::from_int(static_cast<int64_t>(v)), dt)
                              : Tensor::scalar(Scalar::from_float(v), dt);
  }

  ExportSpec spec() {
    ExportSpec s;
    s.entry = main;
    s.num_inputs = 2;
    s.weight_names = {"net.w"};
    s.weights = {w};
    return s;
  }
};

std::vector<Value> args(int64_t n, const Tensor& x, const Tensor& w) {
  return {tv(Tensor::scalar(Scalar::from_int(n), DType::Int64)), tv(x), tv(w)};
}

void expect_same(const Value& a, const Value& b) {
  ASSERT_EQ(a.kind(), b.kind());
  if (a.is(ir::ValueKind::Tensor)) {
    EXPECT_TRUE(vmtest::bit_equal(a.as_tensor(), b.as_tensor()));
  } else if (a.is_sequence()) {
    ASSERT_EQ(a.items().size(), b.items().size());
    for (size_t i = 0; i < a.items().size(); ++i) expect_same(a.items()[i], b.items()[i]);
  } else {
    EXPECT_EQ(a, b);
  }
}

TEST(Mindir, RoundTripRunsTheSameAndRewritesTheSameBytes) {
  Program p;
  std::string bytes = export_mindir(p.spec());
  LoadedModel m = import_mindir(bytes, "prog.mindir");
  ASSERT_EQ(m.inputs.size(), 2u);
  EXPECT_EQ(m.input_names, (std::vector<std::string>{"n", "x"}));
  EXPECT_EQ(m.weight_names, (std::vector<std::string>{"net.w"}));
  EXPECT_TRUE(vmtest::bit_equal(m.weights[0], p.w));
  EXPECT_EQ(m.output->to_string(), p.main->output()->abstract()->to_string());
  EXPECT_EQ(m.exe->num_graphs(), 4u);
  auto original = vm::Executable::compile(p.main);
  Tensor x = vmtest::make_tensor({4}, 5);
  for (int64_t n : {0, 1, 7}) {
    SCOPED_TRACE(n);
    expect_same(m.exe->run(args(n, x, m.weights[0]), nullptr),
                original->run(args(n, x, p.w), nullptr));
  }
  // Writing the loaded module again gives the same file: nothing was lost or renamed.
  ExportSpec again;
  again.entry = m.entry;
  again.num_inputs = m.inputs.size();
  again.weight_names = m.weight_names;
  again.weights = m.weights;
  EXPECT_EQ(export_mindir(again), bytes);
}

TEST(Mindir, FileIsAModelProtoEndingWithItsChecksum) {
  Program p;
  std::string bytes = export_mindir(p.spec());
  mind_ir::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(bytes));
  EXPECT_EQ(model.producer_name(), "mycel");
  EXPECT_EQ(model.graph().name(), "main");
  EXPECT_EQ(model.functions_size(), 3);
  EXPECT_EQ(model.graph().input_size(), 2);
  ASSERT_EQ(model.graph().parameter_size(), 1);
  EXPECT_EQ(model.graph().parameter(0).name(), "net.w");
  EXPECT_EQ(model.graph().parameter(0).raw_data().size(), 16u);
  EXPECT_EQ(model.mycel_crc32(),
            format::crc32(std::string_view(bytes).substr(0, bytes.size() - format::kFooterSize)));
  EXPECT_EQ(format::crc32("123456789"), 0xCBF43926u);  // the CRC-32 check value
}

// Re-encodes an edited model with a valid checksum, as a careful forger would.
std::string reencode(const mind_ir::ModelProto& model) {
  mind_ir::ModelProto m = model;
  m.clear_mycel_crc32();
  std::string out = m.SerializeAsString();
  uint32_t crc = format::crc32(out);
  for (uint8_t b : format::kCrcTagBytes) out.push_back(static_cast<char>(b));
  for (int k = 0; k < 4; ++k) out.push_back(static_cast<char>((crc >> (8 * k)) & 0xFF));
  return out;
}

mind_ir::NodeProto* find_node(mind_ir::ModelProto& model, const std::string& op) {
  for (mind_ir::GraphProto& g : *model.mutable_functions())
    for (mind_ir::NodeProto& n : *g.mutable_node())
      if (n.op_type() == op) return &n;
  for (mind_ir::NodeProto& n : *model.mutable_graph()->mutable_node())
    if (n.op_type() == op) return &n;
  return nullptr;
}

TEST(Mindir, CorruptionIsCaught) {
  Program p;
  std::string bytes = export_mindir(p.spec());
  auto error_of = [](const std::string& b) {
    try {
      import_mindir(b, "f.mindir");
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Value);
      return std::string(e.what());
    }
    return std::string();
  };
  for (size_t n : {size_t{0}, size_t{5}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_NE(error_of(bytes.substr(0, n)).find("load: 'f.mindir': "), std::string::npos);
  EXPECT_NE(error_of(bytes.substr(0, bytes.size() / 2)).find("truncated"), std::string::npos);
  for (size_t pos : {size_t{3}, bytes.size() / 2, bytes.size() - 3}) {
    std::string bad = bytes;
    bad[pos] ^= 0x01;
    EXPECT_NE(error_of(bad).find("checksum mismatch"), std::string::npos) << pos;
  }
  mind_ir::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(bytes));
  {  // a stored abstract that the op's inference contradicts
    mind_ir::ModelProto m = model;
    find_node(m, "Mul")->mutable_node_attr(0)->mutable_tensors(0)->set_dims(0, 5);
    std::string e = error_of(reencode(m));
    EXPECT_NE(e.find("(Mul): the file says it returns f32[5], but its inputs give Float32[4]"),
              std::string::npos)
        << e;
  }
  {  // a graph call with an argument missing
    mind_ir::ModelProto m = model;
    find_node(m, "REF::loop")->mutable_input()->RemoveLast();
    std::string e = error_of(reencode(m));
    EXPECT_NE(e.find("(REF::loop): calls 'loop' with 2 arguments, but it takes 3"),
              std::string::npos)
        << e;
  }
  {  // an unknown builtin and a reference to nothing
    mind_ir::ModelProto m = model;
    find_node(m, "switch")->set_op_type("switcheroo");
    EXPECT_NE(error_of(reencode(m)).find("unknown builtin 'switcheroo'"), std::string::npos);
    m = model;
    find_node(m, "REF::loop")->set_op_type("REF::nowhere");
    EXPECT_NE(error_of(reencode(m)).find("calls 'nowhere', which is neither"), std::string::npos);
  }
  {  // another producer
    mind_ir::ModelProto m = model;
    m.set_producer_name("MindSpore");
    EXPECT_NE(error_of(reencode(m)).find("mycel reads only"), std::string::npos);
  }
}

// A host object (a Python function in real use) that no file can hold.
struct FakeObject : ir::HostObject {
  std::string repr() const override { return "<function host>"; }
  size_t hash() const override { return 1; }
  bool same(const ir::HostObject& o) const override { return this == &o; }
};

TEST(Mindir, HostObjectsCannotBeExported) {
  Builder b;
  FuncGraph* g = b.graph("main", {f32({3})});
  int32_t file = ir::register_source_file("net_mindir_test.py", {"def f(x):", "  y = host(x)"});
  Node* fallback = b.builtin(g, Builtin::PyExecute,
                             {b.c(Value::host(std::make_shared<FakeObject>())), b.param(g, 0)},
                             f32({3}), ir::SourceSpan{file, 2, 7});
  g->set_output(fallback);
  ExportSpec s;
  s.entry = g;
  s.num_inputs = 1;
  std::string e = ir::testing::error_of([&] { export_mindir(s); });
  EXPECT_NE(e.find("export: the network uses the Python fallback py_execute (<function host>) "
                   "(at net_mindir_test.py:2)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("y = host(x)"), std::string::npos) << e;
}

}  // namespace
}  // namespace mycel::serialize
