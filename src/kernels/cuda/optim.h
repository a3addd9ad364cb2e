// Launchers of the state-update CUDA kernels (optim.cu, called by optim.cc). Plain data only.
//
// Tensors are contiguous and of one floating dtype `code` (AssignAdd: any numeric dtype),
// updated in place. The scalar inputs (learning rate, momentum, betas...) stay on the device
// and are read there by every thread (ScalarArg: pointer and dtype code), so a step never
// waits for a device-to-host copy; each kernel turns them into the CPU kernel's compute
// type exactly as kernels/cpu/optim.cc does (through double).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace mycel::cuda::optim {

// A one-element floating tensor on the device.
struct ScalarArg {
  const void* p = nullptr;
  int code = 0;
};

// var += val (val already cast to var's dtype and broadcast, contiguous).
void launch_assign_add(int code, void* var, const void* val, int64_t n, cudaStream_t stream);

// accumulation = momentum * accumulation + gradient * gradient_scale
// variable -= lr * (nesterov ? gradient * gradient_scale + momentum * accumulation : accumulation)
void launch_apply_momentum(int code, void* var, void* acc, const void* grad, ScalarArg lr,
                           ScalarArg momentum, double gradient_scale, bool nesterov, int64_t n,
                           cudaStream_t stream);

// PyTorch's SGD (ops/defs/optim.def); reads `stat` but does not reset it (the wrapper does,
// after this kernel in stream order).
void launch_sgd(int code, void* param, const void* grad, void* accum, ScalarArg lr,
                ScalarArg momentum, ScalarArg stat, double dampening, double weight_decay,
                bool nesterov, int64_t n, cudaStream_t stream);

// The scalars of Adam and AdamWeightDecay.
struct AdamScalars {
  bool weight_decay = false;  // AdamWeightDecay: no bias correction, decay * var in the step
  bool nesterov = false;      // Adam only
  ScalarArg beta1_power, beta2_power;  // Adam only
  ScalarArg lr, beta1, beta2, epsilon;
  ScalarArg decay;  // AdamWeightDecay only
};

void launch_adam(int code, void* var, void* m, void* v, const void* grad,
                 const AdamScalars& sc, int64_t n, cudaStream_t stream);

}  // namespace mycel::cuda::optim
