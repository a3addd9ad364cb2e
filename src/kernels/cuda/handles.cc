// Per-device cuBLASLt/cuDNN handles and the host fallback (see handles.h).
#include "kernels/cuda/handles.h"

#include <mutex>
#include <vector>

#include "device/cuda/cuda_device.h"
#include "kernels/kernel_table.h"

namespace mycel::cuda {

namespace {

constexpr int kMaxDevices = 64;

std::mutex g_mu;
cublasLtHandle_t g_lt[kMaxDevices] = {};
cudnnHandle_t g_dnn[kMaxDevices] = {};

void check_index(int index) {
  MC_CHECK(index >= 0 && index < kMaxDevices, Runtime, "GPU index ", index, " out of range.");
}

}  // namespace

void check_cublas(cublasStatus_t st, const char* what) {
  MC_CHECK(st == CUBLAS_STATUS_SUCCESS, Runtime, "cuBLAS error in ", what, ": ",
           cublasGetStatusString(st), " (", static_cast<int>(st), ").");
}

void check_cudnn(cudnnStatus_t st, const char* what) {
  MC_CHECK(st == CUDNN_STATUS_SUCCESS, Runtime, "cuDNN error in ", what, ": ",
           cudnnGetErrorString(st), " (", static_cast<int>(st), ").");
}

cublasLtHandle_t cublaslt(int index) {
  check_index(index);
  (void)stream(index);  // makes the device current
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_lt[index]) MC_CUBLAS_CHECK(cublasLtCreate(&g_lt[index]));
  return g_lt[index];
}

cudnnHandle_t cudnn(int index) {
  check_index(index);
  cudaStream_t s = stream(index);  // makes the device current
  cudnnHandle_t h;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (!g_dnn[index]) MC_CUDNN_CHECK(cudnnCreate(&g_dnn[index]));
    h = g_dnn[index];
  }
  MC_CUDNN_CHECK(cudnnSetStream(h, s));
  return h;
}

void run_on_host(const KernelContext& ctx) {
  const OpDef& op = ctx.op;
  std::vector<Tensor> hin, hout;
  for (const Tensor& t : ctx.in) hin.push_back(t.to(Device::cpu()));
  for (size_t i = 0; i < ctx.out.size(); ++i) {
    const Tensor& o = ctx.out[i];
    hout.push_back((op.flags & F_UPDATE) ? hin[i] : Tensor::empty(o.shape(), o.dtype()));
  }
  KernelContext hctx{op, hin, hout, ctx.attrs, Device::cpu(), ctx.comm};
  cpu_kernel(op)(hctx);
  if (op.flags & F_INPLACE) {
    for (size_t i = 0; i < hin.size(); ++i) ctx.in[i].copy_from(hin[i]);
  }
  for (size_t i = 0; i < hout.size(); ++i) {
    if (!(op.flags & F_UPDATE)) ctx.out[i].copy_from(hout[i]);
  }
}

}  // namespace mycel::cuda
