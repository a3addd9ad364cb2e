#include "codegen/graph_kernels.h"

#include "base/error.h"
#include "base/parallel.h"
#include "base/small_vector.h"
#include "codegen/jit.h"
#include "codegen/llvm_emit.h"
#include "codegen/loop_ir.h"

namespace mycel::codegen {

namespace {

constexpr int64_t kGrainElems = 32768;  // elements per parallel chunk at least

class GeneratedKernel final : public vm::FusedKernel {
 public:
  GeneratedKernel(LoopKernel k, KernelFn fn, std::string graph)
      : k_(std::move(k)), fn_(fn), graph_(std::move(graph)) {}

  ir::Value run(std::span<const ir::Value> args) const override {
    MC_ASSERT(args.size() == k_.inputs.size(), "graph kernel @", graph_, ": ", args.size(),
              " arguments for ", k_.inputs.size(), " inputs");
    std::vector<Tensor> keep;  // contiguous inputs, outputs, accumulators
    keep.reserve(args.size() + 2 * k_.outputs.size());
    SmallVector<char*, 16> bufs;
    for (size_t i = 0; i < args.size(); ++i) {
      const Tensor& t = args[i].as_tensor();
      MC_CHECK(t.device().is_cpu(), Runtime, "graph kernel @", graph_, ": input ", i, " is on ",
               device_name(t.device()),
               "; generated kernels run on the CPU (set_context(enable_graph_kernel=False))");
      MC_ASSERT(t.dtype() == k_.inputs[i].dtype, "graph kernel @", graph_, ": input ", i,
                " has dtype ", t.dtype());
      keep.push_back(t.contiguous());
      bufs.push_back(static_cast<char*>(keep.back().raw_data()));
    }
    std::vector<ir::Value> outs;
    for (const LOutput& o : k_.outputs) {
      keep.push_back(Tensor::empty(o.shape, o.dtype));
      bufs.push_back(static_cast<char*>(keep.back().raw_data()));
      outs.push_back(ir::Value::tensor(keep.back()));
    }
    for (const LOutput& o : k_.outputs) {
      if (o.reduce == Reduce::None) continue;
      keep.push_back(Tensor::empty({o.numel}, acc_dtype(o)));
      bufs.push_back(static_cast<char*>(keep.back().raw_data()));
    }
    char** table = bufs.data();
    int64_t n0 = k_.dims[0];
    if (k_.parallel_outer()) {
      int64_t grain = std::max<int64_t>(1, kGrainElems / std::max<int64_t>(1, k_.inner_elems()));
      parallel_for(0, n0, grain, [&](int64_t lo, int64_t hi) { fn_(table, lo, hi); });
    } else {
      fn_(table, 0, n0);
    }
    if (outs.size() == 1) return outs[0];
    return ir::Value::tuple(std::move(outs));
  }

 private:
  LoopKernel k_;
  KernelFn fn_;
  std::string graph_;
};

}  // namespace

vm::FusedKernels build_kernels(ir::FuncGraph* entry, KernelStats* stats) {
  vm::FusedKernels out;
  for (ir::FuncGraph* g : entry->module()->reachable_graphs(entry)) {
    if (!is_graph_kernel(g)) continue;
    ++stats->clusters;
    LoopKernel k = lower(g);
    std::string text = k.text();
    try {
      JitKernel j = get_kernel(text, emit_llvm(k, kernel_name(text)));
      (j.how == CacheResult::Compiled ? stats->misses : stats->hits)++;
      out[g] = std::make_shared<GeneratedKernel>(std::move(k), j.fn, g->name());
    } catch (const Error& e) {
      stats->failures.push_back("@" + g->name() + ": " + e.what());
    }
  }
  return out;
}

}  // namespace mycel::codegen
