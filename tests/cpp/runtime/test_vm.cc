// The graph executor on prim chains, control flow (switch, partial, loops as tail calls,
// deep recursion) and its memory plan. Oracles: eager run_op on the same tensors, loops
// written out in C++, and the allocator's statistics.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "base/interrupt.h"
#include "ir/depth.h"
#include "tensor/allocator.h"
#include "test_vm_util.h"

namespace mycel::vmtest {
namespace {

using vm::Executable;

Attrs attrs1(std::string_view k, AttrValue v) {
  Attrs a;
  a.set(k, std::move(v));
  return a;
}

TEST(VmPrim, ChainBitIdenticalToEager) {
  Builder b;
  FuncGraph* g = b.graph("main", {f32({4, 5}), f32({5, 3})});
  Tensor bias = make_tensor({3, 1}, 7);
  Node* mm = b.prim(g, OpId::MatMul, {b.param(g, 0), b.param(g, 1)});
  Node* r = b.prim(g, OpId::ReLU, {mm});
  Node* t = b.prim(g, OpId::Transpose, {r}, attrs1("perm", std::vector<int64_t>{1, 0}));
  Node* sq = b.prim(g, OpId::Mul, {t, t});  // a strided view as input
  Node* ad = b.prim(g, OpId::Add, {sq, b.c(tv(bias))});
  Node* ex = b.prim(g, OpId::Exp, {ad});
  Node* sm = b.prim(g, OpId::ReduceSum, {ex}, attrs1("axis", std::vector<int64_t>{1}));
  Node* rs = b.prim(g, OpId::Reshape, {ex}, attrs1("shape", std::vector<int64_t>{12}));
  g->set_output(b.builtin(g, Builtin::MakeTuple, {sm, rs}));
  ir::verify(g, {.specialized = true, .lifted = true});

  auto exe = Executable::compile(g);
  Tensor x = make_tensor({4, 5}, 1), y = make_tensor({5, 3}, 2);
  Value out = exe->run({tv(x), tv(y)}, nullptr);

  Tensor e = run_op1(OpId::MatMul, {x, y});
  e = run_op1(OpId::ReLU, {e});
  e = run_op1(OpId::Transpose, {e}, attrs1("perm", std::vector<int64_t>{1, 0}));
  e = run_op1(OpId::Mul, {e, e});
  e = run_op1(OpId::Add, {e, bias});
  e = run_op1(OpId::Exp, {e});
  Tensor es = run_op1(OpId::ReduceSum, {e}, attrs1("axis", std::vector<int64_t>{1}));
  Tensor er = run_op1(OpId::Reshape, {e}, attrs1("shape", std::vector<int64_t>{12}));
  ASSERT_TRUE(out.is(ValueKind::Tuple));
  ASSERT_EQ(out.items().size(), 2u);
  EXPECT_TRUE(bit_equal(out.items()[0].as_tensor(), es));
  EXPECT_TRUE(bit_equal(out.items()[1].as_tensor(), er));
  // Reshape of a contiguous tensor is a view, as in eager mode.
  EXPECT_EQ(out.items()[1].as_tensor().shape(), (Shape{12}));
}

TEST(VmPrim, MultiOutputAndGetItem) {
  Builder b;
  FuncGraph* g = b.graph("main", {f32({4, 3})});
  Attrs sa;
  sa.set("axis", int64_t{0});
  sa.set("output_num", int64_t{2});
  Node* sp = b.prim(g, OpId::Split, {b.param(g, 0)}, sa);
  Node* first = b.builtin(g, Builtin::GetItem, {sp, b.c(Value::integer(0))}, f32({2, 3}));
  Node* last = b.builtin(g, Builtin::GetItem, {sp, b.c(Value::integer(-1))}, f32({2, 3}));
  g->set_output(b.prim(g, OpId::Sub, {first, last}));
  auto exe = Executable::compile(g);
  Tensor x = make_tensor({4, 3}, 3);
  Value out = exe->run({tv(x)}, nullptr);
  TensorList parts = run_op(OpId::Split, {x}, sa);
  EXPECT_TRUE(bit_equal(out.as_tensor(), run_op1(OpId::Sub, {parts[0], parts[1]})));
}

TEST(VmPrim, InplaceBatchNormUpdatesRunningStats) {
  Builder b;
  FuncGraph* g = b.graph("main", {f32({2, 3, 2, 2})});
  Attrs a;
  a.set("is_training", true);
  Tensor scale = make_tensor({3}, 1), bias = make_tensor({3}, 2);
  Tensor mean = Tensor::zeros({3}, DType::Float32), var = Tensor::zeros({3}, DType::Float32);
  var.fill(Scalar::from_float(1.0));
  Tensor mean2 = mean.clone(), var2 = var.clone();
  Node* bn = b.prim(g, OpId::BatchNorm,
                    {b.param(g, 0), b.c(tv(scale)), b.c(tv(bias)), b.c(tv(mean)), b.c(tv(var))}, a);
  g->set_output(b.builtin(g, Builtin::GetItem, {bn, b.c(Value::integer(0))}, f32({2, 3, 2, 2})));
  auto exe = Executable::compile(g);
  Tensor x = make_tensor({2, 3, 2, 2}, 4);
  Value out = exe->run({tv(x)}, nullptr);
  TensorList e = run_op(OpId::BatchNorm, {x, scale, bias, mean2, var2}, a);
  EXPECT_TRUE(bit_equal(out.as_tensor(), e[0]));
  EXPECT_TRUE(bit_equal(mean, mean2));  // the constant's running mean was updated in place
  EXPECT_TRUE(bit_equal(var, var2));
  EXPECT_FALSE(bit_equal(mean, Tensor::zeros({3}, DType::Float32)));
}

TEST(VmPrim, NodeWithoutAbstractInfersAtRunTime) {
  Builder b;
  FuncGraph* g = b.graph("main", {f32({3}), f32({3})});
  Node* n = b.m.call_prim(g, op_def(OpId::Mul), make_attrs(op_def(OpId::Mul), {}),
                          {b.param(g, 0), b.param(g, 1)});
  g->set_output(n);
  auto exe = Executable::compile(g);
  Tensor x = make_tensor({3}, 1), y = make_tensor({3}, 2);
  EXPECT_TRUE(bit_equal(exe->run({tv(x), tv(y)}, nullptr).as_tensor(), run_op1(OpId::Mul, {x, y})));
  EXPECT_NE(exe->dump().find(" : ?"), std::string::npos) << exe->dump();
}

// main(x, flag) = switch(flag, partial(@then, x), partial(@else, x))() + x
TEST(VmControl, IfThroughSwitchAndPartial) {
  Builder b;
  FuncGraph* then_g = b.graph("then", {f32({3})});
  then_g->set_output(b.prim(then_g, OpId::Mul, {b.param(then_g, 0), b.param(then_g, 0)}));
  FuncGraph* else_g = b.graph("else", {f32({3})});
  else_g->set_output(b.prim(else_g, OpId::Neg, {b.param(else_g, 0)}));
  FuncGraph* g = b.graph("main", {f32({3}), bool_abs()});
  b.m.set_entry(g);
  Node* x = b.param(g, 0);
  Node* pt = b.builtin(g, Builtin::Partial, {b.ref(then_g), x});
  Node* pe = b.builtin(g, Builtin::Partial, {b.ref(else_g), x});
  Node* sw = b.builtin(g, Builtin::Switch, {b.param(g, 1), pt, pe});
  Node* r = b.call(g, sw, {}, f32({3}));
  g->set_output(b.prim(g, OpId::Add, {r, x}));
  ir::verify(g, {.specialized = true, .lifted = true});
  auto exe = Executable::compile(g);
  EXPECT_EQ(exe->num_graphs(), 3u);
  Tensor xt = make_tensor({3}, 5);
  Value yes = exe->run({tv(xt), Value::boolean(true)}, nullptr);
  Value no = exe->run({tv(xt), Value::boolean(false)}, nullptr);
  EXPECT_TRUE(bit_equal(yes.as_tensor(), run_op1(OpId::Add, {run_op1(OpId::Mul, {xt, xt}), xt})));
  EXPECT_TRUE(bit_equal(no.as_tensor(), run_op1(OpId::Add, {run_op1(OpId::Neg, {xt}), xt})));
}

// while i < n: x = x * 0.5 + 1; i = i + 1     as a self-tail-calling graph:
//   @loop(i, n, x) = switch(tensor_to_scalar(Less(i, n)), partial(@body, i, n, x),
//                           partial(@exit, x))()
//   @body(i, n, x) = @loop(Add(i, 1), n, Add(Mul(x, 0.5), 1))
//   @main(n, x)    = Mul(@loop(0, n, x), 2)
struct LoopProgram {
  Builder b;
  std::unique_ptr<Executable> exe;
  Tensor half = Tensor::scalar(Scalar::from_float(0.5), DType::Float32);
  Tensor one = Tensor::scalar(Scalar::from_float(1.0), DType::Float32);
  Tensor two = Tensor::scalar(Scalar::from_float(2.0), DType::Float32);

  explicit LoopProgram(const Shape& shape) {
    AbsPtr it = i64({});
    FuncGraph* main = b.graph("main", {it, f32(shape)});
    FuncGraph* loop = b.graph("loop", {it, it, f32(shape)});
    FuncGraph* body = b.graph("body", {it, it, f32(shape)});
    FuncGraph* exit = b.graph("exit", {f32(shape)});
    exit->set_output(b.param(exit, 0));

    Node* cond = b.prim(loop, OpId::Less, {b.param(loop, 0), b.param(loop, 1)});
    Node* c = b.builtin(loop, Builtin::TensorToScalar, {cond}, bool_abs());
    Node* pb = b.builtin(loop, Builtin::Partial,
                         {b.ref(body), b.param(loop, 0), b.param(loop, 1), b.param(loop, 2)});
    Node* pe = b.builtin(loop, Builtin::Partial, {b.ref(exit), b.param(loop, 2)});
    Node* sw = b.builtin(loop, Builtin::Switch, {c, pb, pe});
    loop->set_output(b.call(loop, sw, {}, f32(shape)));

    Node* i1 =
        b.prim(body, OpId::Add,
               {b.param(body, 0), b.c(tv(Tensor::scalar(Scalar::from_int(1), DType::Int64)))});
    Node* x1 = b.prim(body, OpId::Add,
                      {b.prim(body, OpId::Mul, {b.param(body, 2), b.c(tv(half))}), b.c(tv(one))});
    body->set_output(b.call(body, b.ref(loop), {i1, b.param(body, 1), x1}, f32(shape)));

    Node* i0 = b.c(tv(Tensor::scalar(Scalar::from_int(0), DType::Int64)));
    Node* r = b.call(main, b.ref(loop), {i0, b.param(main, 0), b.param(main, 1)}, f32(shape));
    main->set_output(b.prim(main, OpId::Mul, {r, b.c(tv(two))}));
    ir::verify(main, {.specialized = true, .lifted = true});
    exe = Executable::compile(main);
  }

  Tensor eager(Tensor x, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) x = run_op1(OpId::Add, {run_op1(OpId::Mul, {x, half}), one});
    return run_op1(OpId::Mul, {x, two});
  }
  static Value count(int64_t n) { return tv(Tensor::scalar(Scalar::from_int(n), DType::Int64)); }
};

TEST(VmControl, WhileLoop100kInConstantStackAndMemory) {
  LoopProgram p({256});
  Tensor x = make_tensor({256}, 9);
  const int64_t n = 100000;
  // Memory of a short and a long run: the long one must not hold more.
  vm::RunStats short_stats, long_stats;
  Value short_out = p.exe->run({LoopProgram::count(10), tv(x)}, nullptr, &short_stats);
  reset_peak_memory();
  int64_t before = allocator_stats().in_use;
  p.exe->run({LoopProgram::count(10), tv(x)}, nullptr);
  int64_t short_peak = allocator_stats().peak_in_use - before;

  Value out;
  int64_t long_peak = 0, after = 0;
  run_with_stack(256 << 10, [&] {  // 256 KiB of C++ stack for 100,000 iterations
    reset_peak_memory();
    int64_t b0 = allocator_stats().in_use;
    out = p.exe->run({LoopProgram::count(n), tv(x)}, nullptr, &long_stats);
    long_peak = allocator_stats().peak_in_use - b0;
    after = allocator_stats().in_use - b0;
  });
  EXPECT_TRUE(bit_equal(out.as_tensor(), p.eager(x, n)));
  EXPECT_TRUE(bit_equal(short_out.as_tensor(), p.eager(x, 10)));
  EXPECT_GT(long_stats.instructions, 100000u * 8);
  EXPECT_EQ(long_stats.max_frames, short_stats.max_frames);  // tail calls add no frames
  EXPECT_EQ(long_stats.max_frames, 2u);
  EXPECT_EQ(long_stats.max_registers, short_stats.max_registers);
  EXPECT_LE(long_peak, short_peak + 4096) << "short " << short_peak << " long " << long_peak;
  EXPECT_LE(after, 2048);  // only the result (1 KiB) is left
}

// A pending interrupt (base/interrupt.h) stops a loop between instructions: with no host, a
// RuntimeError "interrupted" that clears the flag; a host whose check_signals returns lets
// the run go on to the same result.
TEST(VmInterrupt, PendingFlagStopsALoopWithoutHost) {
  LoopProgram p({4});
  Tensor x = make_tensor({4}, 3);
  set_interrupt_pending(true);
  try {
    p.exe->run({LoopProgram::count(1000000000), tv(x)}, nullptr);
    ADD_FAILURE() << "the loop was not interrupted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Runtime);
    EXPECT_NE(std::string(e.what()).find("interrupted (SIGINT)"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(interrupt_pending());
}

TEST(VmInterrupt, FlagSetByAnotherThreadStopsARunningLoop) {
  LoopProgram p({4});
  Tensor x = make_tensor({4}, 3);
  std::thread t([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    set_interrupt_pending(true);
  });
  // Unstopped, 2e7 iterations take many seconds: a failure, not a hang.
  EXPECT_THROW(p.exe->run({LoopProgram::count(20000000), tv(x)}, nullptr), Error);
  t.join();
  EXPECT_FALSE(interrupt_pending());
}

struct ReturningHost : FakeHost {
  int checks = 0;
  void check_signals() override {
    ++checks;
    set_interrupt_pending(false);
  }
};

TEST(VmInterrupt, HostThatReturnsLetsTheRunFinish) {
  LoopProgram p({4});
  Tensor x = make_tensor({4}, 3);
  ReturningHost host;
  set_interrupt_pending(true);
  Value out = p.exe->run({LoopProgram::count(100), tv(x)}, &host);
  EXPECT_EQ(host.checks, 1);
  EXPECT_TRUE(bit_equal(out.as_tensor(), p.eager(x, 100)));
}

std::atomic<int> g_previous_calls{0};
void previous_handler(int) { g_previous_calls.fetch_add(1); }

// chain_sigint_handler puts the flag-setting handler in front of the current one, once, and
// installs nothing over an ignored SIGINT.
TEST(VmInterrupt, ChainedSigintHandlerSetsFlagAndCallsThePreviousOne) {
  struct sigaction prev = {}, saved = {};
  prev.sa_handler = previous_handler;
  sigemptyset(&prev.sa_mask);
  ASSERT_EQ(sigaction(SIGINT, &prev, &saved), 0);
  set_interrupt_pending(false);
  g_previous_calls = 0;
  chain_sigint_handler();
  chain_sigint_handler();  // already installed: not chained to itself
  raise(SIGINT);
  EXPECT_TRUE(interrupt_pending());
  EXPECT_EQ(g_previous_calls.load(), 1);
  set_interrupt_pending(false);

  struct sigaction ign = {};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  ASSERT_EQ(sigaction(SIGINT, &ign, nullptr), 0);
  chain_sigint_handler();
  struct sigaction now = {};
  ASSERT_EQ(sigaction(SIGINT, nullptr, &now), 0);
  EXPECT_FALSE(now.sa_flags & SA_SIGINFO);
  EXPECT_EQ(now.sa_handler, SIG_IGN);
  raise(SIGINT);  // ignored
  EXPECT_FALSE(interrupt_pending());
  ASSERT_EQ(sigaction(SIGINT, &saved, nullptr), 0);
}

// @sum(n) = switch(n == 0, partial(@zero), partial(@rec, n))()
// @rec(n) = n + @sum(n - 1)          (not a tail call: the add waits for the result)
FuncGraph* build_sum(Builder& b) {
  FuncGraph* sum = b.graph("sum", {int_abs()});
  FuncGraph* zero = b.graph("zero", {});
  FuncGraph* rec = b.graph("rec", {int_abs()});
  zero->set_output(b.c(Value::integer(0)));
  Node* n = b.param(sum, 0);
  Node* is0 = b.builtin(sum, Builtin::Eq, {n, b.c(Value::integer(0))}, bool_abs());
  Node* sw = b.builtin(sum, Builtin::Switch,
                       {is0, b.builtin(sum, Builtin::Partial, {b.ref(zero)}),
                        b.builtin(sum, Builtin::Partial, {b.ref(rec), n})});
  sum->set_output(b.call(sum, sw, {}, int_abs()));
  Node* m = b.param(rec, 0);
  Node* sub = b.builtin(rec, Builtin::Sub, {m, b.c(Value::integer(1))}, int_abs());
  Node* r = b.call(rec, b.ref(sum), {sub}, int_abs());
  rec->set_output(b.builtin(rec, Builtin::Add, {m, r}, int_abs()));
  return sum;
}

TEST(VmControl, DeepNonTailRecursion) {
  Builder b;
  auto exe = Executable::compile(build_sum(b));
  // The frames live on the heap, so a small C++ stack runs it.
  Value out;
  vm::RunStats stats;
  run_with_stack(256 << 10, [&] { out = exe->run({Value::integer(10000)}, nullptr, &stats); });
  ASSERT_TRUE(out.is(ValueKind::Int));
  EXPECT_EQ(out.as_int(), 10000 * 10001 / 2);
  EXPECT_GE(stats.max_frames, 10000u);
  // Runaway recursion is a RuntimeError naming the limit, not a crash.
  try {
    exe->run({Value::integer(-1)}, nullptr);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Runtime);
    EXPECT_NE(std::string(e.what()).find("maximum recursion depth"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("more than 200000"), std::string::npos);
  }
  // A max_call_depth past the least limit raises it: sum(n) nests n + 1 calls of @sum.
  const int saved = ir::max_call_depth();
  ir::set_max_call_depth(300000);
  EXPECT_EQ(exe->run({Value::integer(250000)}, nullptr).as_int(), int64_t{250000} * 250001 / 2);
  try {
    exe->run({Value::integer(-1)}, nullptr);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 300000"), std::string::npos);
  }
  ir::set_max_call_depth(saved);
}

// @even(n) = switch(n == 0, partial(@yes), partial(@odd_step, n))()
// @odd(n)  = switch(n == 0, partial(@no),  partial(@even_step, n))()
// @odd_step(n) = @odd(n - 1); @even_step(n) = @even(n - 1): mutual tail calls.
TEST(VmControl, MutualTailRecursion) {
  Builder b;
  FuncGraph* even = b.graph("even", {int_abs()});
  FuncGraph* odd = b.graph("odd", {int_abs()});
  FuncGraph* yes = b.graph("yes", {});
  FuncGraph* no = b.graph("no", {});
  FuncGraph* odd_step = b.graph("odd_step", {int_abs()});
  FuncGraph* even_step = b.graph("even_step", {int_abs()});
  yes->set_output(b.c(Value::boolean(true)));
  no->set_output(b.c(Value::boolean(false)));
  auto decide = [&](FuncGraph* g, FuncGraph* base, FuncGraph* step) {
    Node* n = b.param(g, 0);
    Node* is0 = b.builtin(g, Builtin::Eq, {n, b.c(Value::integer(0))}, bool_abs());
    Node* sw = b.builtin(g, Builtin::Switch,
                         {is0, b.builtin(g, Builtin::Partial, {b.ref(base)}),
                          b.builtin(g, Builtin::Partial, {b.ref(step), n})});
    g->set_output(b.call(g, sw, {}, bool_abs()));
  };
  decide(even, yes, odd_step);
  decide(odd, no, even_step);
  auto step = [&](FuncGraph* g, FuncGraph* target) {
    Node* sub = b.builtin(g, Builtin::Sub, {b.param(g, 0), b.c(Value::integer(1))}, int_abs());
    g->set_output(b.call(g, b.ref(target), {sub}, bool_abs()));
  };
  step(odd_step, odd);
  step(even_step, even);
  auto exe = Executable::compile(even);
  vm::RunStats stats;
  Value a, c;
  run_with_stack(256 << 10, [&] {
    a = exe->run({Value::integer(100001)}, nullptr, &stats);
    c = exe->run({Value::integer(100000)}, nullptr);
  });
  EXPECT_FALSE(a.as_bool());
  EXPECT_TRUE(c.as_bool());
  EXPECT_EQ(stats.max_frames, 1u);
}

// Closures: partial(partial(@g, 1), 2)(x) and a higher-order @apply(f, x) = f(x).
TEST(VmControl, ClosuresAndHigherOrderCalls) {
  Builder b;
  FuncGraph* g3 = b.graph("g3", {int_abs(), int_abs(), int_abs()});
  {
    Node* a = b.builtin(g3, Builtin::Mul, {b.param(g3, 0), b.c(Value::integer(100))}, int_abs());
    Node* c = b.builtin(g3, Builtin::Mul, {b.param(g3, 1), b.c(Value::integer(10))}, int_abs());
    Node* s = b.builtin(g3, Builtin::Add, {a, c}, int_abs());
    g3->set_output(b.builtin(g3, Builtin::Add, {s, b.param(g3, 2)}, int_abs()));
  }
  FuncGraph* apply = b.graph("apply", {Abstract::any(), int_abs()});
  apply->set_output(b.call(apply, b.param(apply, 0), {b.param(apply, 1)}, int_abs()));
  FuncGraph* main = b.graph("main", {int_abs()});
  b.m.set_entry(main);
  Node* p1 = b.builtin(main, Builtin::Partial, {b.ref(g3), b.c(Value::integer(1))});
  Node* p2 = b.builtin(main, Builtin::Partial, {p1, b.c(Value::integer(2))});
  Node* direct = b.call(main, p2, {b.param(main, 0)}, int_abs());
  Node* via = b.call(main, b.ref(apply), {p2, b.c(Value::integer(7))}, int_abs());
  // A prim as a first-class value, called through @apply: Neg(t).
  Node* prim = b.c(Value::prim(op_def(OpId::Neg), {}));
  Node* t = b.c(tv(make_tensor({2}, 3)));
  Node* neg = b.call(main, b.ref(apply), {prim, t}, f32({2}));
  main->set_output(b.builtin(main, Builtin::MakeTuple, {direct, via, neg}));
  auto exe = Executable::compile(main);
  Value out = exe->run({Value::integer(3)}, nullptr);
  EXPECT_EQ(out.items()[0].as_int(), 123);
  EXPECT_EQ(out.items()[1].as_int(), 127);
  EXPECT_TRUE(bit_equal(out.items()[2].as_tensor(), run_op1(OpId::Neg, {make_tensor({2}, 3)})));
}

// Liveness: a chain of 50 ops on 4 MiB tensors. Elementwise ops write into their dying
// input's buffer (one buffer in all); others hold their input and output (two buffers).
struct Chain {
  static constexpr int64_t kN = 1 << 20;
  static constexpr int64_t kBuf = kN * 4;
  Builder b;
  std::unique_ptr<Executable> exe;
  Tensor k = Tensor::scalar(Scalar::from_float(1.0009765625), DType::Float32);
  bool elementwise;

  explicit Chain(bool ew) : elementwise(ew) {
    FuncGraph* g = b.graph("main", {f32({kN})});
    Node* cur = b.param(g, 0);
    for (int i = 0; i < 50; ++i) cur = ew ? b.prim(g, op(i), {cur, b.c(tv(k))}) : cast(g, cur);
    g->set_output(cur);
    exe = Executable::compile(g);
  }
  static OpId op(int i) { return i % 2 ? OpId::Mul : OpId::Add; }
  Node* cast(FuncGraph* g, Node* x) {
    Attrs a;
    a.set("dtype", DType::Float32);
    return b.prim(g, OpId::Cast, {x}, a);
  }
  Tensor eager(Tensor x) const {
    Attrs a;
    a.set("dtype", DType::Float32);
    for (int i = 0; i < 50; ++i) {
      // Cast to the same dtype still copies when run as a kernel.
      x = elementwise ? run_op1(op(i), {x, k}) : run_op1(OpId::Cast, {x}, a).clone();
    }
    return x;
  }
  // Peak bytes allocated during the run, above what was in use before it.
  int64_t peak(const Tensor& x, Value* out) const {
    reset_peak_memory();
    int64_t before = allocator_stats().in_use;
    *out = exe->run({tv(x)}, nullptr);
    EXPECT_EQ(allocator_stats().in_use - before, kBuf);  // the result only
    return allocator_stats().peak_in_use - before;
  }
};

TEST(VmMemory, ElementwiseChainReusesOneBuffer) {
  Chain c(true);
  Tensor x = make_tensor({Chain::kN}, 11);
  Tensor x0 = x.clone();
  Value out;
  int64_t peak = c.peak(x, &out);
  EXPECT_TRUE(bit_equal(out.as_tensor(), c.eager(x)));
  EXPECT_TRUE(bit_equal(x, x0));  // the caller's argument is never written
  EXPECT_GE(peak, Chain::kBuf);
  EXPECT_LE(peak, Chain::kBuf + 65536) << "peak " << peak / double(Chain::kBuf) << " buffers";
  std::string d = c.exe->dump();
  EXPECT_NE(d.find("r2 = Mul(r1, "), std::string::npos) << d;
  EXPECT_NE(d.find(": f32[1048576] in r1  free r1"), std::string::npos) << d;
  EXPECT_EQ(d.find(": f32[1048576] in r0"), std::string::npos) << d;  // not the argument
}

TEST(VmMemory, LivenessReleasesDeadBuffers) {
  Chain c(false);
  Tensor x = make_tensor({Chain::kN}, 12);
  Value out;
  int64_t peak = c.peak(x, &out);
  EXPECT_TRUE(bit_equal(out.as_tensor(), c.eager(x)));
  EXPECT_GE(peak, 2 * Chain::kBuf);  // an op's input and output are live together...
  EXPECT_LE(peak, 2 * Chain::kBuf + 65536)
      << "peak " << peak / double(Chain::kBuf) << " buffers";  // ...and no more
  std::string d = c.exe->dump();
  EXPECT_NE(d.find("free r0"), std::string::npos) << d;
}

// A buffer that a tuple (or closure) still shares is never written in place.
TEST(VmMemory, SharedBuffersAreNotReused) {
  Builder b;
  FuncGraph* g = b.graph("main", {f32({8})});
  Node* y = b.prim(g, OpId::Exp, {b.param(g, 0)});
  Node* t = b.builtin(g, Builtin::MakeTuple, {y});
  Node* p = b.builtin(g, Builtin::Partial, {b.c(Value::prim(op_def(OpId::Neg), {})), y});
  Node* z = b.prim(g, OpId::Neg, {y});  // y's last use: its buffer is still in t and p
  // (A list: the items of a returned tuple would be scheduled early, before the partial.)
  g->set_output(b.builtin(g, Builtin::MakeList, {t, p, z}));
  auto exe = Executable::compile(g);
  EXPECT_NE(exe->dump().find("Neg(r1) : f32[8] in r1"), std::string::npos) << exe->dump();
  Tensor x = make_tensor({8}, 3);
  Value out = exe->run({tv(x)}, nullptr);
  Tensor e = run_op1(OpId::Exp, {x});
  EXPECT_TRUE(bit_equal(out.items()[0].items()[0].as_tensor(), e));
  EXPECT_TRUE(bit_equal(out.items()[1].as_closure().args[0].as_tensor(), e));
  EXPECT_TRUE(bit_equal(out.items()[2].as_tensor(), run_op1(OpId::Neg, {e})));
}

TEST(VmRun, ThreadSafeAndReentrant) {
  LoopProgram p({64});
  std::vector<Tensor> xs, outs(4);
  for (uint32_t i = 0; i < 4; ++i) xs.push_back(make_tensor({64}, 20 + i));
  std::vector<std::thread> ts;
  for (size_t i = 0; i < 4; ++i)
    ts.emplace_back([&, i] {
      outs[i] = p.exe->run({LoopProgram::count(200 + static_cast<int64_t>(i)), tv(xs[i])}, nullptr)
                    .as_tensor();
    });
  for (auto& t : ts) t.join();
  for (size_t i = 0; i < 4; ++i)
    EXPECT_TRUE(bit_equal(outs[i], p.eager(xs[i], 200 + static_cast<int64_t>(i)))) << i;
}

TEST(VmRun, EntryArgumentsChecked) {
  LoopProgram p({4});
  auto expect_error = [&](std::vector<Value> args, ErrorKind kind, const std::string& part) {
    try {
      p.exe->run(args, nullptr);
      ADD_FAILURE() << "expected an error containing " << part;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), kind) << e.what();
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_error({LoopProgram::count(1)}, ErrorKind::Type, "takes 2 arguments but 1 were given");
  expect_error({LoopProgram::count(1), tv(make_tensor({5}, 1))}, ErrorKind::Value,
               "argument 1 must be f32[4], got f32[5]");
  expect_error({LoopProgram::count(1), Value::integer(3)}, ErrorKind::Type,
               "argument 1 must be a Tensor");
}

TEST(VmDump, ListsInstructionsTailCallsAndFrees) {
  LoopProgram p({4});
  std::string d = p.exe->dump();
  // The loop's last instruction is a tail call through the switch; main's call is not.
  EXPECT_NE(d.find("@loop(r0, r1, r2): 8 registers"), std::string::npos) << d;
  EXPECT_NE(d.find("tailcall r7()"), std::string::npos) << d;
  EXPECT_NE(d.find("r2 = call @loop("), std::string::npos) << d;
  EXPECT_NE(d.find("Less(r0, r1) : bool[]"), std::string::npos) << d;
  EXPECT_NE(d.find("tailcall @loop(move r"), std::string::npos) << d;
  EXPECT_NE(d.find("return r0"), std::string::npos) << d;  // @exit
}

}  // namespace
}  // namespace mycel::vmtest

namespace mycel::vmtest {
namespace {

// A collective moves up to just after its last input (it then runs on the communication
// queue while the graph computes on), keeping its order with other collectives:
//   e = Exp(x); m = Mul(Neg(y), e); r = AllReduce(e); s = AllReduce(m); out = Add(Add(m, r), s)
// runs as Neg, Exp, AllReduce(e), Mul, AllReduce(m), ...
TEST(VmSchedule, CollectivesRunAsSoonAsTheirInputsAre) {
  Builder b;
  FuncGraph* g = b.graph("main", {f32({3}), f32({3})});
  b.m.set_entry(g);
  Node* e = b.prim(g, OpId::Exp, {b.param(g, 0)});
  Node* m = b.prim(g, OpId::Mul, {b.prim(g, OpId::Neg, {b.param(g, 1)}), e});
  Node* r = b.prim(g, OpId::AllReduce, {e});
  Node* s = b.prim(g, OpId::AllReduce, {m});
  g->set_output(b.prim(g, OpId::Add, {b.prim(g, OpId::Add, {m, r}), s}));
  ir::verify(g, {.specialized = true, .lifted = true});
  std::string d = Executable::compile(g)->dump();
  size_t exp = d.find("= Exp("), ar1 = d.find("= AllReduce{"), mul = d.find("= Mul(");
  size_t ar2 = d.find("= AllReduce{", ar1 + 1);
  ASSERT_NE(ar2, std::string::npos) << d;
  EXPECT_LT(exp, ar1) << d;
  EXPECT_LT(ar1, mul) << d;  // hoisted above the Mul that came first in data order
  EXPECT_LT(mul, ar2) << d;
}

// Sinks (collectives, the items of a returned tuple) and the nodes that lead to them alone
// run as soon as what they read from elsewhere is computed (hoist_sinks). A backward graph's
// shape: a chain s1, s2, s3 (the activation gradients), an item A = Exp(Neg(s3)), an item
// B = Mul(s1, w) (a weight's gradient), a bucket y = AllReduce(Cos(s1)) and an item
// D = Add(y, s3); returned as (A, D, B), data order would compute B last.
TEST(VmSchedule, SinksAndTheirConesRunAsSoonAsTheyCan) {
  Builder b;
  FuncGraph* g = b.graph("main", {f32({3}), f32({3})});
  b.m.set_entry(g);
  Node* s1 = b.prim(g, OpId::Sin, {b.param(g, 0)});
  Node* s2 = b.prim(g, OpId::Sin, {s1});
  Node* s3 = b.prim(g, OpId::Sin, {s2});
  Node* a = b.prim(g, OpId::Exp, {b.prim(g, OpId::Neg, {s3})});
  Node* y = b.prim(g, OpId::AllReduce, {b.prim(g, OpId::Cos, {s1})});
  Node* d = b.prim(g, OpId::Add, {y, s3});
  Node* w = b.prim(g, OpId::Mul, {s1, b.param(g, 1)});
  g->set_output(b.builtin(g, Builtin::MakeTuple, {a, d, w}));
  ir::verify(g, {.specialized = true, .lifted = true});
  std::string dump = Executable::compile(g)->dump();
  std::vector<std::string> ops;
  for (size_t at = dump.find(" = "); at != std::string::npos; at = dump.find(" = ", at + 1))
    ops.push_back(dump.substr(at + 3, dump.find_first_of("({", at + 3) - at - 3));
  // After s1: B (cone of 1) before the bucket (cone of 2); after s3: D before A.
  std::vector<std::string> want = {"Sin", "Mul", "Cos", "AllReduce", "Sin",
                                   "Sin", "Add", "Neg", "Exp",       "make_tuple"};
  EXPECT_EQ(ops, want) << dump;
}

// The same with the result under a depend (a backward graph whose rules had effects,
// BpropArgs::effects): the items are still sinks.
TEST(VmSchedule, ResultItemsUnderADependAreSinks) {
  Builder b;
  FuncGraph* g = b.graph("main", {f32({3}), f32({3})});
  b.m.set_entry(g);
  Node* s1 = b.prim(g, OpId::Sin, {b.param(g, 0)});
  Node* s2 = b.prim(g, OpId::Sin, {s1});
  Node* a = b.prim(g, OpId::Exp, {s2});
  Node* w = b.prim(g, OpId::Mul, {s1, b.param(g, 1)});
  Node* t = b.builtin(g, Builtin::MakeTuple, {a, w});
  g->set_output(b.builtin(g, Builtin::Depend, {t, b.prim(g, OpId::Neg, {b.param(g, 1)})}));
  ir::verify(g, {.specialized = true, .lifted = true});
  std::string d = Executable::compile(g)->dump();
  EXPECT_LT(d.find("= Mul("), d.find("= Sin(", d.find("= Sin(") + 1)) << d;
}

// The observer is told each item of the result once, as soon as it is computed.
TEST(VmRun, ResultObserverHearsEachItemWhenComputed) {
  Builder b;
  FuncGraph* g = b.graph("main", {f32({3}), f32({3})});
  b.m.set_entry(g);
  Node* a = b.param(g, 1);
  for (int i = 0; i < 4; ++i) a = b.prim(g, OpId::Sin, {a});
  Node* e = b.prim(g, OpId::Exp, {b.param(g, 0)});
  g->set_output(b.builtin(g, Builtin::MakeTuple, {a, e, b.param(g, 0), b.c(Value::integer(7))}));
  auto exe = Executable::compile(g);
  struct Log : vm::ResultObserver {
    vm::RunStats* stats;
    std::vector<std::pair<size_t, uint64_t>> heard;  // (index, instructions run by then)
    std::vector<Value> items;
    void ready(size_t i, const Value& v) override {
      heard.emplace_back(i, stats->instructions);
      items.push_back(v);
    }
  } log;
  vm::RunStats stats;
  log.stats = &stats;
  Tensor x = make_tensor({3}, 1), y = make_tensor({3}, 2);
  Value out = exe->run({tv(x), tv(y)}, nullptr, &stats, &log);
  ASSERT_EQ(log.heard.size(), 4u) << exe->dump();
  // Exp (instruction 0: the smaller cone), the Sin chain (1-4), make_tuple (5), return (6).
  EXPECT_EQ(log.heard[0], (std::pair<size_t, uint64_t>{1, 1})) << exe->dump();
  EXPECT_EQ(log.heard[1], (std::pair<size_t, uint64_t>{0, 5})) << exe->dump();
  EXPECT_EQ(stats.instructions, 7u);
  std::vector<size_t> rest = {log.heard[2].first, log.heard[3].first};
  EXPECT_EQ(rest, (std::vector<size_t>{2, 3}));  // the parameter and the constant, at return
  EXPECT_TRUE(bit_equal(log.items[0].as_tensor(), out.items()[1].as_tensor()));
  EXPECT_TRUE(bit_equal(log.items[2].as_tensor(), x));
  EXPECT_EQ(log.items[3].as_int(), 7);
}

}  // namespace
}  // namespace mycel::vmtest
