#include "codegen/graph_kernels.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <type_traits>

#include "base/env.h"
#include "base/error.h"
#include "base/parallel.h"
#include "base/small_vector.h"
#include "codegen/jit.h"
#include "codegen/llvm_emit.h"
#include "codegen/loop_ir.h"
#include "codegen/matmul_epilogue.h"

namespace mycel::codegen {

namespace {

constexpr int64_t kGrainElems = 32768;  // elements per parallel chunk at least
// A kernel that reduces dims[0] runs in at most kMaxChunks slices of kChunkElems or more.
constexpr int64_t kMaxChunks = 16;
constexpr int64_t kChunkElems = 65536;

class GeneratedKernel final : public vm::FusedKernel {
 public:
  GeneratedKernel(LoopKernel k, KernelFn fn, std::string graph)
      : k_(std::move(k)), fn_(fn), graph_(std::move(graph)) {}

  // Input i can hold output j when it has j's dtype and strides and j stores one element per
  // point of the kernel (LOutput::in_place).
  bool can_hold(size_t i, const LOutput& o) const {
    int64_t points = 1;
    for (int64_t d : k_.dims) points *= d;
    return o.reduce == Reduce::None && !o.internal && o.numel == points &&
           k_.inputs[i].dtype == o.dtype && k_.inputs[i].strides == o.strides;
  }

  std::vector<uint8_t> donatable() const override {
    std::vector<uint8_t> can(k_.inputs.size(), 0);
    for (size_t i = 0; i < can.size(); ++i)
      for (const LOutput& o : k_.outputs) can[i] |= can_hold(i, o) ? 1 : 0;
    return can;
  }

  ir::Value run(std::span<const ir::Value> args, std::span<const uint8_t> donated) const override {
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
    // Outputs stored into donated inputs: each donated input holds the first output it can.
    std::vector<int32_t> into(k_.outputs.size(), -1);
    if (!donated.empty()) {
      std::vector<uint8_t> taken(args.size(), 0);
      for (size_t j = 0; j < k_.outputs.size(); ++j)
        for (size_t i = 0; i < args.size() && into[j] < 0; ++i)
          if (donated[i] && !taken[i] && can_hold(i, k_.outputs[j]) &&
              keep[i].shape() == k_.outputs[j].shape) {
            into[j] = static_cast<int32_t>(i);
            taken[i] = 1;
          }
    }
    KernelFn fn = variant(into);
    if (fn == fn_) into.assign(into.size(), -1);  // (no in-place kernel: own buffers)
    std::vector<ir::Value> outs;
    for (size_t j = 0; j < k_.outputs.size(); ++j) {
      const LOutput& o = k_.outputs[j];
      keep.push_back(into[j] >= 0 ? keep[static_cast<size_t>(into[j])]
                                  : Tensor::empty(o.shape, o.dtype));
      bufs.push_back(static_cast<char*>(keep.back().raw_data()));
      if (!o.internal) outs.push_back(ir::Value::tensor(keep.back()));  // (internal: scratch)
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
      parallel_for(0, n0, grain, [&](int64_t lo, int64_t hi) { fn(table, lo, hi, 3); });
    } else if (int64_t chunks = outer_chunks(); chunks > 1) {
      run_chunked(fn, bufs, chunks);
    } else {
      fn(table, 0, n0, 3);
    }
    if (outs.size() == 1) return outs[0];
    return ir::Value::tuple(std::move(outs));
  }

 private:
  // The kernel that stores output j into input into[j] (-1: its own buffer): the built one
  // when none is in place, else that variant, compiled on its first use (the executor donates
  // the same inputs at every run of a call, so a call needs one) and kept; fn_ when it cannot
  // be built (an LLVM failure: the outputs then get their own buffers).
  KernelFn variant(const std::vector<int32_t>& into) const {
    if (std::all_of(into.begin(), into.end(), [](int32_t i) { return i < 0; })) return fn_;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = variants_.find(into);
    if (it != variants_.end()) return it->second;
    LoopKernel k = k_;
    for (size_t j = 0; j < into.size(); ++j) k.outputs[j].in_place = into[j];
    KernelFn fn = fn_;
    try {
      std::string text = k.text();
      fn = get_kernel(text, emit_llvm(k, kernel_name(text))).fn;
    } catch (const Error&) {
    }
    variants_.emplace(into, fn);
    return fn;
  }

  // How many slices of dims[0] a kernel that reduces dims[0] runs in: a function of the sizes
  // only (never of the thread count), so the partial sums and their order are always the same.
  int64_t outer_chunks() const {
    if (k_.row_dims > 0) return 1;
    int64_t total = k_.dims[0] * k_.inner_elems();
    return std::min({k_.dims[0], kMaxChunks, total / kChunkElems});
  }

  // The steps of dims[0] in `chunks` slices on the threads, each accumulating the outputs
  // that reduce dims[0] into its own accumulators (the first slice into the real ones), which
  // are then combined in slice order and finalised (llvm_emit.h, flags).
  void run_chunked(KernelFn fn, SmallVector<char*, 16>& bufs, int64_t chunks) const {
    size_t nin = k_.inputs.size();
    std::vector<size_t> outer;  // buffer index of each accumulator that reduces dims[0]
    size_t acc = nin + k_.outputs.size();
    for (const LOutput& o : k_.outputs) {
      if (o.reduce == Reduce::None) continue;
      if (o.strides[0] == 0) outer.push_back(acc);
      ++acc;
    }
    std::vector<SmallVector<char*, 16>> tables(static_cast<size_t>(chunks), bufs);
    std::vector<Tensor> partial;
    partial.reserve(outer.size() * static_cast<size_t>(chunks));
    for (size_t c = 1; c < tables.size(); ++c)
      for (size_t b : outer) {
        const LOutput& o = output_of_acc(b);
        partial.push_back(Tensor::empty({o.numel}, acc_dtype(o)));
        tables[c][b] = static_cast<char*>(partial.back().raw_data());
      }
    int64_t n0 = k_.dims[0];
    parallel_for(0, chunks, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t c = lo; c < hi; ++c)
        fn(tables[static_cast<size_t>(c)].data(), n0 * c / chunks, n0 * (c + 1) / chunks, 1);
    });
    for (size_t b : outer) {
      const LOutput& o = output_of_acc(b);
      for (size_t c = 1; c < tables.size(); ++c) combine(o, bufs[b], tables[c][b]);
    }
    fn(bufs.data(), 0, 0, 2);
  }

  const LOutput& output_of_acc(size_t b) const {
    size_t acc = k_.inputs.size() + k_.outputs.size();
    for (const LOutput& o : k_.outputs) {
      if (o.reduce == Reduce::None) continue;
      if (acc++ == b) return o;
    }
    MC_ASSERT(false, "graph kernel @", graph_, ": no accumulator ", b);
  }

  // into[i] = into[i] (+ or max or min) from[i] over output o's accumulator elements.
  static void combine(const LOutput& o, char* into, const char* from) {
    switch (acc_dtype(o)) {
      case DType::Float64:
        return combine_as<double>(o, into, from);
      case DType::Int32:
        return combine_as<int32_t>(o, into, from);
      case DType::Int64:
        return combine_as<int64_t>(o, into, from);
      default:
        MC_ASSERT(false, "graph kernel: no combine for ", dtype_name(acc_dtype(o)));
    }
  }
  template <class T>
  static void combine_as(const LOutput& o, char* into, const char* from) {
    T* a = reinterpret_cast<T*>(into);
    const T* b = reinterpret_cast<const T*>(from);
    for (int64_t i = 0; i < o.numel; ++i) {
      if (o.reduce == Reduce::Max) {
        a[i] = std::max(a[i], b[i]);  // (float keys: ordered integers, llvm_emit.cc)
      } else if (o.reduce == Reduce::Min) {
        a[i] = std::min(a[i], b[i]);
      } else if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;  // integer sums wrap, as the kernels'
        a[i] = static_cast<T>(static_cast<U>(a[i]) + static_cast<U>(b[i]));
      } else {
        a[i] += b[i];
      }
    }
  }

  LoopKernel k_;
  KernelFn fn_;
  std::string graph_;
  mutable std::mutex mu_;
  mutable std::map<std::vector<int32_t>, KernelFn> variants_;  // in-place kernels by `into`
};

// MYCEL_DUMP_KERNELS=dir: each kernel's loop IR (as comments) and LLVM IR, dir/<name>.ll
// (a debugging aid: profile a kernel, read its code with opt/llc; best effort, no error).
void dump_kernel(const std::string& name, const std::string& text, const std::string& ir) {
  const std::string dir = env_string("MYCEL_DUMP_KERNELS");
  if (dir.empty()) return;
  std::ofstream out(dir + "/" + name + ".ll");
  std::string line;
  for (char c : text) {
    line += c;
    if (c != '\n') continue;
    out << "; " << line;
    line.clear();
  }
  if (!line.empty()) out << "; " << line << "\n";
  out << ir;
}

}  // namespace

vm::FusedKernels build_kernels(ir::FuncGraph* entry, KernelStats* stats) {
  vm::FusedKernels out;
  for (ir::FuncGraph* g : entry->module()->reachable_graphs(entry)) {
    if (!is_graph_kernel(g)) continue;
    ++stats->clusters;
    if (is_matmul_epilogue(g)) {  // a device library call, not generated code
      out[g] = matmul_epilogue_kernel(g);
      continue;
    }
    LoopKernel k = lower(g);
    std::string text = k.text();
    try {
      std::string name = kernel_name(text);
      std::string ir = emit_llvm(k, name);
      dump_kernel(name, text, ir);
      JitKernel j = get_kernel(text, ir);
      (j.how == CacheResult::Compiled ? stats->misses : stats->hits)++;
      out[g] = std::make_shared<GeneratedKernel>(std::move(k), j.fn, g->name());
    } catch (const Error& e) {
      stats->failures.push_back("@" + g->name() + ": " + e.what());
    }
  }
  return out;
}

}  // namespace mycel::codegen
