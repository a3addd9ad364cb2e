"""mindspore.scipy.ops' primitives mycel has: Eig(compute_v=True)(a) -> (w, v) (w alone
without compute_v), the eigenvalues and right eigenvectors of square matrices [..., N, N]
as complex tensors (mycel.ops.eig)."""
from mycel import _mycel as _C
from mycel import ops as _ops


class Eig:
    """Eig(compute_v=True)(a): (w, v) with a v = v diag(w) (complex), or w alone."""

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
        return (w, v) if self.compute_v else w
