"""Primitive classes of MindSpore 2.x that its CPU op tests use, composed from op-table
primitives (no kernel of their own; the functions in mycel.ops.function do the work, so both
modes and gradients come from the ops they are built of):

- PSROIPooling, PSROIPoolingGrad (ops/function/roi_func.py);
- the sparse optimizer updates FusedSparseAdam, FusedSparseLazyAdam, FusedSparseFtrl,
  FusedSparseProximalAdagrad, SparseApplyAdagrad, SparseApplyAdagradV2, SparseApplyRMSProp,
  SparseApplyFtrl (ops/function/sparse_optim_func.py).

Arguments are validated as MindSpore's classes do: a wrong type is a TypeError, a value out of
range a ValueError, naming the op and the argument.
"""
import numbers

from mycel import _mycel as _C
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.function import roi_func as _roi


def _check_int(op, name, v, positive=True):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"For '{op}', '{name}' must be an int, but got {type(v).__name__}.")
    if positive and v <= 0:
        raise ValueError(f"For '{op}', '{name}' must be positive, but got {v}.")
    return int(v)


def _check_float(op, name, v, positive=False, non_negative=False):
    if isinstance(v, bool) or not isinstance(v, (float, numbers.Integral)):
        raise TypeError(f"For '{op}', '{name}' must be a float, but got {type(v).__name__}.")
    if positive and not v > 0:
        raise ValueError(f"For '{op}', '{name}' must be positive, but got {v}.")
    if non_negative and not v >= 0:
        raise ValueError(f"For '{op}', '{name}' must be non-negative, but got {v}.")
    return float(v)


def _check_bool(op, name, v):
    if not isinstance(v, bool):
        raise TypeError(f"For '{op}', '{name}' must be a bool, but got {type(v).__name__}.")
    return v


def _check_tensor(op, name, x, dtypes):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    if x.dtype not in dtypes:
        raise TypeError(f"For '{op}', '{name}' must have dtype in "
                        f"{[str(d) for d in dtypes]}, but got {x.dtype}.")


def _check_rank(op, name, x, rank):
    if len(x.shape) != rank:
        raise ValueError(f"For '{op}', the rank of '{name}' must be {rank}, but got shape "
                         f"{tuple(x.shape)}.")


class _PSROIBase(_Composed):
    def _check_common(self, spatial_scale, group_size, output_dim):
        op = type(self).__name__
        self.spatial_scale = _check_float(op, "spatial_scale", spatial_scale, positive=True)
        self.group_size = _check_int(op, "group_size", group_size)
        self.output_dim = _check_int(op, "output_dim", output_dim)

    def _check_rois(self, rois, dtype):
        op = type(self).__name__
        _check_rank(op, "rois", rois, 3)
        if rois.dtype != dtype:
            raise TypeError(f"For '{op}', 'rois' must have the dtype of the first input "
                            f"({dtype}), but got {rois.dtype}.")
        if rois.shape[1] != 5:
            raise RuntimeError(f"For '{op}', rois.shape[1] must be 5, but got shape "
                               f"{tuple(rois.shape)}.")


class PSROIPooling(_PSROIBase):
    """PSROIPooling(spatial_scale, group_size, output_dim)(features, rois): position-sensitive
    ROI average pooling. features [N, output_dim * group_size^2, H, W] (float16/32/64), rois
    [batch, 5, rois_num] of (batch_index, x1, y1, x2, y2) -> [batch * rois_num, output_dim,
    group_size, group_size] (ops/function/roi_func.py)."""

    def __init__(self, spatial_scale, group_size, output_dim):
        self._check_common(spatial_scale, group_size, output_dim)
        super().__init__(spatial_scale=self.spatial_scale, group_size=self.group_size,
                         output_dim=self.output_dim)

    def __call__(self, features, rois):
        _check_tensor("PSROIPooling", "features", features, (_C.float16, _C.float32,
                                                             _C.float64))
        _check_tensor("PSROIPooling", "rois", rois, (_C.float16, _C.float32, _C.float64))
        _check_rank("PSROIPooling", "features", features, 4)
        self._check_rois(rois, features.dtype)
        g = self.group_size
        if features.shape[1] != self.output_dim * g * g:
            raise RuntimeError(f"For 'PSROIPooling', features.shape[1] ({features.shape[1]}) "
                               f"must be output_dim * group_size^2 = "
                               f"{self.output_dim * g * g}.")
        return _roi.ps_roi_pooling(features, rois, self.spatial_scale, g, self.output_dim)


class PSROIPoolingGrad(_PSROIBase):
    """PSROIPoolingGrad(input_size, spatial_scale, group_size, output_dim)(dy, rois): the
    backward of PSROIPooling. dy [batch * rois_num, output_dim, group_size, group_size]
    (float16/32), rois [batch, 5, rois_num] -> [batch, output_dim * group_size^2,
    input_size[0], input_size[1]]; input_size is a positive int (square) or a tuple of two."""

    def __init__(self, input_size, spatial_scale, group_size, output_dim):
        op = "PSROIPoolingGrad"
        if isinstance(input_size, tuple):
            if len(input_size) != 2:
                raise ValueError(f"For '{op}', 'input_size' must have 2 elements, but got "
                                 f"{input_size}.")
            sizes = tuple(_check_int(op, "input_size", v) for v in input_size)
        elif isinstance(input_size, bool) or not isinstance(input_size, numbers.Integral):
            raise TypeError(f"For '{op}', 'input_size' must be an int or a tuple, but got "
                            f"{type(input_size).__name__}.")
        else:
            sizes = (_check_int(op, "input_size", input_size),) * 2
        self.input_size = sizes
        self._check_common(spatial_scale, group_size, output_dim)
        super().__init__(input_size=sizes, spatial_scale=self.spatial_scale,
                         group_size=self.group_size, output_dim=self.output_dim)

    def __call__(self, *args):
        op = "PSROIPoolingGrad"
        if len(args) != 2:
            raise ValueError(f"For '{op}', the number of inputs must be 2, but got "
                             f"{len(args)}.")
        dy, rois = args
        _check_tensor(op, "dy", dy, (_C.float16, _C.float32))
        _check_tensor(op, "rois", rois, (_C.float16, _C.float32))
        _check_rank(op, "dy", dy, 4)
        self._check_rois(rois, dy.dtype)
        g = self.group_size
        want = (rois.shape[0] * rois.shape[2], self.output_dim, g, g)
        if tuple(dy.shape) != want:
            raise RuntimeError(f"For '{op}', dy's shape must be (rois.shape[0] * "
                               f"rois.shape[2], output_dim, group_size, group_size) = {want}, "
                               f"but got {tuple(dy.shape)}.")
        return _roi.ps_roi_pooling_grad(dy, rois, self.input_size, self.spatial_scale, g,
                                        self.output_dim)


__all__ = ["PSROIPooling", "PSROIPoolingGrad"]
