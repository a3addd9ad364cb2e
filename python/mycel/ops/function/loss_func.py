"""More loss functions (MindSpore 2.x ``mindspore.ops`` names and arguments), composed of
elementwise ops and reductions so that both modes and autodiff come from the ops: smooth L1,
Huber, KL divergence, binary cross entropy, margin ranking, cosine embedding, soft margin,
multi-label soft margin, multi-class margin, triplet margin, Poisson and Gaussian negative
log-likelihood, and CTC (for nn.CTCLoss).

reduction: 'mean' (of all elements), 'sum' or 'none' (kl_div also 'batchmean': the sum over
the batch size). The nn loss cells (``nn/loss.py``) call these functions.
"""
import math

from mycel import _mycel as _C
from mycel.ops.function import math_func as _m, array_func as _a
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.function.nn_func import _reduce
from mycel.ops.primitive import constexpr

_softplus = prim("Softplus")


def _log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x), finite for large |x|."""
    return _m.neg(_softplus(_m.neg(x)))


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):  # noqa: A002
    """0.5 * d^2 / beta where |d| < beta, else |d| - 0.5 * beta (d = input - target)."""
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta <= 0:
        raise ValueError(f"For 'smooth_l1_loss', beta must be a positive float, but got "
                         f"{beta!r}.")
    d = _m.abs(_m.sub(input, target))
    loss = _m.select(_m.less(d, beta), _m.mul(_m.square(d), 0.5 / beta),
                     _m.sub(d, 0.5 * beta))
    return _reduce(loss, reduction, "smooth_l1_loss")


def huber_loss(input, target, reduction="mean", delta=1.0):  # noqa: A002
    """0.5 * d^2 where |d| < delta, else delta * (|d| - 0.5 * delta) (d = input - target)."""
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or delta <= 0:
        raise ValueError(f"For 'huber_loss', delta must be a positive float, but got "
                         f"{delta!r}.")
    d = _m.abs(_m.sub(input, target))
    loss = _m.select(_m.less(d, delta), _m.mul(_m.square(d), 0.5),
                     _m.mul(_m.sub(d, 0.5 * delta), delta))
    return _reduce(loss, reduction, "huber_loss")


def kl_div(logits, labels, reduction="mean", log_target=False):
    """labels * (log(labels) - logits), logits being log-probabilities; 0 where labels <= 0
    (as MindSpore's KLDivLoss: a label that is not a probability contributes nothing). With
    log_target the labels are log-probabilities too: exp(labels) * (labels - logits).
    reduction 'batchmean' divides the sum by the batch size (the first dimension)."""
    x, y = as_tensor(logits), as_tensor(labels)
    if log_target:
        loss = _m.mul(_m.exp(y), _m.sub(y, x))
    else:
        positive = _m.greater(y, 0)
        safe_y = _m.select(positive, y, _a.ones_like(y))
        loss = _m.select(positive, _m.mul(y, _m.sub(_m.log(safe_y), x)), _a.zeros_like(x))
    if reduction == "batchmean":
        return _m.div(_m.sum(loss), loss.shape[0] if loss.ndim else 1)
    return _reduce(loss, reduction, "kl_div")


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """-(labels * log(logits) + (1 - labels) * log(1 - logits)), logits being probabilities;
    the logs are clamped at -100 (so 0 and 1 give finite losses); optional element weights."""
    x, y = as_tensor(logits), as_tensor(labels)
    log_x = _m.maximum(_m.log(x), -100.0)
    log_1mx = _m.maximum(_m.log(_m.sub(1.0, x)), -100.0)
    loss = _m.neg(_m.add(_m.mul(y, log_x), _m.mul(_m.sub(1.0, y), log_1mx)))
    if weight is not None:
        loss = _m.mul(loss, weight)
    return _reduce(loss, reduction, "binary_cross_entropy")


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin), target holding 1 or -1."""
    loss = prim("ReLU")(_m.add(_m.mul(_m.neg(target), _m.sub(input1, input2)), margin))
    return _reduce(loss, reduction, "margin_ranking_loss")


@constexpr
def _check_pair_rows(name, s1, s2, st):
    if tuple(s1) != tuple(s2) or len(s1) < 1 or tuple(st) != tuple(s1[:1]):
        raise ValueError(f"For '{name}', the inputs must have the same shape [N, D] and the "
                         f"target shape [N], but got {tuple(s1)}, {tuple(s2)} and "
                         f"{tuple(st)}.")


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1; the
    cosine over dimension 1 (eps 1e-12 under the square roots of the norms, as PyTorch)."""
    x1, x2, y = as_tensor(input1), as_tensor(input2), as_tensor(target)
    _check_pair_rows("cosine_embedding_loss", x1.shape, x2.shape, y.shape)
    eps = 1e-12
    dot = _m.sum(_m.mul(x1, x2), 1)
    n1 = _m.add(_m.sum(_m.square(x1), 1), eps)
    n2 = _m.add(_m.sum(_m.square(x2), 1), eps)
    cos = _m.div(dot, _m.sqrt(_m.mul(n1, n2)))
    zeros = _a.zeros_like(cos)
    pos = _m.select(_m.equal(y, 1), _m.sub(1.0, cos), zeros)
    neg = _m.select(_m.equal(y, -1), prim("ReLU")(_m.sub(cos, margin)), zeros)
    return _reduce(_m.add(pos, neg), reduction, "cosine_embedding_loss")


def soft_margin_loss(input, target, reduction="mean"):  # noqa: A002
    """log(1 + exp(-target * input)), target holding 1 or -1."""
    loss = _softplus(_m.neg(_m.mul(target, input)))
    return _reduce(loss, reduction, "soft_margin_loss")


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):  # noqa: A002
    """Per sample, the mean over the C classes of -(y * log(sigmoid(x)) + (1 - y) *
    log(sigmoid(-x))) (times weight [C]); input and target [N, C]."""
    x, y = as_tensor(input), as_tensor(target)
    loss = _m.neg(_m.add(_m.mul(y, _log_sigmoid(x)),
                         _m.mul(_m.sub(1.0, y), _log_sigmoid(_m.neg(x)))))
    if weight is not None:
        loss = _m.mul(loss, weight)
    return _reduce(_m.mean(loss, -1), reduction, "multilabel_soft_margin_loss")


def _pairwise_distance(a, b, p, eps):
    """||a - b + eps||_p over the last dimension."""
    d = _m.add(_m.sub(a, b), eps)
    if p == 2:
        return _m.sqrt(_m.sum(_m.square(d), -1))
    if p == 1:
        return _m.sum(_m.abs(d), -1)
    return _m.pow(_m.sum(_m.pow(_m.abs(d), p), -1), 1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06,  # noqa
                        swap=False, reduction="mean"):
    """max(d(anchor, positive) - d(anchor, negative) + margin, 0) with d the p-norm distance
    over the last dimension; swap uses min(d(anchor, negative), d(positive, negative))."""
    if isinstance(p, bool) or not isinstance(p, int) or p <= 0:
        raise ValueError(f"For 'triplet_margin_loss', p must be a positive int, but got {p!r}.")
    d_pos = _pairwise_distance(anchor, positive, p, eps)
    d_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _m.minimum(d_neg, _pairwise_distance(positive, negative, p, eps))
    loss = prim("ReLU")(_m.add(_m.sub(d_pos, d_neg), margin))
    return _reduce(loss, reduction, "triplet_margin_loss")


@constexpr
def _check_multi_margin(x_shape, y_shape, y_dtype, p):
    if p not in (1, 2) or isinstance(p, bool):
        raise ValueError(f"For 'multi_margin_loss', p must be 1 or 2, but got {p!r}.")
    if len(x_shape) != 2 or tuple(y_shape) != tuple(x_shape[:1]):
        raise ValueError(f"For 'multi_margin_loss', the input must be [N, C] and the target "
                         f"[N], but got {tuple(x_shape)} and {tuple(y_shape)}.")
    if y_dtype.is_floating_point:
        raise TypeError(f"For 'multi_margin_loss', the target must hold class indices (an "
                        f"integer tensor), but got {y_dtype}.")


def multi_margin_loss(input, target, p=1, margin=1, weight=None,  # noqa: A002
                      reduction="mean"):
    """Per sample, sum over classes i != y of max(0, margin - x[y] + x[i])^p, divided by the
    class count C (times weight[y]); input [N, C], target [N] class indices."""
    x, y = as_tensor(input), as_tensor(target)
    _check_multi_margin(x.shape, y.shape, y.dtype, p)
    x_y = _a.gather_d(x, 1, y.expand_dims(1))
    hinge = prim("ReLU")(_m.add(_m.sub(x, x_y), margin))
    if p == 2:
        hinge = _m.square(hinge)
    others = _m.sub(1.0, _a.one_hot(y, x.shape[1]).astype(x.dtype))
    loss = _m.div(_m.sum(_m.mul(hinge, others), 1), x.shape[1])
    if weight is not None:
        loss = _m.mul(loss, _a.gather(as_tensor(weight), y, 0))
    return _reduce(loss, reduction, "multi_margin_loss")


def poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-08,  # noqa: A002
                     reduction="mean"):
    """exp(input) - target * input (log_input), or input - target * log(input + eps); full
    adds Stirling's target * log(target) - target + 0.5 * log(2 pi target) where target > 1."""
    x, y = as_tensor(input), as_tensor(target)
    if log_input:
        loss = _m.sub(_m.exp(x), _m.mul(y, x))
    else:
        loss = _m.sub(x, _m.mul(y, _m.log(_m.add(x, eps))))
    if full:
        big = _m.greater(y, 1)
        safe = _m.select(big, y, _a.ones_like(y))
        stirling = _m.add(_m.sub(_m.mul(safe, _m.log(safe)), safe),
                          _m.mul(_m.log(_m.mul(safe, 2 * math.pi)), 0.5))
        loss = _m.add(loss, _m.select(big, stirling, _a.zeros_like(stirling)))
    return _reduce(loss, reduction, "poisson_nll_loss")


@constexpr
def _var_expand(x_shape, var_shape):
    """Whether var (one dimension short of x) needs a trailing unit dimension; a ValueError
    unless var's shape is x's, x's without the last dimension, or x's with a last dim of 1."""
    x_shape, var_shape = tuple(x_shape), tuple(var_shape)
    if var_shape == x_shape:
        return False
    if len(x_shape) >= 1 and var_shape == x_shape[:-1]:
        return True
    if len(var_shape) == len(x_shape) and var_shape[:-1] == x_shape[:-1] and \
            var_shape[-1] == 1:
        return False
    raise ValueError(f"For 'gaussian_nll_loss', var must have the input's shape {x_shape}, "
                     f"that shape without its last dimension, or with a last dimension of 1, "
                     f"but got {var_shape}.")


def gaussian_nll_loss(x, target, var, full=False, eps=1e-06, reduction="mean"):
    """0.5 * (log(max(var, eps)) + (x - target)^2 / max(var, eps)), plus 0.5 * log(2 pi) with
    full; var may lack x's last dimension (or have 1 there): it broadcasts."""
    if not isinstance(full, bool):
        raise TypeError(f"For 'gaussian_nll_loss', 'full' must be a bool, but got "
                        f"{type(full).__name__}.")
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or eps <= 0:
        raise ValueError(f"For 'gaussian_nll_loss', 'eps' must be a positive float, but got "
                         f"{eps!r}.")
    x, v = as_tensor(x), as_tensor(var)
    if _var_expand(x.shape, v.shape):
        v = v.expand_dims(-1)
    v = _m.maximum(v, eps)
    loss = _m.mul(_m.add(_m.log(v), _m.div(_m.square(_m.sub(x, target)), v)), 0.5)
    if full:
        loss = _m.add(loss, 0.5 * math.log(2 * math.pi))
    return _reduce(loss, reduction, "gaussian_nll_loss")


# ---- CTC ------------------------------------------------------------------------------------

# log(0) in the CTC recursion: finite, so that log-sum-exp and its gradient stay finite; a loss
# this large means no alignment exists and becomes inf (or 0 with zero_infinity).
_CTC_NEG = -1e30


@constexpr
def _check_ctc(lp_shape, lp_dtype, t_shape, t_dtype, il_shape, il_dtype, tl_shape, tl_dtype,
               blank):
    name = "CTCLoss"
    if len(lp_shape) != 3 or lp_dtype not in (_C.float32, _C.float64):
        raise ValueError(f"For '{name}', log_probs must be a float32 or float64 tensor [T, N, "
                         f"C], but got {lp_dtype} of shape {tuple(lp_shape)}.")
    t_len, n, c = lp_shape
    if len(t_shape) != 2 or t_shape[0] != n:
        raise ValueError(f"For '{name}', targets must be [N, S] (padded) with N = {n}, but "
                         f"got shape {tuple(t_shape)}.")
    for what, shape, dtype in (("targets", t_shape, t_dtype),
                               ("input_lengths", il_shape, il_dtype),
                               ("target_lengths", tl_shape, tl_dtype)):
        if dtype.is_floating_point or dtype == _C.bool:
            raise TypeError(f"For '{name}', {what} must be an integer tensor, but got {dtype}.")
        if what != "targets" and tuple(shape) != (n,):
            raise ValueError(f"For '{name}', {what} must have shape ({n},), but got "
                             f"{tuple(shape)}.")
    if isinstance(blank, bool) or not isinstance(blank, int) or not 0 <= blank < c:
        raise ValueError(f"For '{name}', blank must be an int in [0, {c}), but got {blank!r}.")


def _shift_right(a, k, neg):
    """a [N, L] moved k places right along L, log(0) coming in."""
    return _a.concat((neg[:, :k], a[:, :a.shape[1] - k]), 1)


def _log_add(*xs):
    m = xs[0]
    for x in xs[1:]:
        m = _m.maximum(m, x)
    total = _m.exp(_m.sub(xs[0], m))
    for x in xs[1:]:
        total = _m.add(total, _m.exp(_m.sub(x, m)))
    return _m.add(m, _m.log(total))


def _ctc_nll(log_probs, targets, input_lengths, target_lengths, blank):
    """-log p(target | log_probs) per sample [N] by the forward (alpha) recursion over the
    extended target (blank, t1, blank, t2, ..., blank) of length L = 2S + 1, in log space;
    steps at or past a sample's input length keep its alphas."""
    steps, batch = log_probs.shape[0], log_probs.shape[1]
    tg = targets.astype(_C.int64)
    width = 2 * tg.shape[1] + 1
    blanks = _a.full((batch, tg.shape[1] + 2), blank, dtype=_C.int64)
    ext = _a.concat((_a.stack((blanks[:, :tg.shape[1]], tg), 2).reshape((batch, width - 1)),
                     blanks[:, :1]), 1)
    # A step may skip the blank before a label unless it repeats the label two places back.
    skip = _m.logical_and(_m.not_equal(ext, blank),
                          _m.not_equal(ext, _a.concat((blanks[:, :2], ext[:, :width - 2]), 1)))
    emit = _a.gather_d(log_probs, 2, _a.broadcast_to(ext.expand_dims(0),
                                                     (steps, batch, width)))
    neg = _a.full((batch, width), _CTC_NEG, dtype=log_probs.dtype)
    tl = target_lengths.astype(_C.int64)
    pos = _a.arange(0, width, dtype=_C.int64).reshape((1, -1))
    start = _m.logical_or(_m.equal(pos, 0),
                          _m.logical_and(_m.equal(pos, 1), _m.greater(tl, 0).expand_dims(1)))
    alpha = _m.select(start, emit[0], neg)
    il = input_lengths.astype(_C.int32)
    ti = _a.ones((1,), _C.int32)
    for _ in range(steps - 1):
        e = _a.gather(emit, ti, 0).squeeze(0)
        a2 = _m.select(skip, _shift_right(alpha, 2, neg), neg)
        new = _m.add(_log_add(alpha, _shift_right(alpha, 1, neg), a2), e)
        alpha = _m.select(_m.less(ti, il).expand_dims(1), new, alpha)
        ti = _m.add(ti, 1)
    last = _a.gather_d(alpha, 1, _m.mul(tl, 2).expand_dims(1)).squeeze(1)
    before = _a.gather_d(alpha, 1, _m.maximum(_m.sub(_m.mul(tl, 2), 1), 0).expand_dims(1))
    before = _m.select(_m.greater(tl, 0), before.squeeze(1), neg[:, 0])
    return _m.neg(_log_add(last, before))


def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,
              reduction="mean", zero_infinity=False):
    """nn.CTCLoss's value (MindSpore's ops.ctc_loss also returns the alphas, which this does
    not): the CTC loss of log-probabilities [T, N, C] against padded targets [N, S] with per-
    sample input and target lengths [N]: -log of the summed probability of every alignment
    (blanks between and around the labels, repeats merged). Impossible targets give inf (0
    with zero_infinity). reduction 'mean' divides each loss by its target length (at least 1)
    and averages over the batch."""
    lp, tg = as_tensor(log_probs), as_tensor(targets)
    il, tl = as_tensor(input_lengths), as_tensor(target_lengths)
    _check_ctc(lp.shape, lp.dtype, tg.shape, tg.dtype, il.shape, il.dtype, tl.shape, tl.dtype,
               blank)
    loss = _ctc_nll(lp, tg, il, tl, blank)
    impossible = _m.greater(loss, -_CTC_NEG / 10)
    loss = _m.select(impossible, _a.full(loss.shape, 0.0 if zero_infinity else math.inf,
                                         dtype=loss.dtype), loss)
    if reduction == "mean":
        return _m.mean(_m.div(loss, _m.maximum(tl, 1).astype(loss.dtype)))
    return _reduce(loss, reduction, "CTCLoss")


__all__ = ["smooth_l1_loss", "huber_loss", "kl_div", "binary_cross_entropy",
           "margin_ranking_loss", "cosine_embedding_loss", "soft_margin_loss",
           "multilabel_soft_margin_loss", "multi_margin_loss", "triplet_margin_loss",
           "poisson_nll_loss",
           "gaussian_nll_loss"]
