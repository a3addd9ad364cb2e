// Launchers of the normalisation kernels (norm_kernels.cu): BatchNorm, LayerNorm and their
// gradients. x_code is x's float dtype code; p_code the parameters' (x's, or kFloat32 for
// 16-bit x). Statistics are summed in double.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace mycel::cuda {

// x viewed as [n, c, s]. Training: batch mean and biased variance per channel, the running
// statistics (rmean, rvar; updated in place) moved by momentum towards mean and the unbiased
// variance; inference: normalises with rmean/rvar. bmean, bvar, smean, sinv: the outputs
// batch_mean, batch_variance, saved_mean, saved_invstd (1/sqrt(var + eps)).
struct BatchNormArgs {
  const void *x, *scale, *bias;
  void *rmean, *rvar;
  void *y, *bmean, *bvar, *smean, *sinv;
  int64_t n, c, s;
  bool training;
  double eps, momentum;
};
void launch_batch_norm(int x_code, int p_code, const BatchNormArgs& a, cudaStream_t stream);

// (dy, x, scale, saved_mean, saved_invstd) -> (dx, dscale, dbias).
struct BatchNormGradArgs {
  const void *dy, *x, *scale, *smean, *sinv;
  void *dx, *dscale, *dbias;
  int64_t n, c, s;
  bool training;
};
void launch_batch_norm_grad(int x_code, int p_code, const BatchNormGradArgs& a,
                            cudaStream_t stream);

// x as rows x cols; element f uses gamma/beta[f % params]; mean/rstd (rows entries) are in the
// compute type (float for 16-bit x).
struct LayerNormArgs {
  const void *x, *gamma, *beta;
  void *y, *mean, *rstd;
  int64_t rows, cols, params;
  double eps;
};
void launch_layer_norm(int x_code, int p_code, const LayerNormArgs& a, cudaStream_t stream);

// (dy, x, gamma, mean, rstd) -> (dx, dgamma, dbeta).
struct LayerNormGradArgs {
  const void *dy, *x, *gamma, *mean, *rstd;
  void *dx, *dgamma, *dbeta;
  int64_t rows, cols, params;
};
void launch_layer_norm_grad(int x_code, int p_code, const LayerNormGradArgs& a,
                            cudaStream_t stream);

}  // namespace mycel::cuda
