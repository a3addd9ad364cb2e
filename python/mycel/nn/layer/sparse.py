"""MindSpore's sparse cells: ``nn.SparseToDense`` (a COOTensor as its dense Tensor) and
``nn.SparseTensorDenseMatmul`` (the primitive P.SparseTensorDenseMatmul as a Cell)."""
from mycel import _mycel as _C
from mycel.common.sparse_tensor import COOTensor
from mycel.nn.cell import Cell
from mycel.ops.function._util import prim
from mycel.ops.operations.breadth_sparse_ops import SparseTensorDenseMatmul as _SpMM

__all__ = ["SparseToDense", "SparseTensorDenseMatmul"]


class SparseToDense(Cell):
    """SparseToDense()(sparse_tensor): the dense Tensor of a COOTensor (values at the same
    index add up, as COOTensor.to_dense)."""

    def construct(self, sparse_tensor):
        if not isinstance(sparse_tensor, COOTensor):
            raise TypeError(f"For 'SparseToDense', the input must be a COOTensor, but got "
                            f"{type(sparse_tensor).__name__}.")
        idx = prim("Cast")(sparse_tensor.indices, _C.int64)
        return prim("ScatterNd")(idx, sparse_tensor.values, tuple(sparse_tensor.shape))


class SparseTensorDenseMatmul(Cell):
    """SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)(indices, values,
    sparse_shape, dense): op(A) op(dense) with A the sparse matrix of values at indices
    (P.SparseTensorDenseMatmul; both modes)."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__()
        self.adjoint_st, self.adjoint_dt = adjoint_st, adjoint_dt
        self.matmul = _SpMM(adjoint_st, adjoint_dt)

    def construct(self, indices, values, sparse_shape, dense):
        return self.matmul(indices, values, sparse_shape, dense)
