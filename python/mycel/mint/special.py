"""``mindspore.mint.special``: PyTorch's ``torch.special`` names over mycel's ops."""
from mycel import ops as _ops

__all__ = ["erfc", "expm1", "exp2", "log1p", "log_softmax", "round", "sinc", "logit"]

erfc = _ops.erfc
expm1 = _ops.expm1
exp2 = _ops.exp2
log1p = _ops.log1p
sinc = _ops.sinc
round = _ops.round  # noqa: A001


def log_softmax(input, dim, *, dtype=None):  # noqa: A002
    """log(softmax) along dim."""
    if dtype is not None:
        input = _ops.cast(input, dtype)
    return _ops.log_softmax(input, dim)


def logit(input, eps=None):  # noqa: A002
    """log(p / (1 - p)), p = input clamped to [eps, 1 - eps] when eps is given."""
    p = input if eps is None else _ops.clamp(input, eps, 1.0 - eps)
    return _ops.log(_ops.div(p, _ops.sub(1.0, p)))
