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

void launch_adam(int code, void* var, void* m, void* v, const void* grad, const AdamScalars& sc,
                 int64_t n, cudaStream_t stream);

// ApplyAdagrad: accum += grad * grad (with update_slots); var -= lr * grad / sqrt(accum).
void launch_apply_adagrad(int code, void* var, void* accum, const void* grad, ScalarArg lr,
                          bool update_slots, int64_t n, cudaStream_t stream);

// The scalars of ApplyRMSProp and ApplyCenteredRMSProp.
struct RmsPropScalars {
  ScalarArg lr, decay, momentum, epsilon;
};

// ApplyRMSProp, or ApplyCenteredRMSProp when mean_grad is not null (ops/defs/optim.def).
void launch_apply_rms_prop(int code, void* var, void* mean_grad, void* mean_square, void* moment,
                           const void* grad, const RmsPropScalars& sc, int64_t n,
                           cudaStream_t stream);

// The scalars of ApplyAdaMax.
struct AdaMaxScalars {
  ScalarArg beta1_power, lr, beta1, beta2, epsilon;
};

// m = beta1 m + (1 - beta1) grad;  v = max(beta2 v, |grad|);
// var -= lr / (1 - beta1_power) * m / (v + epsilon)
void launch_apply_ada_max(int code, void* var, void* m, void* v, const void* grad,
                          const AdaMaxScalars& sc, int64_t n, cudaStream_t stream);

// ApplyAdadelta (ops/defs/optim.def).
void launch_apply_adadelta(int code, void* var, void* accum, void* accum_update, const void* grad,
                           ScalarArg lr, ScalarArg rho, ScalarArg epsilon, int64_t n,
                           cudaStream_t stream);

// The scalars of ApplyFtrl.
struct FtrlScalars {
  ScalarArg lr, l1, l2, lr_power;
};

// ApplyFtrl (ops/defs/optim.def): writes var, accum and linear.
void launch_apply_ftrl(int code, void* var, void* accum, void* linear, const void* grad,
                       const FtrlScalars& sc, int64_t n, cudaStream_t stream);

}  // namespace mycel::cuda::optim
