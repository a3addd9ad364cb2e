#include "device/cuda/cuda_device.h"

#include <atomic>
#include <bit>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "base/error.h"
#include "device/cuda/cuda_allocator.h"
#include "device/cuda/cuda_tensor.h"
#include "device/cuda/strided_copy.h"
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
    for (int i = 0; i < n; ++i) {
      allocators_.push_back(std::make_unique<DeviceAllocator>(i));
      streams_.push_back(nullptr);
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
    pinned_.copy(dst, src, n, stream_of(index));
  }

  void copy_d2h(int index, void* dst, const void* src, size_t n) override {
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
  // ([..., 2] with doubled strides: complex64 <-> complex128 converts each part); between a
  // complex and a real dtype (rare: Cast, astype), converted on the host.
  void complex_copy(const Tensor& dst, const Tensor& src) {
    if (is_complex(dst.dtype()) && is_complex(src.dtype())) {
      strided_copy(parts_view(dst), parts_view(src.expand(dst.shape(), "copy")));
      return;
    }
    dst.copy_from(src.cpu().cast(dst.dtype()));
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

 private:
  int count_ = 0;
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

void set_after_sync(AfterSyncHook hook) { g_after_sync.store(hook, std::memory_order_release); }

Buffer::Buffer(int index, size_t nbytes) : index_(index), n_(nbytes), p_(nullptr) {
  if (n_) p_ = backend().allocate(index, n_);
}

Buffer::~Buffer() {
  if (p_) backend().release(index_, p_, n_);
}

}  // namespace mycel::cuda
