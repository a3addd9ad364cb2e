// CUDA kernels of MatMul, BatchMatMul and BiasAdd.
//
// Float types go to cuBLASLt, one (strided-batched) call per product:
//   - float32 computes in CUBLAS_COMPUTE_32F, which never uses TF32, so results match the
//     CPU's sgemm within float32 tolerances; with op_precision's matmul_allow_tf32 on
//     (tensor/op_precision.h, read at each launch) in CUBLAS_COMPUTE_32F_FAST_TF32 instead:
//     inputs rounded to TF32 in the tensor cores, float32 accumulation and output;
//     float16/bfloat16 read and write 16 bits and
//     accumulate in float32 (the CPU widens to float32, multiplies, rounds back: the same up
//     to summation order); float64 computes in CUBLAS_COMPUTE_64F;
//   - row-major Y[M,N] = op(A) op(B) is column-major Y^T[N,M] = op(B)^T op(A)^T, so cuBLASLt's
//     "A" is our B and its "B" is our A, with the transpose flags swapped accordingly;
//   - batches: an operand whose batch dims are all 1 is shared (batch stride 0), one with the
//     output's batch count is walked with its matrix size as stride; any other broadcast is
//     materialised first (expand + contiguous on the device). A shared x2 with an
//     untransposed x1 folds the batch into the rows (one [B*M, K] x [K, N] product);
//   - the algorithm is cuBLASLt's first heuristic pick for the actual pointer alignments,
//     with a workspace from the caching allocator; where it offers none the naive kernel of
//     linalg_kernels.cu runs instead.
// complex64/complex128 go to cuBLASLt too (CUDA_C_32F in CUBLAS_COMPUTE_32F, never TF32;
// CUDA_C_64F in CUBLAS_COMPUTE_64F; no conjugation: MatMul's flags only transpose); where the
// heuristics offer no algorithm the product runs on host copies (there is no naive complex
// kernel).
// Integer dtypes use the naive kernel (cuBLASLt has no general integer GEMM); its sums wrap
// like the CPU kernel's. BiasAdd is an elementwise kernel.
//
// cuda_fused_matmul (kernels/fused_matmul.h, installed by install_cuda): one 2-D product with
// cuBLASLt's bias epilogue (CUBLASLT_EPILOGUE_BIAS, RELU_BIAS or GELU_BIAS): the bias vector
// runs along the rows of the column-major Y^T, i.e. along our N, added to the float32
// accumulator before the activation and the one rounding to the output type; or with its
// bias-gradient epilogue (BGRADA/BGRADB: the sum of an operand over the GEMM's k, written
// to the bias buffer). float32 (TF32
// as the switch says), float16 and bfloat16 only; it declines (false) what the heuristics or
// cuBLASLt do not take, and the graph kernel then runs the ops.
#include <algorithm>
#include <cstring>

#include "device/cuda/cuda_device.h"
#include "device/cuda/cuda_tensor.h"
#include "kernels/cuda/array_index.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/handles.h"
#include "kernels/cuda/linalg_kernels.h"
#include "kernels/fused_matmul.h"
#include "tensor/op_precision.h"

namespace mycel::cuda {

namespace {

constexpr size_t kMaxWorkspace = size_t{32} << 20;
constexpr int64_t kMaxBatchPerCall = 65535;

// Largest power of two (<= 256) dividing the address: cuBLASLt's heuristics assume 256-byte
// aligned operands unless told otherwise.
uint32_t alignment_of(const void* p) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  uint32_t al = 256;
  while (al > 1 && (a % al) != 0) al /= 2;
  return al;
}

// RAII owners of the cuBLASLt descriptors.
struct LtDescs {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  LtDescs() = default;
  LtDescs(const LtDescs&) = delete;
  LtDescs& operator=(const LtDescs&) = delete;
  ~LtDescs() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

void set_batch(cublasLtMatrixLayout_t l, int32_t count, int64_t stride) {
  MC_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                                   sizeof(count)));
  MC_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                   &stride, sizeof(stride)));
}

// A bias epilogue: its kind and the bias vector (N elements of Y's type).
struct Epilogue {
  cublasLtEpilogue_t kind;
  const void* bias;
};

// One cuBLASLt call for `batches` products (with `epi`'s epilogue when given); false (nothing
// queued) when the heuristics offer no algorithm or, with an epilogue, cuBLASLt declines it.
bool lt_matmul(int dev, DType dt, bool tf32, const void* A, const void* B, void* Y, int64_t batches,
               int64_t M, int64_t N, int64_t K, bool ta, bool tb, int64_t sa, int64_t sb,
               const Epilogue* epi = nullptr) {
  cudaDataType_t data;
  cublasComputeType_t compute;
  cudaDataType_t scale;
  switch (dt) {
    case DType::Float32:
      data = CUDA_R_32F, scale = CUDA_R_32F;
      compute = tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      break;
    case DType::Float16:
      data = CUDA_R_16F, compute = CUBLAS_COMPUTE_32F, scale = CUDA_R_32F;
      break;
    case DType::BFloat16:
      data = CUDA_R_16BF, compute = CUBLAS_COMPUTE_32F, scale = CUDA_R_32F;
      break;
    case DType::Float64:
      data = CUDA_R_64F, compute = CUBLAS_COMPUTE_64F, scale = CUDA_R_64F;
      break;
    case DType::Complex64:  // never TF32: the CPU's complex product is plain float32
      data = CUDA_C_32F, compute = CUBLAS_COMPUTE_32F, scale = CUDA_C_32F;
      break;
    case DType::Complex128:
      data = CUDA_C_64F, compute = CUBLAS_COMPUTE_64F, scale = CUDA_C_64F;
      break;
    default:
      return false;
  }
  cublasLtHandle_t h = cublaslt(dev);
  cudaStream_t s = stream(dev);
  LtDescs d;
  MC_CUBLAS_CHECK(cublasLtMatmulDescCreate(&d.op, compute, scale));
  // cuBLASLt's A is our B (column-major view of row-major storage), its B our A.
  cublasOperation_t opa = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opb = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  MC_CUBLAS_CHECK(
      cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof(opa)));
  MC_CUBLAS_CHECK(
      cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof(opb)));
  if (epi != nullptr) {
    MC_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi->kind,
                                                   sizeof(epi->kind)));
    MC_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                   &epi->bias, sizeof(epi->bias)));
  }
  // Stored (column-major) shapes: B is [K,N] row-major = [N rows, K cols], ld N (or [N,K]
  // row-major = [K rows, N cols], ld K, when tb); likewise A; Y^T is [N rows, M cols], ld N.
  const uint64_t a_rows = tb ? K : N, a_cols = tb ? N : K;
  const uint64_t b_rows = ta ? M : K, b_cols = ta ? K : M;
  MC_CUBLAS_CHECK(
      cublasLtMatrixLayoutCreate(&d.a, data, a_rows, a_cols, static_cast<int64_t>(a_rows)));
  MC_CUBLAS_CHECK(
      cublasLtMatrixLayoutCreate(&d.b, data, b_rows, b_cols, static_cast<int64_t>(b_rows)));
  MC_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&d.c, data, static_cast<uint64_t>(N),
                                             static_cast<uint64_t>(M), N));
  const int32_t count = static_cast<int32_t>(batches);
  set_batch(d.a, count, sb);
  set_batch(d.b, count, sa);
  set_batch(d.c, count, M * N);

  MC_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&d.pref));
  size_t max_ws = kMaxWorkspace;
  MC_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      d.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_ws, sizeof(max_ws)));
  const uint32_t al_a = alignment_of(B), al_b = alignment_of(A), al_c = alignment_of(Y);
  MC_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      d.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &al_a, sizeof(al_a)));
  MC_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      d.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &al_b, sizeof(al_b)));
  MC_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      d.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &al_c, sizeof(al_c)));
  MC_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      d.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &al_c, sizeof(al_c)));

  cublasLtMatmulHeuristicResult_t res;
  std::memset(&res, 0, sizeof(res));
  int found = 0;
  cublasStatus_t st =
      cublasLtMatmulAlgoGetHeuristic(h, d.op, d.a, d.b, d.c, d.c, d.pref, 1, &res, &found);
  // (With an epilogue, a configuration cuBLASLt rejects is declined: the ops then run.)
  if (st == CUBLAS_STATUS_NOT_SUPPORTED || (epi != nullptr && st == CUBLAS_STATUS_INVALID_VALUE))
    return false;
  check_cublas(st, "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0 || res.state != CUBLAS_STATUS_SUCCESS) return false;

  Buffer ws(dev, res.workspaceSize);
  // alpha = 1, beta = 0 in the scale type (a complex one is {re, im}).
  const float one_f[2] = {1.0f, 0.0f}, zero_f[2] = {0.0f, 0.0f};
  const double one_d[2] = {1.0, 0.0}, zero_d[2] = {0.0, 0.0};
  const bool f64 = dt == DType::Float64 || dt == DType::Complex128;
  st = cublasLtMatmul(h, d.op, f64 ? static_cast<const void*>(one_d) : one_f, B, d.a, A, d.b,
                      f64 ? static_cast<const void*>(zero_d) : zero_f, Y, d.c, Y, d.c, &res.algo,
                      ws.data(), res.workspaceSize, s);
  if (epi != nullptr && (st == CUBLAS_STATUS_NOT_SUPPORTED || st == CUBLAS_STATUS_INVALID_VALUE))
    return false;
  check_cublas(st, "cublasLtMatmul");
  return true;
}

// op's operand `t` ready for batch strides: itself with stride `mat` (its batch count is the
// output's) or 0 (one matrix for all), else expanded to the output's batch dims.
Tensor batch_operand(const Tensor& t, const Shape& ys, int64_t batches, int64_t* stride) {
  const size_t r = t.shape().size();
  const int64_t mat = t.shape()[r - 2] * t.shape()[r - 1];
  const int64_t count = mat == 0 ? 1 : t.numel() / mat;
  if (count == 1 && batches != 1) {
    *stride = 0;
    return t;
  }
  *stride = mat;
  if (count == batches) return t;
  Shape full(ys.begin(), ys.end() - 2);
  full.push_back(t.shape()[r - 2]);
  full.push_back(t.shape()[r - 1]);
  return t.expand(full).contiguous();
}

}  // namespace

void cuda_matmul(const KernelContext& ctx) {
  const Tensor& y = ctx.out[0];
  if (y.numel() == 0) return;
  const int dev = ctx.device.index;
  cudaStream_t s = stream(dev);
  const bool ta = ctx.attrs.get_bool("transpose_a"), tb = ctx.attrs.get_bool("transpose_b");
  const Shape& ys = y.shape();
  const size_t ry = ys.size(), ra = ctx.in[0].shape().size();
  const int64_t M = ys[ry - 2], N = ys[ry - 1];
  const int64_t K = ctx.in[0].shape()[ra - (ta ? 2 : 1)];
  if (K == 0) {
    MC_CUDA_CHECK(cudaMemsetAsync(y.raw_data(), 0, y.nbytes(), s));
    return;
  }
  const int64_t batches = y.numel() / (M * N);
  int64_t sa = 0, sb = 0;
  const Tensor a = batch_operand(ctx.in[0], ys, batches, &sa);
  const Tensor b = batch_operand(ctx.in[1], ys, batches, &sb);
  int64_t rows = M, count = batches;
  if (sb == 0 && sa != 0 && !ta) {
    // x2 shared by every batch, x1 not transposed: [B, M, K] x [K, N] is one
    // [B*M, K] x [K, N] product.
    rows = batches * M;
    count = 1;
  }
  const DType dt = y.dtype();
  const size_t es = y.itemsize();
  const bool tf32 = op_precision(DeviceType::CUDA).matmul_allow_tf32;
  const bool is_float = dt == DType::Float32 || dt == DType::Float16 || dt == DType::BFloat16 ||
                        dt == DType::Float64 || is_complex(dt);
  for (int64_t t0 = 0; t0 < count; t0 += kMaxBatchPerCall) {
    const int64_t nb = std::min(kMaxBatchPerCall, count - t0);
    const char* A = static_cast<const char*>(a.raw_data()) + t0 * sa * static_cast<int64_t>(es);
    const char* B = static_cast<const char*>(b.raw_data()) + t0 * sb * static_cast<int64_t>(es);
    char* Y = static_cast<char*>(y.raw_data()) + t0 * rows * N * static_cast<int64_t>(es);
    if (is_float && lt_matmul(dev, dt, tf32, A, B, Y, nb, rows, N, K, ta, tb, sa, sb)) continue;
    if (is_complex(dt)) {  // no naive complex kernel: the whole product on host copies
      run_on_host(ctx);
      return;
    }
    launch_matmul_naive(code(dt), A, B, Y, nb, rows, N, K, ta, tb, sa, sb, s);
    MC_CUDA_LAUNCH_CHECK();
  }
}

bool cuda_fused_matmul(const Tensor& a, const Tensor& b, const Tensor& bias, bool ta, bool tb,
                       MatmulEpilogue epilogue, const Tensor& y) {
  const DType dt = y.dtype();
  if (dt != DType::Float32 && dt != DType::Float16 && dt != DType::BFloat16) return false;
  if (a.ndim() != 2 || b.ndim() != 2 || bias.ndim() != 1 || y.ndim() != 2) return false;
  if (a.dtype() != dt || b.dtype() != dt || bias.dtype() != dt) return false;
  if (!a.is_contiguous() || !b.is_contiguous() || !bias.is_contiguous()) return false;
  const int64_t M = y.dim(0), N = y.dim(1), K = a.dim(ta ? 0 : 1);
  if (M == 0 || N == 0 || K == 0) return false;
  if (alignment_of(bias.raw_data()) < 16) return false;
  // cuBLASLt's A is our b, its B our a: BGRADA sums our b over the GEMM's k (its length:
  // Y^T's rows, our N), BGRADB our a (Y^T's columns, our M).
  Epilogue epi{CUBLASLT_EPILOGUE_BIAS, bias.raw_data()};
  int64_t len = N;
  switch (epilogue) {
    case MatmulEpilogue::Bias:
      break;
    case MatmulEpilogue::ReluBias:
      epi.kind = CUBLASLT_EPILOGUE_RELU_BIAS;
      break;
    case MatmulEpilogue::GeluBias:
      epi.kind = CUBLASLT_EPILOGUE_GELU_BIAS;
      break;
    case MatmulEpilogue::BiasGradA:
      epi.kind = CUBLASLT_EPILOGUE_BGRADA;
      if (!ta || tb) return false;
      break;
    case MatmulEpilogue::BiasGradB:
      epi.kind = CUBLASLT_EPILOGUE_BGRADB;
      if (!ta || tb) return false;
      len = M;
      break;
  }
  if (bias.dim(0) != len) return false;
  const bool tf32 = op_precision(DeviceType::CUDA).matmul_allow_tf32;
  return lt_matmul(y.device().index, dt, tf32, a.raw_data(), b.raw_data(), y.raw_data(), 1, M, N, K,
                   ta, tb, 0, 0, &epi);
}

void cuda_bias_add(const KernelContext& ctx) {
  const Tensor& x = ctx.in[0];
  const Tensor& y = ctx.out[0];
  if (y.numel() == 0) return;
  const int64_t nd = x.ndim();
  const int64_t cdim = ctx.attrs.get_str("data_format") == "NHWC" ? nd - 1 : 1;
  int64_t inner = 1;
  for (int64_t d = cdim + 1; d < nd; ++d) inner *= x.dim(d);
  launch_bias_add(code(x.dtype()), x.raw_data(), ctx.in[1].raw_data(), y.raw_data(), y.numel(),
                  x.dim(cdim), inner, stream(ctx.device.index));
  MC_CUDA_LAUNCH_CHECK();
}

// CSRMM: linalg_kernels.h's launch_csrmm; the transposed product accumulates into the zeroed
// output. Bad CSR arrays are found on the device and raised later as an IndexError
// (array_index.h), where the CPU kernel raises a ValueError at once.
void cuda_csrmm(const KernelContext& ctx) {
  const Tensor &ptr = ctx.in[0], &col = ctx.in[1], &val = ctx.in[2], &d = ctx.in[3];
  const Tensor& out = ctx.out[0];
  const std::vector<int64_t>& ds = ctx.attrs.get_ints("dense_shape");
  const bool ta = ctx.attrs.get_bool("transpose_a");
  const int64_t m = ds[0], k = ds[1], n = d.dim(1);
  MC_CHECK(ptr.numel() == m + 1 && col.numel() == val.numel() && d.dim(0) == (ta ? m : k), Value,
           "For '", ctx.op.name, "', got indptr of shape ", ptr.shape(), ", indices ", col.shape(),
           ", values ", val.shape(), " and dense ", d.shape(), " for the sparse shape [", m, ", ",
           k, "].");
  const int dev = ctx.device.index;
  cudaStream_t s = stream(dev);
  if (out.numel() == 0) return;
  if (ta || m == 0)
    MC_CUDA_CHECK(
        cudaMemsetAsync(out.raw_data(), 0, static_cast<size_t>(out.numel()) * out.itemsize(), s));
  if (m == 0) return;
  int64_t* err = checked_error_word(dev);
  launch_csrmm(code(out.dtype()), ptr.raw_data(), ptr.dtype() == DType::Int64, col.raw_data(),
               col.dtype() == DType::Int64, val.raw_data(), d.raw_data(), out.raw_data(), m, k, n,
               val.numel(), ta, err, static_cast<int>(ctx.op.id), s);
  MC_CUDA_LAUNCH_CHECK();
}

// COOMM: linalg_kernels.h's launch_coomm into the zeroed output (the transposed product swaps
// the roles of rows and cols). Bad indices are found on the device and raised later as an
// IndexError (array_index.h), where the CPU kernel raises a ValueError at once.
void cuda_coomm(const KernelContext& ctx) {
  const Tensor &row = ctx.in[0], &col = ctx.in[1], &val = ctx.in[2], &d = ctx.in[3];
  const Tensor& out = ctx.out[0];
  const std::vector<int64_t>& ds = ctx.attrs.get_ints("dense_shape");
  const bool ta = ctx.attrs.get_bool("transpose_a");
  const int64_t m = ds[0], k = ds[1], n = d.dim(1);
  MC_CHECK(row.numel() == val.numel() && col.numel() == val.numel() && d.dim(0) == (ta ? m : k),
           Value, "For '", ctx.op.name, "', got rows of shape ", row.shape(), ", cols ",
           col.shape(), ", values ", val.shape(), " and dense ", d.shape(),
           " for the sparse shape [", m, ", ", k, "].");
  const int dev = ctx.device.index;
  cudaStream_t s = stream(dev);
  if (out.numel() == 0) return;
  MC_CUDA_CHECK(
      cudaMemsetAsync(out.raw_data(), 0, static_cast<size_t>(out.numel()) * out.itemsize(), s));
  if (val.numel() == 0) return;
  int64_t* err = checked_error_word(dev);
  const Tensor& dst = ta ? col : row;
  const Tensor& src = ta ? row : col;
  launch_coomm(code(out.dtype()), dst.raw_data(), dst.dtype() == DType::Int64, src.raw_data(),
               src.dtype() == DType::Int64, val.raw_data(), d.raw_data(), out.raw_data(),
               ta ? k : m, ta ? m : k, n, val.numel(), err, static_cast<int>(ctx.op.id), s);
  MC_CUDA_LAUNCH_CHECK();
}

}  // namespace mycel::cuda
