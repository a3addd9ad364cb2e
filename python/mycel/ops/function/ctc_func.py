"""Connectionist temporal classification loss (MindSpore's CTCLossV2, ops.ctc_loss), composed
from op-table primitives.

log_probs [T, N, C] (log-softmax outputs), targets [N, S] padded, input_lengths [N] and
target_lengths [N] (tensors: the lengths are masks, so they may vary per example and are
read at run time). The extended label sequence of example n is blank, l1, blank, ..., l_S,
blank (2S + 1 states). The forward variable alpha (log domain) runs over the static T steps:
alpha_t(s) = logsumexp(alpha_{t-1}(s), alpha_{t-1}(s - 1), alpha_{t-1}(s - 2) when l'_s is not
blank and differs from l'_{s-2}) + log_probs[t, n, l'_s]; steps t >= input_length keep alpha,
so after the loop each example holds alpha at its own last step, and the loss is
-logsumexp(alpha(2 L), alpha(2 L - 1)) at its target length L. log-sum-exp of nothing but -inf
is -inf with zero gradient (no NaN through unreachable states).

The gradient is MindSpore's (and PyTorch's) convention for this loss: the derivative with
respect to the logits of which log_probs is the log-softmax, exp(log_probs) minus the true
derivative's magnitude, for t < input_length (0 after). It is the autodiff of the loss plus
A - stop_gradient(A), A = the sum of exp(log_probs) over each example's valid steps (a term
that is exactly 0 in value).
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import stop_gradient
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr
from mycel.ops.function import array_func as _a

_NEG_INF = float("-inf")


@constexpr
def _range(n, dtype):
    return _C.Tensor(np.arange(n)).astype(dtype)


@constexpr
def _step(t):
    return _C.Tensor(np.array([t], np.int64))


def _lse(*xs):
    """log(sum(exp(x))) over the arguments, elementwise; -inf (zero gradient) when all are."""
    m = xs[0]
    for x in xs[1:]:
        m = prim("Maximum")(m, x)
    dead = prim("Equal")(m, _NEG_INF)
    safe = prim("Select")(dead, prim("ZerosLike")(m), m)
    z = prim("Exp")(xs[0] - safe)
    for x in xs[1:]:
        z = z + prim("Exp")(x - safe)
    z = prim("Select")(dead, prim("OnesLike")(z), z)
    out = safe + prim("Log")(z)
    return prim("Select")(dead, prim("OnesLike")(out) * _NEG_INF, out)


def _shift(a, k):
    """a [N, L] moved right by k along L, -inf coming in."""
    n = a.shape[0]
    pad = prim("Fill")(a.dtype, (n, k), _NEG_INF)
    return prim("Concat", axis=1)((pad, a[:, :a.shape[1] - k]))


def ctc_loss_v2(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
                zero_infinity=False):
    """(loss, log_alpha [N, T, 2S + 1]); loss is [N] for 'none', else reduced ('mean': the
    mean of loss_n / target_length_n; 'sum')."""
    steps, n, _ = log_probs.shape
    s_max = targets.shape[1]
    states = 2 * s_max + 1
    dt = log_probs.dtype
    tgt = prim("Cast")(targets, _C.int64)
    # Extended labels [N, 2S + 1]: blank at even positions, the targets at odd ones.
    blanks = prim("Fill")(_C.int64, (n, s_max), float(blank))
    ext = prim("Reshape")(prim("Stack", axis=2)((blanks, tgt)), (n, 2 * s_max))
    ext = prim("Concat", axis=1)((ext, prim("Fill")(_C.int64, (n, 1), float(blank))))
    prev2 = prim("Concat", axis=1)((prim("Fill")(_C.int64, (n, 2), float(blank)),
                                    ext[:, :states - 2]))
    skip = prim("LogicalAnd")(prim("NotEqual")(ext, blank), prim("NotEqual")(ext, prev2))
    pos = _range(states, _C.int64)
    in_len = prim("Reshape")(prim("Cast")(input_lengths, _C.int64), (n, 1))
    tl = prim("Reshape")(prim("Cast")(target_lengths, _C.int64), (n, 1))
    emit0 = prim("GatherD")(log_probs[0], ext, 1)
    start = prim("Less")(pos, 2)
    alpha = prim("Select")(prim("BroadcastTo", shape=(n, states))(start), emit0,
                           prim("Fill")(dt, (n, states), _NEG_INF))
    alphas = [alpha]
    for t in range(1, steps):
        via2 = prim("Select")(skip, _shift(alpha, 2), prim("Fill")(dt, (n, states), _NEG_INF))
        new = _lse(alpha, _shift(alpha, 1), via2) + prim("GatherD")(log_probs[t], ext, 1)
        live = prim("BroadcastTo", shape=(n, states))(prim("Less")(_step(t), in_len))
        alpha = prim("Select")(live, new, alpha)
        alphas.append(alpha)
    last = prim("GatherD")(alpha, 2 * tl, 1)
    before = prim("GatherD")(alpha, prim("Maximum")(2 * tl - 1, 0), 1)
    before = prim("Select")(prim("Greater")(tl, 0), before, prim("OnesLike")(before) * _NEG_INF)
    nll = -prim("Reshape")(_lse(last, before), (n,))
    if zero_infinity:
        nll = prim("Select")(prim("Equal")(prim("Abs")(nll), float("inf")), prim("ZerosLike")(nll),
                           nll)
    # MindSpore's gradient convention (module text): + A - stop_gradient(A), exactly 0.
    valid_t = prim("Less")(prim("Reshape")(_range(steps, _C.int64), (steps, 1)),
                           prim("Reshape")(in_len, (1, n)))
    a = prim("ReduceSum", keep_dims=False)(
        prim("Exp")(log_probs) * prim("ExpandDims")(prim("Cast")(valid_t, dt), 2), (0, 2))
    nll = nll + (a - stop_gradient(a))
    log_alpha = prim("Stack", axis=1)(tuple(alphas))
    if reduction == "none":
        return nll, log_alpha
    if reduction == "sum":
        return prim("ReduceSum", keep_dims=False)(nll, ()), log_alpha
    per = nll / prim("Cast")(prim("Maximum")(prim("Reshape")(tl, (n,)), 1), dt)
    return prim("ReduceMean", keep_dims=False)(per, ()), log_alpha


def _check(name, x, dtypes, rank=None):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For 'CTCLossV2', '{name}' must be a Tensor, but got "
                        f"{type(x).__name__}.")
    if x.dtype not in dtypes:
        raise TypeError(f"For 'CTCLossV2', '{name}' must have dtype in "
                        f"{[str(d) for d in dtypes]}, but got {x.dtype}.")
    if rank is not None and len(x.shape) != rank:
        raise ValueError(f"For 'CTCLossV2', '{name}' must be {rank}-D, but got shape "
                         f"{tuple(x.shape)}.")


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """MindSpore's ops.ctc_loss and CTCLossV2: (neg_log_likelihood, log_alpha) (module text);
    targets [N, S] padded; lengths given as tuples or lists are tensors of their values (so
    (2.5,) is a float32 tensor, a TypeError)."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"For 'CTCLossV2', 'reduction' must be 'none', 'mean' or 'sum', but "
                         f"got {reduction!r}.")
    if isinstance(input_lengths, (tuple, list)):
        input_lengths = _C.Tensor(input_lengths)
    if isinstance(target_lengths, (tuple, list)):
        target_lengths = _C.Tensor(target_lengths)
    ints = (_C.int32, _C.int64)
    _check("log_probs", log_probs, (_C.float32, _C.float64), 3)
    _check("targets", targets, ints, 2)
    _check("input_lengths", input_lengths, ints)
    _check("target_lengths", target_lengths, ints)
    n = log_probs.shape[1]
    if targets.shape[0] != n or tuple(input_lengths.shape) != (n,) or \
            tuple(target_lengths.shape) != (n,):
        raise ValueError(f"For 'CTCLossV2', targets must be [N, S] and the lengths [N] for "
                         f"log_probs [T, N, C] = {tuple(log_probs.shape)}, but got "
                         f"{tuple(targets.shape)}, {tuple(input_lengths.shape)} and "
                         f"{tuple(target_lengths.shape)}.")
    if not 0 <= blank < log_probs.shape[2]:
        raise ValueError(f"For 'CTCLossV2', 'blank' ({blank}) must be in [0, "
                         f"{log_probs.shape[2]}).")
    return ctc_loss_v2(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                       zero_infinity)


__all__ = ["ctc_loss", "ctc_greedy_decoder"]


def _t(x, op, name="input"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


@constexpr
def _arange(n):
    return _C.Tensor(np.arange(n, dtype=np.int64))


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """Greedy CTC decoding of inputs (max_time, batch, classes) (the last class is the blank):
    the best class per step over each sequence's length, repeats merged (merge_repeated),
    blanks removed. Returns MindSpore's sparse form (decoded_indices [N, 2] int64 (batch,
    position), decoded_values [N] int64, decoded_shape [2] int64 (batch, longest),
    log_probability [batch, 1]: minus the sum of the best logits). N depends on the values:
    PYNATIVE mode."""
    x = _t(inputs, "CTCGreedyDecoder", "inputs")
    L = _t(sequence_length, "CTCGreedyDecoder", "sequence_length")
    if x.ndim != 3 or L.shape != (x.shape[1],):
        raise ValueError(f"For 'CTCGreedyDecoder', inputs must be (T, B, C) and "
                         f"sequence_length (B,), but got {x.shape} and {L.shape}.")
    t, b, c = x.shape
    best = prim("Argmax", axis=-1, output_type=_C.int64)(x)  # [T, B]
    top = prim("ReduceMax")(x, (-1,))
    steps = prim("Reshape")(_arange(t), (t, 1))
    live = prim("Less")(steps, prim("Reshape")(prim("Cast")(L, _C.int64), (1, b)))
    logp = -prim("ReduceSum")(prim("Select")(live, top, prim("ZerosLike")(top)), (0,))
    keep = prim("LogicalAnd")(live, prim("NotEqual")(best, c - 1))
    if merge_repeated and t > 1:
        prev = _a.concat((prim("ZerosLike")(best[:1]) - 1, best[:t - 1]), 0)
        keep = prim("LogicalAnd")(keep, prim("NotEqual")(best, prev))
    kb = prim("Transpose")(keep, (1, 0))  # [B, T], batch-major order
    vb = prim("Transpose")(best, (1, 0))
    values = prim("MaskedSelect")(vb, kb)
    pos = prim("CumSum")(prim("Cast")(kb, _C.int64), 1) - 1
    batch = prim("BroadcastTo", shape=(b, t))(prim("Reshape")(_arange(b), (b, 1)))
    rows = prim("MaskedSelect")(batch, kb)
    cols = prim("MaskedSelect")(pos, kb)
    indices = prim("Stack", axis=1)((rows, cols))
    longest = prim("ReduceMax")(prim("ReduceSum")(prim("Cast")(kb, _C.int64), (1,)), ())
    shape = prim("Stack", axis=0)((prim("Cast")(_C.Tensor(np.int64(b)), _C.int64),
                                   prim("Cast")(longest, _C.int64)))
    return indices, values, shape, prim("Reshape")(prim("Cast")(logp, x.dtype), (b, 1))
