// Whole-step capture (runtime/vm_capture.h) on a machine without a GPU: a fake device (host
// memory tagged as CUDA:0) whose kernels run the CPU kernels and whose capture records every
// kernel launch and device copy as a replayable list, run nothing while capturing, and
// throws on host<->device copies and waits during a capture, as the CUDA backend does. So
// a runner that forgot a replay, replayed stale inputs or kept an aliased output would give
// wrong numbers here. Oracle: the same Executable run op by op (jit_level O0) on the same
// device, bit for bit.
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>

#include "kernels/kernel_table.h"
#include "runtime/vm_capture.h"
#include "tensor/capture.h"
#include "tensor/random.h"
#include "test_vm_util.h"

namespace mycel::vmtest {
namespace {

using vm::CaptureRunner;
using vm::Executable;

class FakeCaptureDevice;
FakeCaptureDevice* g_fake = nullptr;

// The fake's memory is host memory: the same bytes as a host tensor.
Tensor host_view(const Tensor& t) {
  auto st = Storage::wrap(
      t.storage()->data(), t.storage()->nbytes(), [](void*) {}, nullptr);
  return Tensor::make_view(st, t.dtype(), t.shape(), t.strides(), t.offset());
}

class FakeCaptureDevice final : public DeviceBackend, public CaptureBackend {
 public:
  int kernels_run = 0, recorded = 0, recorded_kernels = 0, replays = 0, allocs = 0, graphs = 0;
  int64_t in_use = 0, cached = 0;
  bool capturing = false;
  std::vector<std::function<void()>> tape;

  ~FakeCaptureDevice() override {
    for (auto& [pool, blocks] : pool_free_)
      for (auto& [n, p] : blocks) std::free(p);
  }

  // Runs `f` now, or records it while capturing.
  void run_or_record(std::function<void()> f) {
    if (capturing) {
      ++recorded;
      tape.push_back(std::move(f));
    } else {
      f();
    }
  }
  void refuse(const char* what) const {
    MC_CHECK(!capturing, Runtime, what, " cannot be captured (fake device).");
  }

  int device_count() override { return 1; }
  void* allocate(int, size_t n) override {
    ++allocs;
    in_use += static_cast<int64_t>(n);
    if (active_ >= 0) {
      auto& free = pool_free_[active_];
      auto it = free.find(n);
      if (it != free.end()) {
        void* p = it->second;
        free.erase(it);
        cached -= static_cast<int64_t>(n);
        return p;
      }
      void* p = std::malloc(n);
      pool_of_[p] = active_;
      return p;
    }
    return std::malloc(n);
  }
  void release(int, void* p, size_t n) override {
    in_use -= static_cast<int64_t>(n);
    auto it = pool_of_.find(p);
    if (it != pool_of_.end()) {
      pool_free_[it->second].emplace(n, p);  // reused only inside its pool
      cached += static_cast<int64_t>(n);
    } else {
      std::free(p);
    }
  }
  void copy_h2d(int, void* d, const void* s, size_t n) override {
    refuse("a host->device copy");
    std::memcpy(d, s, n);
  }
  void copy_d2h(int, void* d, const void* s, size_t n) override {
    refuse("a device->host copy");
    std::memcpy(d, s, n);
  }
  void copy_d2d(int, void* d, const void* s, size_t n) override {
    run_or_record([=] { std::memcpy(d, s, n); });
  }
  void strided_copy(const Tensor& dst, const Tensor& src) override {
    run_or_record([dst, src] { host_view(dst).copy_from(host_view(src)); });
  }
  void synchronize(int) override { refuse("a synchronisation"); }
  AllocatorStats memory_stats(int) override { return {in_use, in_use, cached}; }
  void reset_peak_memory(int) override {}
  void empty_cache(int) override {}

  // ---- capture ----
  class Graph final : public CapturedGraph {
   public:
    Graph(FakeCaptureDevice* d, std::vector<std::function<void()>> tape, int pool)
        : d_(d), tape_(std::move(tape)), pool_(pool) {
      ++d_->graphs;
    }
    ~Graph() override {
      --d_->graphs;
      d_->release_pool(pool_);
    }
    void replay() override {
      ++d_->replays;
      for (auto& f : tape_) f();
    }

   private:
    FakeCaptureDevice* d_;
    std::vector<std::function<void()>> tape_;
    int pool_;
  };

  bool can_capture(int) override { return true; }
  void begin_capture(int) override {
    MC_CHECK(!capturing, Runtime, "already capturing");
    capturing = true;
    tape.clear();
    active_ = next_pool_++;
  }
  std::unique_ptr<CapturedGraph> end_capture(int, std::string* why) override {
    capturing = false;
    const int pool = active_;
    active_ = -1;
    if (fail_end) {
      release_pool(pool);
      tape.clear();
      *why = "the fake refused the graph";
      return nullptr;
    }
    return std::make_unique<Graph>(this, std::move(tape), pool);
  }
  bool fail_end = false;

 private:
  void release_pool(int pool) {
    for (auto& [n, p] : pool_free_[pool]) {
      cached -= static_cast<int64_t>(n);
      std::free(p);
    }
    pool_free_.erase(pool);
    for (auto it = pool_of_.begin(); it != pool_of_.end();)
      it = it->second == pool ? pool_of_.erase(it) : std::next(it);
  }

  int active_ = -1, next_pool_ = 0;
  std::map<int, std::multimap<size_t, void*>> pool_free_;
  std::map<void*, int> pool_of_;
};

// Every op's "device kernel": the CPU kernel on the same bytes, run now or recorded.
void fake_kernel(const KernelContext& ctx) {
  FakeCaptureDevice& f = *g_fake;
  for (const Tensor& o : ctx.out)
    MC_CHECK(o.defined(), Runtime, "'", ctx.op.name, "': value-dependent output (fake device)");
  const OpDef* op = &ctx.op;
  std::vector<Tensor> in(ctx.in.begin(), ctx.in.end()), out(ctx.out.begin(), ctx.out.end());
  Attrs attrs = ctx.attrs;
  auto run = [op, in, out, attrs, &f] {
    ++f.kernels_run;
    std::vector<Tensor> hin, hout;
    for (const Tensor& t : in) hin.push_back(host_view(t));
    for (const Tensor& t : out) hout.push_back(host_view(t));
    cpu_kernel (*op)(KernelContext{*op, hin, hout, attrs, Device::cpu()});
  };
  if (f.capturing) ++f.recorded_kernels;
  f.run_or_record(run);
}

std::array<KernelFn, kNumOps> g_table = [] {
  std::array<KernelFn, kNumOps> t{};
  t.fill(&fake_kernel);
  return t;
}();
const std::array<KernelFn, kNumOps> g_none{};

class Capture : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = device_backend(DeviceType::CUDA);
    saved_capture_ = capture_backend(DeviceType::CUDA);
    g_fake = &fake_;
    install_device_backend(DeviceType::CUDA, &fake_);
    install_capture_backend(DeviceType::CUDA, &fake_);
    install_device_kernels(DeviceType::CUDA, g_table);
    set_default_device(gpu_);
  }
  void TearDown() override {
    set_default_device(Device::cpu());
    install_device_kernels(DeviceType::CUDA, g_none);
    install_capture_backend(DeviceType::CUDA, saved_capture_);
    install_device_backend(DeviceType::CUDA, saved_);
    g_fake = nullptr;
  }
  Tensor dev(const Tensor& t) { return t.to(gpu_); }
  static Tensor host(const Value& v) { return v.as_tensor().cpu(); }

  FakeCaptureDevice fake_;
  DeviceBackend* saved_ = nullptr;
  CaptureBackend* saved_capture_ = nullptr;
  const Device gpu_ = Device::cuda(0);
};

Attrs attrs1(std::string_view k, AttrValue v) {
  Attrs a;
  a.set(k, std::move(v));
  return a;
}

// One SGD step of a linear model, the update an effect (Assign): returns (loss, y).
//   y = x @ w; loss = sum(y * y); w <- w - lr * x^T @ (2 y)
FuncGraph* train_step(Builder& b, const Shape& xs, const Shape& ws) {
  FuncGraph* g = b.graph("step", {f32(xs), f32(ws)});
  Node* x = b.param(g, 0);
  Node* w = b.param(g, 1);
  Node* y = b.prim(g, OpId::MatMul, {x, w});
  Node* loss = b.prim(g, OpId::ReduceSum, {b.prim(g, OpId::Mul, {y, y})},
                      attrs1("axis", std::vector<int64_t>{}));
  Node* two_y =
      b.prim(g, OpId::Mul, {y, b.c(tv(Tensor::scalar(Scalar::from_float(2.0), DType::Float32)))});
  Node* xt = b.prim(g, OpId::Transpose, {x}, attrs1("perm", std::vector<int64_t>{1, 0}));
  Node* grad = b.prim(g, OpId::MatMul, {xt, two_y});
  Node* step = b.prim(g, OpId::Mul,
                      {grad, b.c(tv(Tensor::scalar(Scalar::from_float(0.01), DType::Float32)))});
  Node* neww = b.prim(g, OpId::Sub, {w, step});
  g->effects.push_back(b.prim(g, OpId::Assign, {w, neww}));
  g->set_output(b.builtin(g, Builtin::MakeTuple, {loss, y},
                          Abstract::tuple({loss->abstract(), y->abstract()})));
  return g;
}

TEST_F(Capture, TrainingStepsReplayAsOpByOp) {
  Builder b;
  FuncGraph* g = train_step(b, {3, 4}, {4, 2});
  auto exe = Executable::compile(g);
  Tensor w0 = dev(make_tensor({4, 2}, 1)), w2 = dev(make_tensor({4, 2}, 1));
  CaptureRunner runner(*exe, "step");
  std::vector<Tensor> kept;  // each step's y, held by the caller
  std::vector<Tensor> kept_values;
  for (int step = 0; step < 6; ++step) {
    Tensor x = dev(make_tensor({3, 4}, 10 + static_cast<uint32_t>(step)));  // new each step
    Value want = exe->run({tv(x), tv(w0)}, nullptr);
    int allocs = fake_.allocs, kernels = fake_.kernels_run;
    Value got = runner.run({tv(x), tv(w2)}, nullptr);
    ASSERT_TRUE(got.is(ValueKind::Tuple));
    EXPECT_TRUE(bit_equal(host(got.items()[0]), host(want.items()[0]))) << "step " << step;
    EXPECT_TRUE(bit_equal(host(got.items()[1]), host(want.items()[1]))) << "step " << step;
    EXPECT_TRUE(bit_equal(w2.cpu(), w0.cpu())) << "step " << step;  // the update replayed
    if (step >= 2) {
      // A replay: the two result copies are all it allocates (x goes into the static
      // input buffer), and it runs the recorded kernels only, each once.
      EXPECT_EQ(fake_.allocs - allocs, 2) << "step " << step;
      EXPECT_EQ(fake_.kernels_run - kernels, fake_.recorded_kernels) << "step " << step;
    }
    kept.push_back(got.items()[1].as_tensor());
    kept_values.push_back(kept.back().cpu().clone());
  }
  for (size_t i = 0; i < kept.size(); ++i)  // no step's result was overwritten by a later one
    EXPECT_TRUE(bit_equal(kept[i].cpu(), kept_values[i])) << "result of step " << i;
  vm::CaptureStats s = runner.stats();
  EXPECT_EQ(s.op_by_op, 1);  // the warm-up
  EXPECT_EQ(s.captures, 1);
  EXPECT_EQ(s.replays, 5);
  EXPECT_EQ(s.fallbacks, 0) << s.last_reason;
  EXPECT_EQ(fake_.replays, 5);
  EXPECT_EQ(fake_.graphs, 1);
}

TEST_F(Capture, ReplaysAllocateNothingButTheirResults) {
  Builder b;
  FuncGraph* g = train_step(b, {2, 3}, {3, 3});
  auto exe = Executable::compile(g);
  Tensor w = dev(make_tensor({3, 3}, 4));
  Tensor x = dev(make_tensor({2, 3}, 5));
  CaptureRunner runner(*exe);
  for (int i = 0; i < 2; ++i) runner.run({tv(x), tv(w)}, nullptr);  // warm-up, capture
  const int64_t in_use = fake_.in_use;
  for (int i = 0; i < 4; ++i) {
    runner.run({tv(x), tv(w)}, nullptr);  // results dropped at once
    EXPECT_EQ(fake_.in_use, in_use) << "replay " << i;
  }
  // The same x every call: it is read where it is, no static copy.
  EXPECT_EQ(runner.stats().replays, 5);
}

TEST_F(Capture, RandomOpsDrawAsOpByOp) {
  Builder b;
  FuncGraph* g = b.graph("noisy", {f32({5})});
  Attrs shape = attrs1("shape", std::vector<int64_t>{5});
  Node* n = b.prim(g, OpId::StandardNormal, {}, shape);
  Node* u = b.prim(g, OpId::UniformReal, {}, shape);
  g->set_output(b.prim(g, OpId::Add, {b.prim(g, OpId::Mul, {n, u}), b.param(g, 0)}));
  auto exe = Executable::compile(g);
  Tensor x = dev(make_tensor({5}, 3));
  std::vector<Tensor> want, got;
  set_global_seed(11);
  for (int i = 0; i < 4; ++i) want.push_back(host(exe->run({tv(x)}, nullptr)));
  const RandomState after = random_state();
  set_global_seed(11);
  CaptureRunner runner(*exe);
  for (int i = 0; i < 4; ++i) got.push_back(host(runner.run({tv(x)}, nullptr)));
  EXPECT_EQ(random_state().offset, after.offset);  // the generator advanced the same
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(bit_equal(got[i], want[i])) << "call " << i;
  EXPECT_FALSE(bit_equal(got[2], got[3]));  // replays draw new numbers
  EXPECT_EQ(runner.stats().captures, 1);
}

// main(x, flag) = switch(flag, partial(@then, x), partial(@else, x))() + x: each flag is a
// signature of its own, captured with its branch.
TEST_F(Capture, NewSignaturesWarmUpAndCaptureTheirOwn) {
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
  g->set_output(b.prim(g, OpId::Add, {b.call(g, sw, {}, f32({3})), x}));
  auto exe = Executable::compile(g);
  CaptureRunner runner(*exe);
  uint32_t seed = 0;
  for (bool flag : {true, true, false, true, false, false, true}) {
    Tensor x = dev(make_tensor({3}, ++seed));
    const std::vector<Value> args{tv(x), Value::boolean(flag)};
    EXPECT_TRUE(bit_equal(host(runner.run(args, nullptr)), host(exe->run(args, nullptr)))) << seed;
  }
  vm::CaptureStats s = runner.stats();
  EXPECT_EQ(s.captures, 2);
  EXPECT_EQ(s.op_by_op, 2);
  EXPECT_EQ(s.replays, 5);
}

TEST_F(Capture, AReplacedParameterDropsTheGraph) {
  Builder b;
  FuncGraph* g = train_step(b, {2, 2}, {2, 2});
  auto exe = Executable::compile(g);
  CaptureRunner runner(*exe);
  Tensor x = dev(make_tensor({2, 2}, 1));
  Tensor w = dev(make_tensor({2, 2}, 2)), w_ref = dev(make_tensor({2, 2}, 2));
  for (int i = 0; i < 3; ++i) {
    runner.run({tv(x), tv(w)}, nullptr);
    exe->run({tv(x), tv(w_ref)}, nullptr);
  }
  Tensor v = dev(make_tensor({2, 2}, 9)), v_ref = dev(make_tensor({2, 2}, 9));
  for (int i = 0; i < 3; ++i) {  // op by op (the new warm-up), capture, replay
    Value got = runner.run({tv(x), tv(v)}, nullptr);
    Value want = exe->run({tv(x), tv(v_ref)}, nullptr);
    EXPECT_TRUE(bit_equal(host(got.items()[0]), host(want.items()[0]))) << i;
    EXPECT_TRUE(bit_equal(v.cpu(), v_ref.cpu())) << i;
  }
  EXPECT_TRUE(bit_equal(w.cpu(), w_ref.cpu()));  // the old parameter was left alone
  EXPECT_EQ(runner.stats().captures, 2);
  EXPECT_EQ(fake_.graphs, 1);
}

// Each case: the reason's words, and the graph's result equals op by op's.
struct FallbackCase {
  const char* name;
  std::function<FuncGraph*(Builder&)> build;
  std::function<std::vector<Value>(Capture*)> args;
  const char* reason;
};

TEST_F(Capture, WhatCannotBeCapturedRunsOpByOp) {
  auto f32_arg = [](Capture* c) {
    return std::vector<Value>{tv(make_tensor({4}, 3).to(Device::cuda(0)))};
    (void)c;
  };
  std::vector<FallbackCase> cases = {
      {"print",
       [](Builder& b) {
         FuncGraph* g = b.graph("p", {f32({4})});
         Node* y = b.prim(g, OpId::Neg, {b.param(g, 0)});
         g->effects.push_back(b.builtin(g, Builtin::Print, {b.c(Value::string("hi"))}));
         g->set_output(y);
         return g;
       },
       f32_arg, "print"},
      {"py_execute",
       [](Builder& b) {
         FuncGraph* g = b.graph("x", {f32({4})});
         g->effects.push_back(b.builtin(g, Builtin::PyExecute, {b.c(Value::string("fn"))}));
         g->set_output(b.prim(g, OpId::Neg, {b.param(g, 0)}));
         return g;
       },
       f32_arg, "py_execute"},
      {"a dynamic shape",
       [](Builder& b) {
         FuncGraph* g = b.graph("y", {f32({-1})});
         g->set_output(b.prim(g, OpId::Exp, {b.param(g, 0)}));
         return g;
       },
       f32_arg, "dynamic"},
      {"MaskedScatter (its kernel reads the mask's count)",
       [](Builder& b) {
         FuncGraph* g = b.graph("m", {f32({4})});
         Node* x = b.param(g, 0);
         Node* mask = b.prim(g, OpId::NotEqual, {x, x});
         g->set_output(b.prim(g, OpId::MaskedScatter, {x, mask, x}));
         return g;
       },
       f32_arg, "counts its mask on the host"},
      {"integer FloorDiv",
       [](Builder& b) {
         FuncGraph* g = b.graph("d", {i64({4})});
         g->set_output(b.prim(g, OpId::FloorDiv, {b.param(g, 0), b.param(g, 0)}));
         return g;
       },
       [](Capture*) {
         Tensor t = Tensor::empty({4}, DType::Int64);
         for (int i = 0; i < 4; ++i) t.data<int64_t>()[i] = i + 1;
         return std::vector<Value>{tv(t.to(Device::cuda(0)))};
       },
       "FloorDiv"},
      {"a host read mid-step",
       [](Builder& b) {
         FuncGraph* g = b.graph("r", {f32({4})});
         Node* s =
             b.prim(g, OpId::ReduceSum, {b.param(g, 0)}, attrs1("axis", std::vector<int64_t>{}));
         Node* v = b.builtin(g, Builtin::TensorToScalar, {s}, Abstract::scalar(ValueKind::Float));
         Node* t =
             b.builtin(g, Builtin::ScalarToTensor, {v, b.c(Value::dtype(DType::Float32))}, f32({}));
         g->set_output(b.prim(g, OpId::Mul, {b.param(g, 0), t}));
         return g;
       },
       f32_arg, "could not be captured"},
  };
  for (FallbackCase& c : cases) {
    Builder b;
    FuncGraph* g = c.build(b);
    auto exe = Executable::compile(g);
    CaptureRunner runner(*exe, c.name);
    FakeHost fh;
    for (int i = 0; i < 3; ++i) {
      std::vector<Value> args = c.args(this);
      Tensor got = host(runner.run(args, &fh));
      Tensor want = host(exe->run(args, &fh));
      EXPECT_TRUE(bit_equal(got, want)) << c.name << " call " << i;
    }
    vm::CaptureStats s = runner.stats();
    EXPECT_EQ(s.captures, 0) << c.name;
    EXPECT_EQ(s.fallbacks, 1) << c.name;
    EXPECT_NE(s.last_reason.find(c.reason), std::string::npos) << c.name << ": " << s.last_reason;
    EXPECT_FALSE(fake_.capturing);
    EXPECT_EQ(fake_.graphs, 0);
  }
}

TEST_F(Capture, AnOpWithoutADeviceKernelIsFoundBeforeCapture) {
  std::array<KernelFn, kNumOps> table = g_table;
  table[static_cast<size_t>(OpId::Exp)] = nullptr;
  install_device_kernels(DeviceType::CUDA, table);
  Builder b;
  FuncGraph* g = b.graph("e", {f32({3})});
  g->set_output(b.prim(g, OpId::Exp, {b.param(g, 0)}));
  auto exe = Executable::compile(g);
  CaptureRunner runner(*exe);
  Tensor x = dev(make_tensor({3}, 1));
  for (int i = 0; i < 3; ++i) runner.run({tv(x)}, nullptr);
  EXPECT_EQ(fake_.recorded, 0);  // never tried
  EXPECT_NE(runner.stats().last_reason.find("'Exp' has no kernel"), std::string::npos);
  install_device_kernels(DeviceType::CUDA, g_table);
}

TEST_F(Capture, AFailedInstantiationFallsBack) {
  fake_.fail_end = true;
  Builder b;
  FuncGraph* g = b.graph("n", {f32({3})});
  g->set_output(b.prim(g, OpId::Neg, {b.param(g, 0)}));
  auto exe = Executable::compile(g);
  CaptureRunner runner(*exe);
  Tensor x = dev(make_tensor({3}, 1));
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(bit_equal(host(runner.run({tv(x)}, nullptr)), host(exe->run({tv(x)}, nullptr))));
  EXPECT_NE(runner.stats().last_reason.find("refused"), std::string::npos);
  EXPECT_EQ(fake_.cached, 0);  // the failed capture's pool was given back
}

TEST_F(Capture, OnTheHostItIsTheExecutable) {
  set_default_device(Device::cpu());
  Builder b;
  FuncGraph* g = b.graph("h", {f32({3})});
  g->set_output(b.prim(g, OpId::Neg, {b.param(g, 0)}));
  auto exe = Executable::compile(g);
  CaptureRunner runner(*exe);
  Tensor x = make_tensor({3}, 1);
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(bit_equal(runner.run({tv(x)}, nullptr).as_tensor(),
                          exe->run({tv(x)}, nullptr).as_tensor()));
  EXPECT_EQ(runner.stats().captures + runner.stats().op_by_op, 0);
}

}  // namespace
}  // namespace mycel::vmtest
