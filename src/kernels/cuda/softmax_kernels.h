// Launchers of the softmax family's kernels (softmax_kernels.cu). Float dtype codes only.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace mycel::cuda {

// y = softmax(x) or log_softmax(x) (log) over the middle axis of x viewed as
// [outer, len, inner] (ops/infer_nn.h's AxisSplit).
void launch_softmax(int code, const void* x, void* y, int64_t outer, int64_t len, int64_t inner,
                    bool log, cudaStream_t s);

// SparseSoftmaxCrossEntropyWithLogits over logits[n, c] and labels[n] (label_code kInt32 or
// kInt64). is_grad: out[n, c] = (softmax - onehot) / n; else out[] = mean of -log_softmax at
// the label, summed in double. `row_loss` is scratch of n doubles (loss mode only). A label
// outside [0, c) makes its row (grad) or the loss NaN: the CPU kernel's IndexError would need
// a device-to-host wait.
void launch_sparse_softmax_ce(int code, const void* logits, int label_code, const void* labels,
                              void* out, double* row_loss, int64_t n, int64_t c, bool grad,
                              cudaStream_t s);

// SoftmaxCrossEntropyWithLogits: loss[i] = -sum_j labels[i,j] * log_softmax[i,j],
// dlogits = softmax - labels.
void launch_softmax_ce(int code, const void* logits, const void* labels, void* loss, void* dlogits,
                       int64_t n, int64_t c, cudaStream_t s);

}  // namespace mycel::cuda
