#include "ops/op_table.h"
#include "runtime/eager.h"
namespace mycel {
[[gnu::weak]] void infer_arg_reduce(InferContext& c) { MC_THROW(Runtime, "pending: infer_arg_reduce for ", c.op.name); }
[[gnu::weak]] void infer_batch_norm(InferContext& c) { MC_THROW(Runtime, "pending: infer_batch_norm for ", c.op.name); }
[[gnu::weak]] void infer_batch_norm_grad(InferContext& c) { MC_THROW(Runtime, "pending: infer_batch_norm_grad for ", c.op.name); }
[[gnu::weak]] void infer_bias_add(InferContext& c) { MC_THROW(Runtime, "pending: infer_bias_add for ", c.op.name); }
[[gnu::weak]] void infer_binary(InferContext& c) { MC_THROW(Runtime, "pending: infer_binary for ", c.op.name); }
[[gnu::weak]] void infer_broadcast_to(InferContext& c) { MC_THROW(Runtime, "pending: infer_broadcast_to for ", c.op.name); }
[[gnu::weak]] void infer_cast(InferContext& c) { MC_THROW(Runtime, "pending: infer_cast for ", c.op.name); }
[[gnu::weak]] void infer_compare(InferContext& c) { MC_THROW(Runtime, "pending: infer_compare for ", c.op.name); }
[[gnu::weak]] void infer_concat(InferContext& c) { MC_THROW(Runtime, "pending: infer_concat for ", c.op.name); }
[[gnu::weak]] void infer_conv2d(InferContext& c) { MC_THROW(Runtime, "pending: infer_conv2d for ", c.op.name); }
[[gnu::weak]] void infer_conv2d_backprop_filter(InferContext& c) { MC_THROW(Runtime, "pending: infer_conv2d_backprop_filter for ", c.op.name); }
[[gnu::weak]] void infer_conv2d_backprop_input(InferContext& c) { MC_THROW(Runtime, "pending: infer_conv2d_backprop_input for ", c.op.name); }
[[gnu::weak]] void infer_dropout(InferContext& c) { MC_THROW(Runtime, "pending: infer_dropout for ", c.op.name); }
[[gnu::weak]] void infer_expand_dims(InferContext& c) { MC_THROW(Runtime, "pending: infer_expand_dims for ", c.op.name); }
[[gnu::weak]] void infer_fill(InferContext& c) { MC_THROW(Runtime, "pending: infer_fill for ", c.op.name); }
[[gnu::weak]] void infer_flatten(InferContext& c) { MC_THROW(Runtime, "pending: infer_flatten for ", c.op.name); }
[[gnu::weak]] void infer_gather(InferContext& c) { MC_THROW(Runtime, "pending: infer_gather for ", c.op.name); }
[[gnu::weak]] void infer_gather_d(InferContext& c) { MC_THROW(Runtime, "pending: infer_gather_d for ", c.op.name); }
[[gnu::weak]] void infer_gather_d_grad(InferContext& c) { MC_THROW(Runtime, "pending: infer_gather_d_grad for ", c.op.name); }
[[gnu::weak]] void infer_layer_norm(InferContext& c) { MC_THROW(Runtime, "pending: infer_layer_norm for ", c.op.name); }
[[gnu::weak]] void infer_layer_norm_grad(InferContext& c) { MC_THROW(Runtime, "pending: infer_layer_norm_grad for ", c.op.name); }
[[gnu::weak]] void infer_like(InferContext& c) { MC_THROW(Runtime, "pending: infer_like for ", c.op.name); }
[[gnu::weak]] void infer_logical(InferContext& c) { MC_THROW(Runtime, "pending: infer_logical for ", c.op.name); }
[[gnu::weak]] void infer_matmul(InferContext& c) { MC_THROW(Runtime, "pending: infer_matmul for ", c.op.name); }
[[gnu::weak]] void infer_one_hot(InferContext& c) { MC_THROW(Runtime, "pending: infer_one_hot for ", c.op.name); }
[[gnu::weak]] void infer_pad(InferContext& c) { MC_THROW(Runtime, "pending: infer_pad for ", c.op.name); }
[[gnu::weak]] void infer_pool(InferContext& c) { MC_THROW(Runtime, "pending: infer_pool for ", c.op.name); }
[[gnu::weak]] void infer_pool_grad(InferContext& c) { MC_THROW(Runtime, "pending: infer_pool_grad for ", c.op.name); }
[[gnu::weak]] void infer_random(InferContext& c) { MC_THROW(Runtime, "pending: infer_random for ", c.op.name); }
[[gnu::weak]] void infer_range(InferContext& c) { MC_THROW(Runtime, "pending: infer_range for ", c.op.name); }
[[gnu::weak]] void infer_reduce(InferContext& c) { MC_THROW(Runtime, "pending: infer_reduce for ", c.op.name); }
[[gnu::weak]] void infer_reshape_op(InferContext& c) { MC_THROW(Runtime, "pending: infer_reshape_op for ", c.op.name); }
[[gnu::weak]] void infer_scatter_nd(InferContext& c) { MC_THROW(Runtime, "pending: infer_scatter_nd for ", c.op.name); }
[[gnu::weak]] void infer_select(InferContext& c) { MC_THROW(Runtime, "pending: infer_select for ", c.op.name); }
[[gnu::weak]] void infer_softmax(InferContext& c) { MC_THROW(Runtime, "pending: infer_softmax for ", c.op.name); }
[[gnu::weak]] void infer_softmax_ce(InferContext& c) { MC_THROW(Runtime, "pending: infer_softmax_ce for ", c.op.name); }
[[gnu::weak]] void infer_sparse_softmax_ce(InferContext& c) { MC_THROW(Runtime, "pending: infer_sparse_softmax_ce for ", c.op.name); }
[[gnu::weak]] void infer_split(InferContext& c) { MC_THROW(Runtime, "pending: infer_split for ", c.op.name); }
[[gnu::weak]] void infer_squeeze(InferContext& c) { MC_THROW(Runtime, "pending: infer_squeeze for ", c.op.name); }
[[gnu::weak]] void infer_stack(InferContext& c) { MC_THROW(Runtime, "pending: infer_stack for ", c.op.name); }
[[gnu::weak]] void infer_strided_slice(InferContext& c) { MC_THROW(Runtime, "pending: infer_strided_slice for ", c.op.name); }
[[gnu::weak]] void infer_strided_slice_grad(InferContext& c) { MC_THROW(Runtime, "pending: infer_strided_slice_grad for ", c.op.name); }
[[gnu::weak]] void infer_tensor_scatter_update(InferContext& c) { MC_THROW(Runtime, "pending: infer_tensor_scatter_update for ", c.op.name); }
[[gnu::weak]] void infer_tile(InferContext& c) { MC_THROW(Runtime, "pending: infer_tile for ", c.op.name); }
[[gnu::weak]] void infer_transpose(InferContext& c) { MC_THROW(Runtime, "pending: infer_transpose for ", c.op.name); }
[[gnu::weak]] void infer_unary(InferContext& c) { MC_THROW(Runtime, "pending: infer_unary for ", c.op.name); }
[[gnu::weak]] void infer_unsorted_segment_sum(InferContext& c) { MC_THROW(Runtime, "pending: infer_unsorted_segment_sum for ", c.op.name); }
[[gnu::weak]] void cpu_arg_reduce(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_arg_reduce for ", c.op.name); }
[[gnu::weak]] void cpu_avg_pool(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_avg_pool for ", c.op.name); }
[[gnu::weak]] void cpu_avg_pool_grad(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_avg_pool_grad for ", c.op.name); }
[[gnu::weak]] void cpu_batch_norm(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_batch_norm for ", c.op.name); }
[[gnu::weak]] void cpu_batch_norm_grad(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_batch_norm_grad for ", c.op.name); }
[[gnu::weak]] void cpu_bias_add(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_bias_add for ", c.op.name); }
[[gnu::weak]] void cpu_binary(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_binary for ", c.op.name); }
[[gnu::weak]] void cpu_cast(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_cast for ", c.op.name); }
[[gnu::weak]] void cpu_concat(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_concat for ", c.op.name); }
[[gnu::weak]] void cpu_conv2d(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_conv2d for ", c.op.name); }
[[gnu::weak]] void cpu_conv2d_backprop_filter(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_conv2d_backprop_filter for ", c.op.name); }
[[gnu::weak]] void cpu_conv2d_backprop_input(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_conv2d_backprop_input for ", c.op.name); }
[[gnu::weak]] void cpu_copy_view(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_copy_view for ", c.op.name); }
[[gnu::weak]] void cpu_dropout(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_dropout for ", c.op.name); }
[[gnu::weak]] void cpu_fill(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_fill for ", c.op.name); }
[[gnu::weak]] void cpu_gather(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_gather for ", c.op.name); }
[[gnu::weak]] void cpu_gather_d(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_gather_d for ", c.op.name); }
[[gnu::weak]] void cpu_gather_d_grad(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_gather_d_grad for ", c.op.name); }
[[gnu::weak]] void cpu_layer_norm(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_layer_norm for ", c.op.name); }
[[gnu::weak]] void cpu_layer_norm_grad(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_layer_norm_grad for ", c.op.name); }
[[gnu::weak]] void cpu_log_softmax(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_log_softmax for ", c.op.name); }
[[gnu::weak]] void cpu_matmul(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_matmul for ", c.op.name); }
[[gnu::weak]] void cpu_max_pool(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_max_pool for ", c.op.name); }
[[gnu::weak]] void cpu_max_pool_grad(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_max_pool_grad for ", c.op.name); }
[[gnu::weak]] void cpu_one_hot(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_one_hot for ", c.op.name); }
[[gnu::weak]] void cpu_pad(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_pad for ", c.op.name); }
[[gnu::weak]] void cpu_range(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_range for ", c.op.name); }
[[gnu::weak]] void cpu_reduce(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_reduce for ", c.op.name); }
[[gnu::weak]] void cpu_scatter_nd(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_scatter_nd for ", c.op.name); }
[[gnu::weak]] void cpu_select(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_select for ", c.op.name); }
[[gnu::weak]] void cpu_softmax(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_softmax for ", c.op.name); }
[[gnu::weak]] void cpu_softmax_ce(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_softmax_ce for ", c.op.name); }
[[gnu::weak]] void cpu_sparse_softmax_ce(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_sparse_softmax_ce for ", c.op.name); }
[[gnu::weak]] void cpu_split(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_split for ", c.op.name); }
[[gnu::weak]] void cpu_stack(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_stack for ", c.op.name); }
[[gnu::weak]] void cpu_standard_normal(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_standard_normal for ", c.op.name); }
[[gnu::weak]] void cpu_strided_slice(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_strided_slice for ", c.op.name); }
[[gnu::weak]] void cpu_strided_slice_grad(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_strided_slice_grad for ", c.op.name); }
[[gnu::weak]] void cpu_tensor_scatter_update(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_tensor_scatter_update for ", c.op.name); }
[[gnu::weak]] void cpu_tile(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_tile for ", c.op.name); }
[[gnu::weak]] void cpu_unary(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_unary for ", c.op.name); }
[[gnu::weak]] void cpu_uniform_real(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_uniform_real for ", c.op.name); }
[[gnu::weak]] void cpu_unsorted_segment_sum(const KernelContext& c) { MC_THROW(Runtime, "pending: cpu_unsorted_segment_sum for ", c.op.name); }
[[gnu::weak]] void ref_arg_reduce(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_arg_reduce for ", c.op.name); }
[[gnu::weak]] void ref_avg_pool(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_avg_pool for ", c.op.name); }
[[gnu::weak]] void ref_avg_pool_grad(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_avg_pool_grad for ", c.op.name); }
[[gnu::weak]] void ref_batch_norm(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_batch_norm for ", c.op.name); }
[[gnu::weak]] void ref_batch_norm_grad(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_batch_norm_grad for ", c.op.name); }
[[gnu::weak]] void ref_bias_add(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_bias_add for ", c.op.name); }
[[gnu::weak]] void ref_binary(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_binary for ", c.op.name); }
[[gnu::weak]] void ref_cast(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_cast for ", c.op.name); }
[[gnu::weak]] void ref_concat(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_concat for ", c.op.name); }
[[gnu::weak]] void ref_conv2d(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_conv2d for ", c.op.name); }
[[gnu::weak]] void ref_conv2d_backprop_filter(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_conv2d_backprop_filter for ", c.op.name); }
[[gnu::weak]] void ref_conv2d_backprop_input(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_conv2d_backprop_input for ", c.op.name); }
[[gnu::weak]] void ref_copy_view(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_copy_view for ", c.op.name); }
[[gnu::weak]] void ref_dropout(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_dropout for ", c.op.name); }
[[gnu::weak]] void ref_fill(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_fill for ", c.op.name); }
[[gnu::weak]] void ref_gather(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_gather for ", c.op.name); }
[[gnu::weak]] void ref_gather_d(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_gather_d for ", c.op.name); }
[[gnu::weak]] void ref_gather_d_grad(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_gather_d_grad for ", c.op.name); }
[[gnu::weak]] void ref_layer_norm(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_layer_norm for ", c.op.name); }
[[gnu::weak]] void ref_layer_norm_grad(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_layer_norm_grad for ", c.op.name); }
[[gnu::weak]] void ref_log_softmax(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_log_softmax for ", c.op.name); }
[[gnu::weak]] void ref_matmul(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_matmul for ", c.op.name); }
[[gnu::weak]] void ref_max_pool(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_max_pool for ", c.op.name); }
[[gnu::weak]] void ref_max_pool_grad(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_max_pool_grad for ", c.op.name); }
[[gnu::weak]] void ref_one_hot(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_one_hot for ", c.op.name); }
[[gnu::weak]] void ref_pad(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_pad for ", c.op.name); }
[[gnu::weak]] void ref_range(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_range for ", c.op.name); }
[[gnu::weak]] void ref_reduce(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_reduce for ", c.op.name); }
[[gnu::weak]] void ref_scatter_nd(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_scatter_nd for ", c.op.name); }
[[gnu::weak]] void ref_select(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_select for ", c.op.name); }
[[gnu::weak]] void ref_softmax(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_softmax for ", c.op.name); }
[[gnu::weak]] void ref_softmax_ce(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_softmax_ce for ", c.op.name); }
[[gnu::weak]] void ref_sparse_softmax_ce(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_sparse_softmax_ce for ", c.op.name); }
[[gnu::weak]] void ref_split(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_split for ", c.op.name); }
[[gnu::weak]] void ref_stack(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_stack for ", c.op.name); }
[[gnu::weak]] void ref_standard_normal(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_standard_normal for ", c.op.name); }
[[gnu::weak]] void ref_strided_slice(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_strided_slice for ", c.op.name); }
[[gnu::weak]] void ref_strided_slice_grad(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_strided_slice_grad for ", c.op.name); }
[[gnu::weak]] void ref_tensor_scatter_update(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_tensor_scatter_update for ", c.op.name); }
[[gnu::weak]] void ref_tile(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_tile for ", c.op.name); }
[[gnu::weak]] void ref_unary(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_unary for ", c.op.name); }
[[gnu::weak]] void ref_uniform_real(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_uniform_real for ", c.op.name); }
[[gnu::weak]] void ref_unsorted_segment_sum(const KernelContext& c) { MC_THROW(Runtime, "pending: ref_unsorted_segment_sum for ", c.op.name); }
[[gnu::weak]] Tensor view_op(const OpDef&, const Tensor&, const TensorMeta&, const Attrs&) { return {}; }
}  // namespace mycel
