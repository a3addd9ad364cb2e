"""mindspore.scipy.ops' primitives mycel has: Eig(compute_v=True)(a) -> (w, v) (v empty
without compute_v), the eigenvalues and right eigenvectors of square matrices [..., N, N]
as complex tensors (mycel.ops.eig); LinearSumAssignment()(cost_matrix, dimension_limit,
maximize), scipy.optimize.linear_sum_assignment's primitive."""
from mycel import _mycel as _C
from mycel import ops as _ops
from mycel.scipy.optimize.linear_sum_assignment import linear_sum_assignment as _lsa


class Eig:
    """Eig(compute_v=True)(a): (w, v) with a v = v diag(w) (complex); v is an empty tensor
    without compute_v."""

    def __init__(self, compute_v=True):
        if not isinstance(compute_v, bool):
            raise TypeError(f"For 'Eig', compute_v must be a bool, but got {compute_v!r}.")
        self.compute_v = compute_v

    def __call__(self, a):
        if not isinstance(a, _C.Tensor):
            raise TypeError(f"For 'Eig', the input must be a Tensor, but got "
                            f"{type(a).__name__}.")
        if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
            raise ValueError(f"For 'Eig', the input must be square matrices [..., N, N], but "
                             f"got shape {tuple(a.shape)}.")
        w, v = _ops.eig(a)
        if self.compute_v:
            return w, v
        return w, _ops.zeros((0,), v.dtype)  # MindSpore's second output is empty then


class LinearSumAssignment:
    """LinearSumAssignment()(cost_matrix, dimension_limit, maximize): (row_ind, col_ind) of
    the optimal assignment over the first dimension_limit columns, -1 padded
    (mycel.scipy.optimize.linear_sum_assignment)."""

    def __call__(self, cost_matrix, dimension_limit, maximize):
        return _lsa(cost_matrix, maximize, dimension_limit)
