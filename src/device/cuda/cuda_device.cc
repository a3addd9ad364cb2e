#include "device/cuda/cuda_device.h"

#include <atomic>
#include <bit>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "base/error.h"
#include "device/cuda/cuda_allocator.h"
#include "device/cuda/cuda_capture.h"
#include "device/cuda/cuda_tensor.h"
#include "device/cuda/strided_copy.h"
#include "tensor/random.h"
#include "tensor/tensor.h"

namespace mycel::cuda {

void check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) [[likely]]
    return;
  cudaGetLastError();  // clear a non-sticky error so later calls can proceed
  MC_THROW(Runtime, "CUDA error in ", what, ": ", cudaGetErrorString(err), ".");
}

Shape broadcast_strides_to(const Tensor& t, const Shape& shape) {
  return t.shape() == shape ? t.strides() : t.expand(shape, "broadcast").strides();
}

namespace {

thread_local int t_current = -1;

std::atomic<AfterSyncHook> g_after_sync{nullptr};

// After the host waited for device `index`: the installed check (it may throw).
void after_sync(int index) {
  if (AfterSyncHook h = g_after_sync.load(std::memory_order_acquire)) h(index);
}

void use_device(int index) {
  if (t_current != index) {
    MC_CUDA_CHECK(cudaSetDevice(index));
    t_current = index;
  }
}

// Pinned host blocks for host->device copies, each reusable once the copy it staged has
// finished (its event has completed).
class PinnedPool {
 public:
  struct Block {
    void* p;
    size_t n;
    cudaEvent_t done;
  };

  // Stages n bytes of src and queues their copy to dst on stream s; returns at once.
  void copy(void* dst, const void* src, size_t n, cudaStream_t s) {
    std::lock_guard<std::mutex> lock(mu_);  // held until the block's event is recorded
    Block* b = acquire(n);
    std::memcpy(b->p, src, n);
    MC_CUDA_CHECK(cudaMemcpyAsync(dst, b->p, n, cudaMemcpyHostToDevice, s));
    MC_CUDA_CHECK(cudaEventRecord(b->done, s));
  }

 private:
  Block* acquire(size_t n) {
    for (auto& b : blocks_) {
      if (b->n >= n && cudaEventQuery(b->done) == cudaSuccess) return b.get();
    }
    cudaGetLastError();  // cudaEventQuery's cudaErrorNotReady
    size_t size = std::max<size_t>(std::bit_ceil(n), 1u << 20);
    auto b = std::make_unique<Block>();
    MC_CUDA_CHECK(cudaHostAlloc(&b->p, size, cudaHostAllocDefault));
    b->n = size;
    MC_CUDA_CHECK(cudaEventCreateWithFlags(&b->done, cudaEventDisableTiming));
    blocks_.push_back(std::move(b));
    return blocks_.back().get();
  }

  std::mutex mu_;
  std::vector<std::unique_ptr<Block>> blocks_;
};

class CudaBackend final : public DeviceBackend {
 public:
  CudaBackend() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      n = 0;
    }
    count_ = n;
    capturing_ = std::make_unique<std::atomic<bool>[]>(static_cast<size_t>(n > 0 ? n : 1));
    for (int i = 0; i < n; ++i) {
      allocators_.push_back(std::make_unique<DeviceAllocator>(i));
      streams_.push_back(nullptr);
      captures_.emplace_back();
    }
  }

  int device_count() override { return count_; }

  cudaStream_t stream_of(int index) {
    use_device(index);
    std::call_once(stream_once_, [&] {
      for (int i = 0; i < count_; ++i) {
        MC_CUDA_CHECK(cudaSetDevice(i));
        MC_CUDA_CHECK(cudaStreamCreateWithFlags(&streams_[i], cudaStreamNonBlocking));
      }
      MC_CUDA_CHECK(cudaSetDevice(index));
    });
    return streams_[static_cast<size_t>(index)];
  }

  void* allocate(int index, size_t nbytes) override {
    return allocators_[static_cast<size_t>(index)]->allocate(nbytes);
  }
  void release(int index, void* p, size_t nbytes) override {
    allocators_[static_cast<size_t>(index)]->release(p, nbytes);
  }

  void copy_h2d(int index, void* dst, const void* src, size_t n) override {
    refuse_in_capture(index, "a host->device copy");
    pinned_.copy(dst, src, n, stream_of(index));
  }

  void copy_d2h(int index, void* dst, const void* src, size_t n) override {
    refuse_in_capture(index, "a device->host copy (a host read of a tensor)");
    cudaStream_t s = stream_of(index);
    MC_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s));
    MC_CUDA_CHECK(cudaStreamSynchronize(s));
    after_sync(index);  // dst holds the bytes either way
  }

  void copy_d2d(int index, void* dst, const void* src, size_t n) override {
    MC_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, stream_of(index)));
  }

  void strided_copy(const Tensor& dst, const Tensor& src) override {
    if (is_complex(dst.dtype()) || is_complex(src.dtype())) {
      complex_copy(dst, src);
      return;
    }
    int index = dst.device().index;
    cudaStream_t s = stream_of(index);
    if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() &&
        src.shape() == dst.shape()) {
      MC_CUDA_CHECK(cudaMemcpyAsync(dst.raw_data(), src.raw_data(), dst.nbytes(),
                                    cudaMemcpyDeviceToDevice, s));
      return;
    }
    Shape sst = broadcast_strides_to(src, dst.shape());
    Strided<2> desc = strided_of<2>(dst.shape(), {&dst.strides(), &sst});
    launch_strided_copy(dst.raw_data(), code(dst.dtype()), src.raw_data(), code(src.dtype()), desc,
                        dst.numel(), s);
    MC_CUDA_LAUNCH_CHECK();
  }

  // Complex copies: between complex dtypes, each part as a real copy of the parts views
  // ([..., 2] with doubled strides: complex64 <-> complex128 converts each part); complex to
  // real (Cast's rule: the real part, converted) as a copy of the real parts' view; real to a
  // contiguous complex: zeros, then the real parts' view written (imaginary parts 0); complex
  // to bool: either part nonzero (a kernel of its own). Real into a strided complex view runs
  // on the host.
  void complex_copy(const Tensor& dst, const Tensor& src) {
    if (is_complex(dst.dtype()) && is_complex(src.dtype())) {
      strided_copy(parts_view(dst), parts_view(src.expand(dst.shape(), "copy")));
      return;
    }
    if (is_complex(src.dtype()) && dst.dtype() == DType::Bool) {
      Shape sst = broadcast_strides_to(src, dst.shape());
      Strided<2> desc = strided_of<2>(dst.shape(), {&dst.strides(), &sst});
      launch_complex_to_bool(static_cast<bool*>(dst.raw_data()), src.raw_data(),
                             src.dtype() == DType::Complex128, desc, dst.numel(),
                             stream_of(dst.device().index));
      MC_CUDA_LAUNCH_CHECK();
      return;
    }
    if (is_complex(src.dtype())) {
      strided_copy(dst, real_view(src));
      return;
    }
    if (is_complex(dst.dtype()) && dst.is_contiguous()) {
      if (dst.nbytes() == 0) return;
      MC_CUDA_CHECK(
          cudaMemsetAsync(dst.raw_data(), 0, dst.nbytes(), stream_of(dst.device().index)));
      strided_copy(real_view(dst), src);
      return;
    }
    dst.copy_from(src.cpu().cast(dst.dtype()));
  }

  // The real parts of a complex tensor, as a view of the part dtype (doubled strides).
  static Tensor real_view(const Tensor& t) {
    Shape strides;
    for (int64_t st : t.strides()) strides.push_back(2 * st);
    return Tensor::make_view(t.storage(), complex_part_dtype(t.dtype()), t.shape(), strides,
                             2 * t.offset());
  }

  static Tensor parts_view(const Tensor& t) {
    Shape shape = t.shape(), strides;
    shape.push_back(2);
    for (int64_t st : t.strides()) strides.push_back(2 * st);
    strides.push_back(1);
    return Tensor::make_view(t.storage(), complex_part_dtype(t.dtype()), shape, strides,
                             2 * t.offset());
  }

  void synchronize(int index) override {
    refuse_in_capture(index, "a host synchronisation");
    MC_CUDA_CHECK(cudaStreamSynchronize(stream_of(index)));
    after_sync(index);
  }

  AllocatorStats memory_stats(int index) override {
    return allocators_[static_cast<size_t>(index)]->stats();
  }
  void reset_peak_memory(int index) override {
    allocators_[static_cast<size_t>(index)]->reset_peak();
  }
  void empty_cache(int index) override { allocators_[static_cast<size_t>(index)]->empty_cache(); }

  // ---- capture (tensor/capture.h): stream capture into a CUDA Graph ----
  DeviceAllocator& allocator(int index) { return *allocators_[static_cast<size_t>(index)]; }

  void refuse_in_capture(int index, const char* what) {
    if (index >= 0 && index < count_ && capturing_[static_cast<size_t>(index)].load())
      MC_THROW(Runtime, what, " on GPU:", index, " cannot be captured into a CUDA graph.");
  }

  // What a capture in progress records besides its graph: the random draws and the device
  // words their kernels read (cuda_capture.h).
  struct Draws {
    std::vector<CapturedDraw> draws;
    uint64_t* words = nullptr;  // kMaxCapturedDraws pairs, from the ordinary cache
  };

  const uint64_t* capture_draw(int index, const CapturedDraw& d) {
    if (index < 0 || index >= count_ || !capturing_[static_cast<size_t>(index)].load())
      return nullptr;
    Draws& c = captures_[static_cast<size_t>(index)];
    MC_CHECK(c.draws.size() < kMaxCapturedDraws, Runtime, "more than ", kMaxCapturedDraws,
             " random draws in one captured step on GPU:", index, ".");
    c.draws.push_back(d);
    return c.words + 2 * (c.draws.size() - 1);
  }

  // Global mode: a call that could act on the device behind the capture's back (a
  // synchronisation, cudaFree) from any thread fails instead of corrupting the capture.
  int begin_capture(int index) {
    cudaStream_t s = stream_of(index);
    Draws& c = captures_[static_cast<size_t>(index)];
    c.draws.clear();
    c.words = static_cast<uint64_t*>(allocate(index, kMaxCapturedDraws * 2 * sizeof(uint64_t)));
    int pool = allocator(index).begin_pool();
    capturing_[static_cast<size_t>(index)].store(true);
    cudaError_t err = cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    if (err != cudaSuccess) {
      capturing_[static_cast<size_t>(index)].store(false);
      allocator(index).end_pool();
      allocator(index).release_pool(pool);
      release_words(index, take_draws(index));
      check(err, "cudaStreamBeginCapture");
    }
    return pool;
  }

  Draws take_draws(int index) {
    Draws d = std::move(captures_[static_cast<size_t>(index)]);
    captures_[static_cast<size_t>(index)] = Draws{};
    return d;
  }
  void release_words(int index, const Draws& d) {
    if (d.words) release(index, d.words, kMaxCapturedDraws * 2 * sizeof(uint64_t));
  }

  // Ends the capture: the instantiated graph (*exec, *graph), or an error message (the
  // capture's pool and draws are then given back).
  std::string end_capture(int index, int pool, cudaGraph_t* graph, cudaGraphExec_t* exec) {
    cudaStream_t s = stream_of(index);
    *graph = nullptr;
    *exec = nullptr;
    cudaError_t err = cudaStreamEndCapture(s, graph);
    capturing_[static_cast<size_t>(index)].store(false);
    allocator(index).end_pool();
    std::string why;
    if (err != cudaSuccess || *graph == nullptr) {
      why = str("cudaStreamEndCapture: ", cudaGetErrorString(err));
    } else {
      err = cudaGraphInstantiate(exec, *graph, 0);
      if (err != cudaSuccess) why = str("cudaGraphInstantiate: ", cudaGetErrorString(err));
    }
    if (!why.empty()) {
      cudaGetLastError();
      if (*exec) cudaGraphExecDestroy(*exec);
      if (*graph) cudaGraphDestroy(*graph);
      *graph = nullptr;
      *exec = nullptr;
      allocator(index).release_pool(pool);
      release_words(index, take_draws(index));
    }
    return why;
  }

 private:
  int count_ = 0;
  std::unique_ptr<std::atomic<bool>[]> capturing_;
  std::vector<Draws> captures_;  // per device: the capture in progress
  std::vector<std::unique_ptr<DeviceAllocator>> allocators_;
  std::vector<cudaStream_t> streams_;
  std::once_flag stream_once_;
  PinnedPool pinned_;
};

CudaBackend& backend() {
  static CudaBackend* b = new CudaBackend();  // never destroyed: see cuda_device.h
  return *b;
}

}  // namespace

DeviceBackend& cuda_backend() { return backend(); }

cudaStream_t stream(int index) { return backend().stream_of(index); }

namespace {

class CudaGraph final : public CapturedGraph {
 public:
  CudaGraph(int index, int pool, cudaGraph_t g, cudaGraphExec_t e, CudaBackend::Draws draws)
      : index_(index), pool_(pool), graph_(g), exec_(e), draws_(std::move(draws)) {}
  ~CudaGraph() override {
    // Launches still queued finish first; errors here cannot be reported (a destructor).
    cudaStreamSynchronize(backend().stream_of(index_));
    cudaGraphExecDestroy(exec_);
    cudaGraphDestroy(graph_);
    cudaGetLastError();
    backend().allocator(index_).release_pool(pool_);
    backend().release_words(index_, draws_);
  }
  void replay() override {
    if (!draws_.draws.empty()) {
      // This step's draws, reserved as op by op would, into the words the kernels read
      // (a staged copy in stream order, before the launch).
      host_words_.resize(2 * draws_.draws.size());
      for (size_t i = 0; i < draws_.draws.size(); ++i) {
        const CapturedDraw& d = draws_.draws[i];
        const RandomStream st = next_random_stream(d.seed, d.seed2, d.count, d.instance);
        host_words_[2 * i] = st.key;
        host_words_[2 * i + 1] = st.offset;
      }
      backend().copy_h2d(index_, draws_.words, host_words_.data(),
                         host_words_.size() * sizeof(uint64_t));
    }
    MC_CUDA_CHECK(cudaGraphLaunch(exec_, backend().stream_of(index_)));
  }

 private:
  int index_, pool_;
  cudaGraph_t graph_;
  cudaGraphExec_t exec_;
  CudaBackend::Draws draws_;
  std::vector<uint64_t> host_words_;
};

class CudaCapture final : public CaptureBackend {
 public:
  bool can_capture(int index) override { return index >= 0 && index < backend().device_count(); }
  void begin_capture(int index) override {
    std::lock_guard<std::mutex> lock(mu_);
    MC_CHECK(pools_.find(index) == pools_.end(), Runtime, "GPU:", index,
             " is already capturing a CUDA graph.");
    pools_[index] = backend().begin_capture(index);
  }
  std::unique_ptr<CapturedGraph> end_capture(int index, std::string* why) override {
    int pool;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = pools_.find(index);
      MC_ASSERT(it != pools_.end(), "GPU:", index, " is not capturing");
      pool = it->second;
      pools_.erase(it);
    }
    cudaGraph_t g;
    cudaGraphExec_t e;
    std::string err = backend().end_capture(index, pool, &g, &e);
    if (!err.empty()) {
      if (why) *why = err;
      return nullptr;
    }
    return std::make_unique<CudaGraph>(index, pool, g, e, backend().take_draws(index));
  }

 private:
  std::mutex mu_;
  std::map<int, int> pools_;  // device -> pool of its capture in progress
};

}  // namespace

const uint64_t* capture_random_draw(int index, const CapturedDraw& d) {
  return backend().capture_draw(index, d);
}

CaptureBackend& cuda_capture_backend() {
  static CudaCapture* c = new CudaCapture();  // never destroyed, as the backend
  return *c;
}

void set_after_sync(AfterSyncHook hook) { g_after_sync.store(hook, std::memory_order_release); }

Buffer::Buffer(int index, size_t nbytes) : index_(index), n_(nbytes), p_(nullptr) {
  if (n_) p_ = backend().allocate(index, n_);
}

Buffer::~Buffer() {
  if (p_) backend().release(index_, p_, n_);
}

}  // namespace mycel::cuda
