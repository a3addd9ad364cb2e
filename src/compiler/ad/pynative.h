// PYNATIVE automatic differentiation: the same K transform as graph mode (ad.h), applied to
// the ops a Python function ran eagerly (MindSpore's PyNative grad: the forward runs op by
// op and is recorded into IR; its backward graph is compiled once and reused while the op
// sequence stays the same).
//
//   OpRecorder rec(inputs, weights);   // records from construction until stop()
//   out = fn(*args)                    // eager ops and graph-executor prims report here
//   rec.stop();
//   grads = rec.backward(cache, out, sens);   // (d_inputs..., d_weights...)
//
// The recording is a graph g(inputs..., weights..., captured...) of prim calls, captured
// being tensors the ops read that came from elsewhere (made before recording, or not by an
// op: constants, numpy data). Its key is the op sequence: each op with its attributes, which
// earlier output or parameter each input is, the parameters' dtypes and shapes, and which
// tensors are the output. For a key not in the cache, g is built with IrBuilder (which adds
// the promotion casts the dispatcher did implicitly), K(g) is formed, and B(g) becomes the
// backward's entry: its free variables (forward values) become parameters fed with the
// recorded tensors, so no forward op is recomputed (promotion casts aside). It is optimised
// like any program and compiled for the executor (compiler::compile_graph, with the options
// of the environment: MYCEL_VERIFY_IR, MYCEL_LOG_COMPILE, ...; compiler/compile.h). A hit just runs
// the cached executable on the new recording's tensors.
//
// Because graphs run by the executor report their prims too, a @jit function called inside
// the recorded function is differentiated through, and a gradient computed inside the
// recorded function (its backward graph runs on the executor) is recorded as ops: gradients
// of gradients work in PYNATIVE mode. Ops that write their inputs in place (F_INPLACE) on a
// recorded tensor make the recording stale, as in other eager frameworks.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/anf.h"
#include "ir/value.h"
#include "runtime/eager.h"
#include "runtime/record.h"
#include "runtime/vm.h"

namespace mycel::ad {

struct BackwardEntry;
struct Feed;  // what a backward parameter is fed with (pynative.cc)
using SourceMap = std::unordered_map<ir::Node*, Feed>;  // recorded graph node -> its feed

// The compiled backward graphs of one gradient function, per op sequence.
class BackwardCache {
 public:
  BackwardCache();
  ~BackwardCache();
  size_t size() const { return entries_.size(); }

 private:
  friend class OpRecorder;
  std::vector<std::unique_ptr<BackwardEntry>> entries_;
};

class OpRecorder final : public record::Sink {
 public:
  // Starts recording on this thread; `inputs` and `weights` are the tensors whose gradients
  // backward() returns, in that order.
  OpRecorder(std::vector<Tensor> inputs, std::vector<Tensor> weights);
  ~OpRecorder() override;
  OpRecorder(const OpRecorder&) = delete;
  OpRecorder& operator=(const OpRecorder&) = delete;

  void stop();
  void op(const OpDef& op, const Attrs& attrs, std::span<const Tensor> in,
          std::span<const Tensor> out) override;
  void custom(const ir::Value& bprop, std::span<const Tensor> in, const Tensor& out) override;
  // A custom call `bprop` on x inserted right after x's producer, every recorded use of x
  // (and every later one) reading its output instead: the hook sees x's whole gradient.
  bool hook(const ir::Value& bprop, const Tensor& x) override;
  // x's value so far is kept (a copy) where the recording holds x as a forward value: the
  // backward of the ops that read it before the write sees what they read, and the write
  // itself is recorded as an op (Assign, AssignAdd: differentiable, compiler/ad/bprop.h).
  void before_write(const Tensor& x) override;
  // t depends differentiably on an input or weight (Rec::grad): a write into it (x[i] = v),
  // which is not recorded, would make the gradient wrong.
  bool holds(const Tensor& t) const override;
  size_t num_ops() const { return recs_.size(); }

  // The gradients of the recorded output `out` (a tensor, or a tuple of tensors, made by the
  // recorded ops) pulled back from `sens` (the same structure): one per input, then one per
  // weight. Uses or fills `cache`. Call after stop().
  // `host` runs custom bprops (host callables). With `observer`, each gradient is also
  // reported as soon as the backward graph has computed it (index as in the result), while
  // the rest of the backward runs (vm::ResultObserver).
  std::vector<ir::Value> backward(BackwardCache& cache, const ir::Value& out, const ir::Value& sens,
                                  vm::RuntimeHost* host, vm::ResultObserver* observer = nullptr);

  // Where a tensor came from: params_[index] (rec < 0) or output `index` of recs_[rec].
  struct Ref {
    int32_t rec = -1;
    int32_t index = 0;
    bool operator==(const Ref& o) const { return rec == o.rec && index == o.index; }
  };
  struct Rec {
    const OpDef* op;  // null: a custom-gradient call
    Attrs attrs;
    std::vector<Ref> in;
    TensorList out;
    ir::Value bprop;  // a custom call's gradient rule (fed to the backward, not in the key)
    // Its outputs depend differentiably on an input or weight (PyTorch's requires_grad): an
    // op with a rule, or a custom call, reading such a value. Not in the key.
    bool grad = false;
  };

 private:
  Ref ref_of(const Tensor& t);
  bool depends(const Ref& r) const;
  void add_param(const Tensor& t);
  // backward()'s steps: the cache's entry for this op sequence (null: none yet); a new entry
  // (the recorded graph g, whose nodes' feeds go to `source`, K(g), and B(g) fed with the
  // recorded values, compiled); a run of an entry on this recording's tensors.
  BackwardEntry* find_entry(BackwardCache& cache, const std::vector<Ref>& outs,
                            const std::string& out_shape) const;
  ir::FuncGraph* recorded_graph(ir::Module& m, const ir::Value& out, const std::vector<Ref>& outs,
                                SourceMap& source) const;
  std::unique_ptr<BackwardEntry> compile_entry(const ir::Value& out, const std::vector<Ref>& outs,
                                               const std::string& out_shape) const;
  ir::Value run_entry(const BackwardEntry& e, const ir::Value& sens, vm::RuntimeHost* host,
                      vm::ResultObserver* observer) const;

  std::unordered_map<const void*, Ref> ids_;  // TensorImpl -> where it came from
  std::vector<Tensor> params_;                // inputs, weights, then captured tensors
  size_t n_in_ = 0;
  size_t n_w_ = 0;
  std::vector<Rec> recs_;
  bool active_ = false;
};

}  // namespace mycel::ad
