"""MindSpore's generated primitives (``mindspore.ops.auto_generate.gen_ops_prim``) that mycel
provides, composed from its ops: the in-place ones write through the in-place Tensor methods
(common/_inplace.py: the Assign primitive, so both modes and views see the write) and return
their first input, as MindSpore's do. View primitives (select_ext_view_op, ...) are not
provided: mycel's graph mode has no views that alias their base."""
from mycel.common import _inplace
from mycel.ops.function import array_func as _a
from mycel.ops.operations.composed_ops import _Composed

__all__ = ["InplaceAddExt", "inplace_add_ext_op", "InplaceSubExt", "inplace_sub_ext_op",
           "InplaceCopy", "inplace_copy_op", "Embedding", "embedding_op"]


class InplaceAddExt(_Composed):
    """InplaceAddExt()(input, other, alpha=1): input += alpha * other, in place; returns input
    (MindSpore's Tensor.add_)."""

    def __call__(self, input, other, alpha=1):  # noqa: A002 (MindSpore's argument name)
        return _inplace.add_(input, other, alpha=alpha)


class InplaceSubExt(_Composed):
    """InplaceSubExt()(input, other, alpha=1): input -= alpha * other, in place; returns input."""

    def __call__(self, input, other, alpha=1):  # noqa: A002
        return _inplace.sub_(input, other, alpha=alpha)


class InplaceCopy(_Composed):
    """InplaceCopy()(variable, value): value (cast to variable's dtype, broadcast to its
    shape) written into variable; returns variable (MindSpore's Tensor.copy_)."""

    def __call__(self, variable, value, non_blocking=False):
        return _inplace.copy_(variable, value)


class Embedding(_Composed):
    """Embedding()(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
    scale_grad_by_freq=False): the rows of weight at the indices input (shape input.shape +
    weight.shape[1:]). max_norm (rows renormalised in place) is not supported."""

    def __call__(self, input, weight, padding_idx=None, max_norm=None,  # noqa: A002
                 norm_type=2.0, scale_grad_by_freq=False):
        if max_norm is not None:
            raise NotImplementedError("For 'Embedding', max_norm is not supported.")
        return _a.gather(weight, input, 0)


inplace_add_ext_op = InplaceAddExt()
inplace_sub_ext_op = InplaceSubExt()
inplace_copy_op = InplaceCopy()
embedding_op = Embedding()
