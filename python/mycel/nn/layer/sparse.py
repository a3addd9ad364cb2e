"""MindSpore's sparse cells ``nn.SparseToDense`` (a COOTensor's dense form) and
``nn.SparseTensorDenseMatmul`` (the ops of the same names, ops/function/sparse_func.py)."""
from mycel.nn.cell import Cell
from mycel.ops.operations.sparse_ops import SparseTensorDenseMatmul as _STDM
from mycel.ops.function import sparse_func as _sf

__all__ = ["SparseToDense", "SparseTensorDenseMatmul"]


class SparseToDense(Cell):
    """SparseToDense()(sparse_tensor): the dense Tensor of a COOTensor."""

    def construct(self, sparse_tensor):
        return _sf.coo_to_dense(sparse_tensor)


class SparseTensorDenseMatmul(Cell):
    """SparseTensorDenseMatmul(adjoint_st=False, adjoint_dt=False)(indices, values,
    sparse_shape, dense): op(A) @ op(dense) of the 2-D sparse A (ops.SparseTensorDenseMatmul)."""

    def __init__(self, adjoint_st=False, adjoint_dt=False):
        super().__init__()
        self.sparse_dense_matmul = _STDM(adjoint_st=adjoint_st, adjoint_dt=adjoint_dt)

    def construct(self, indices, values, sparse_shape, dense):
        return self.sparse_dense_matmul(indices, values, sparse_shape, dense)
