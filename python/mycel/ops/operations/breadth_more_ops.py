"""Primitive classes of MindSpore 2.x that mycel composes from table ops (the names
docs/compatibility.md listed absent): Im2Col, Polar, Cholesky, Geqrf, CTCLoss (TensorFlow's,
sparse labels and logits), NoRepeatNGram, LogUniformCandidateSampler (and its functional form
log_uniform_candidate_sampler), EditDistance (TensorFlow's, of sparse sequences), RNNTLoss
(the RNN transducer loss), LARSUpdate (nn.LARS's gradient rescaling). Each is a _Composed
primitive whose __call__ graph mode parses like any function, so both modes and gradients
come from the ops it is built of.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.composite import grad as _grad
from mycel.ops.function import complex_func as _cx, cholesky_func as _chol
from mycel.ops.function import ctc_func as _ctc
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.operations._compat_checks import (_check_int, _check_bool, _check_tensor,
                                                 _check_rank, _check_float)
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.primitive import constexpr
from mycel.ops.function import candidate_sampler_func as _cs
from mycel.ops.function import nn_func as _nnf

__all__ = ["Im2Col", "Polar", "Cholesky", "Geqrf", "CTCLoss", "NoRepeatNGram",
           "LogUniformCandidateSampler", "EditDistance", "RNNTLoss", "LARSUpdate"]

_FLT_MAX = float(np.finfo(np.float32).max)


def _ints(op, name, v, counts):
    """An int or a tuple/list of ints whose length is in counts, as a tuple."""
    if isinstance(v, int) and not isinstance(v, bool):
        v = (v,)
    if not isinstance(v, (tuple, list)) or len(v) not in counts or \
            any(isinstance(e, bool) or not isinstance(e, int) for e in v):
        raise TypeError(f"For '{op}', '{name}' must be an int or a tuple/list of "
                        f"{' or '.join(str(c) for c in counts)} ints, but got {v!r}.")
    return tuple(v) * 2 if len(v) == 1 else tuple(v)


class Im2Col(_Composed):
    """Im2Col(ksizes, strides=1, dilations=1, pads=0)(x): the sliding ksizes blocks of a 4-D
    x (N, C, H, W) as (N, C, kh * kw, L), L the number of block positions (row-major), each
    of ksizes, strides, dilations and pads one int or (height, width); pads are zeros
    (ops.unfold with the channel and kernel axes apart)."""

    def __init__(self, ksizes, strides=1, dilations=1, pads=0):
        op = "Im2Col"
        self.ksizes = _ints(op, "ksizes", ksizes, (1, 2))
        self.strides = _ints(op, "strides", strides, (1, 2))
        self.dilations = _ints(op, "dilations", dilations, (1, 2))
        self.pads = _ints(op, "pads", pads, (1, 2))
        super().__init__(ksizes=self.ksizes, strides=self.strides, dilations=self.dilations,
                         pads=self.pads)

    def __call__(self, x):
        return _nnf.unfold_blocks("Im2Col", as_tensor(x), self.ksizes, self.dilations,
                                 self.pads, self.strides)


class Polar(_Composed):
    """Polar()(abs, angle): abs * (cos(angle) + i sin(angle)), complex64 for float32 parts,
    complex128 for float64 (ops.polar)."""

    def __call__(self, abs, angle):  # noqa: A002 (MindSpore's argument names)
        _check_tensor("Polar", "abs", abs, (_C.float32, _C.float64))
        _check_tensor("Polar", "angle", angle, (_C.float32, _C.float64))
        return _cx.polar(abs, angle)


class Cholesky(_Composed):
    """Cholesky(upper=False)(input_x): the Cholesky factor of each symmetric positive-definite
    matrix of input_x [..., M, M], lower (input_x = L L^T) or upper (input_x = U^T U)
    (ops.cholesky)."""

    def __init__(self, upper=False):
        self.upper = _check_bool("Cholesky", "upper", upper)
        super().__init__(upper=upper)

    def __call__(self, input_x):
        return _chol.cholesky(input_x, self.upper)


class Geqrf(_Composed):
    """Geqrf()(x) -> (y, tau): the QR factorisation of each matrix of x [..., M, N] in
    LAPACK's Householder form, R on and above the diagonal of y, the reflectors below it
    (ops.geqrf)."""

    def __call__(self, x):
        return _chol.geqrf(x)


# ------------------------------------------------------------------ CTCLoss
@constexpr
def _ctc_plan(x_shape, idx_shape, val_shape, len_shape):
    if len(x_shape) != 3:
        raise ValueError(f"For 'CTCLoss', 'x' must be 3-D [max_time, batch_size, num_classes], "
                         f"but got shape {tuple(x_shape)}.")
    steps, batch, classes = x_shape
    if len(idx_shape) != 2 or idx_shape[1] != 2 or tuple(val_shape) != (idx_shape[0],):
        raise ValueError(f"For 'CTCLoss', 'labels_indices' must be [n, 2] and 'labels_values' "
                         f"[n], but got {tuple(idx_shape)} and {tuple(val_shape)}.")
    if tuple(len_shape) != (batch,):
        raise ValueError(f"For 'CTCLoss', 'sequence_length' must be [batch_size] = [{batch}], "
                         f"but got {tuple(len_shape)}.")
    if classes < 1:
        raise ValueError("For 'CTCLoss', 'x' needs at least one class (the blank).")
    # The dense label matrix needs no more columns than there are labels or time steps (a
    # longer label cannot be aligned: its loss is infinite).
    return steps, batch, classes, max(1, min(idx_shape[0], steps))


def _ctc_sum(log_probs, targets, seq_len, tgt_len, blank):
    loss, _ = _ctc.ctc_loss_v2(log_probs, targets, seq_len, tgt_len, blank, "none", False)
    return prim("ReduceSum", keep_dims=False)(loss, ())


def _ctc_dense(indices, values, batch, width, merge):
    """(targets [batch, width] int64, lengths [batch] int64) from the sparse labels; with
    merge, a label equal to the one before it in its row is dropped (TensorFlow's
    preprocess_collapse_repeated)."""
    idx = prim("Cast")(indices, _C.int64)
    row, pos = idx[:, 0], idx[:, 1]
    val = prim("Cast")(values, _C.int64)
    if merge:  # the labels come row-major (TensorFlow's order): compare with the previous one
        prev_row = prim("Concat", axis=0)((prim("Fill")(_C.int64, (1,), -1.0), row[:-1]))
        prev_val = prim("Concat", axis=0)((prim("Fill")(_C.int64, (1,), -1.0), val[:-1]))
        keep = prim("LogicalNot")(prim("LogicalAnd")(prim("Equal")(row, prev_row),
                                                     prim("Equal")(val, prev_val)))
        # a kept label's position: how many labels of its row were kept before it
        keep_i = prim("Cast")(keep, _C.int64)
        same = prim("Equal")(prim("ExpandDims")(row, 1), prim("ExpandDims")(row, 0))
        n = row.shape[0]
        earlier = prim("Less")(prim("ExpandDims")(_range(n), 1), prim("ExpandDims")(_range(n), 0))
        pos = prim("ReduceSum", keep_dims=False)(
            prim("Mul")(prim("Cast")(prim("LogicalAnd")(same, earlier), _C.int64),
                        prim("ExpandDims")(keep_i, 1)), (0,))
    else:
        keep_i = prim("OnesLike")(row)
    at_row = prim("Equal")(prim("ExpandDims")(row, 0), prim("ExpandDims")(_range(batch), 1))
    lengths = prim("ReduceSum", keep_dims=False)(
        prim("Mul")(prim("Cast")(at_row, _C.int64), prim("ExpandDims")(keep_i, 0)), (1,))
    # targets[b, s] = the kept label of row b at position s
    hit = prim("LogicalAnd")(
        prim("Reshape")(at_row, (batch, 1, -1)),
        prim("Equal")(prim("Reshape")(pos, (1, 1, -1)), prim("Reshape")(_range(width),
                                                                         (1, width, 1))))
    hit = prim("Mul")(prim("Cast")(hit, _C.int64), prim("Reshape")(keep_i, (1, 1, -1)))
    targets = prim("ReduceSum", keep_dims=False)(
        prim("Mul")(hit, prim("Reshape")(val, (1, 1, -1))), (2,))
    return targets, lengths


@constexpr
def _range(n):
    return _C.Tensor(np.arange(n, dtype=np.int64))


class CTCLoss(_Composed):
    """CTCLoss(preprocess_collapse_repeated=False, ctc_merge_repeated=True,
    ignore_longer_outputs_than_inputs=False)(x, labels_indices, labels_values,
    sequence_length) -> (loss [batch], gradient like x): TensorFlow's CTC loss of the logits
    x [max_time, batch, num_classes] (softmax over the classes; the blank is the last class)
    for the sparse labels (labels_indices [n, 2] int64 (row, position), row-major;
    labels_values [n] int32) over each example's first sequence_length steps, and the gradient
    of the loss with respect to x (0 after an example's sequence_length). With
    preprocess_collapse_repeated a label equal to the one before it is dropped first. An
    example that no alignment fits (a label longer than its sequence) has loss inf and a NaN
    gradient, unless, the label being longer,
    ignore_longer_outputs_than_inputs, which gives it loss 0 and gradient 0. The CTC
    recursion is ops.ctc_loss's (ops/function/ctc_func.py). ctc_merge_repeated=False
    (TensorFlow's simplified CTC without merging repeats) is not supported: a ValueError."""

    def __init__(self, preprocess_collapse_repeated=False, ctc_merge_repeated=True,
                 ignore_longer_outputs_than_inputs=False):
        op = "CTCLoss"
        self.preprocess_collapse_repeated = _check_bool(op, "preprocess_collapse_repeated",
                                                        preprocess_collapse_repeated)
        self.ctc_merge_repeated = _check_bool(op, "ctc_merge_repeated", ctc_merge_repeated)
        self.ignore_longer_outputs_than_inputs = _check_bool(
            op, "ignore_longer_outputs_than_inputs", ignore_longer_outputs_than_inputs)
        if not ctc_merge_repeated:
            raise ValueError("For 'CTCLoss', ctc_merge_repeated=False is not supported by "
                             "mycel (only the standard CTC, which merges repeated labels).")
        super().__init__(preprocess_collapse_repeated=preprocess_collapse_repeated,
                         ctc_merge_repeated=ctc_merge_repeated,
                         ignore_longer_outputs_than_inputs=ignore_longer_outputs_than_inputs)

    def __call__(self, x, labels_indices, labels_values, sequence_length):
        op = "CTCLoss"
        _check_tensor(op, "x", x, (_C.float16, _C.float32, _C.float64))
        _check_tensor(op, "labels_indices", labels_indices, (_C.int64,))
        _check_tensor(op, "labels_values", labels_values, (_C.int32,))
        _check_tensor(op, "sequence_length", sequence_length, (_C.int32,))
        steps, batch, classes, width = _ctc_plan(x.shape, labels_indices.shape,
                                                 labels_values.shape, sequence_length.shape)
        xc = prim("Cast")(x, _C.float64) if x.dtype == _C.float64 else \
            prim("Cast")(x, _C.float32)
        targets, tgt_len = _ctc_dense(labels_indices, labels_values, batch, width,
                                      self.preprocess_collapse_repeated)
        seq_len = prim("Cast")(sequence_length, _C.int64)
        lp = prim("LogSoftmax", axis=2)(xc)
        # a label longer than the dense width is longer than max_time: no alignment
        used_len = prim("Minimum")(tgt_len, width)
        loss, _ = _ctc.ctc_loss_v2(lp, targets, seq_len, used_len, classes - 1, "none", False)
        # the gradient with respect to the logits: the loss's convention (ctc_func.py) is
        # already the derivative through the softmax
        g = _grad(_ctc_sum, 0)(lp, targets, seq_len, used_len, classes - 1)
        loss = prim("Select")(prim("Greater")(tgt_len, width),
                              prim("Fill")(loss.dtype, (batch,), float("inf")), loss)
        per_example = prim("BroadcastTo", shape=(steps, batch, classes))
        bad = per_example(prim("Reshape")(prim("Equal")(loss, float("inf")), (1, batch, 1)))
        g = prim("Select")(bad, prim("Fill")(g.dtype, (steps, batch, classes), float("nan")), g)
        if self.ignore_longer_outputs_than_inputs:
            longer = prim("Greater")(tgt_len, seq_len)
            loss = prim("Select")(longer, prim("ZerosLike")(loss), loss)
            g = prim("Select")(per_example(prim("Reshape")(longer, (1, batch, 1))),
                               prim("ZerosLike")(g), g)
        return prim("Cast")(loss, x.dtype), prim("Cast")(g, x.dtype)


# ------------------------------------------------------------------ NoRepeatNGram
class NoRepeatNGram(_Composed):
    """NoRepeatNGram(ngram_size=1)(state_seq [batch, beam, L] int32, log_probs [batch, beam,
    vocab]) -> log_probs with -FLT_MAX (float32's lowest) at every token that would repeat an
    n-gram of state_seq: for each window state_seq[i : i + n - 1] (i + n - 1 < L) equal to the
    last n - 1 tokens, the token state_seq[i + n - 1] that followed it."""

    def __init__(self, ngram_size=1):
        self.ngram_size = _check_int("NoRepeatNGram", "ngram_size", ngram_size)
        super().__init__(ngram_size=ngram_size)

    def __call__(self, state_seq, log_probs):
        op = "NoRepeatNGram"
        _check_tensor(op, "state_seq", state_seq, (_C.int32,))
        _check_tensor(op, "log_probs", log_probs, (_C.float16, _C.float32, _C.float64))
        _ngram_plan(state_seq.shape, log_probs.shape)
        n = self.ngram_size
        steps = state_seq.shape[2]
        vocab = log_probs.shape[2]
        seq = prim("Cast")(state_seq, _C.int64)
        tokens = prim("Reshape")(_range(vocab), (1, 1, vocab))
        banned = prim("ZerosLike")(prim("Cast")(log_probs, _C.bool))
        tail = seq[:, :, steps - n + 1:]
        for i in range(steps - n + 1):
            differ = prim("Cast")(prim("NotEqual")(seq[:, :, i:i + n - 1], tail), _C.int64)
            match = prim("Equal")(prim("ReduceSum", keep_dims=True)(differ, (2,)), 0)
            nxt = seq[:, :, i + n - 1:i + n]
            banned = prim("LogicalOr")(banned, prim("LogicalAnd")(match,
                                                                  prim("Equal")(tokens, nxt)))
        low = prim("Sub")(prim("ZerosLike")(log_probs), _FLT_MAX)
        return prim("Select")(banned, low, log_probs)


@constexpr
def _ngram_plan(seq_shape, lp_shape):
    if len(seq_shape) != 3 or len(lp_shape) != 3 or tuple(seq_shape[:2]) != tuple(lp_shape[:2]):
        raise ValueError(f"For 'NoRepeatNGram', state_seq must be [batch, beam, L] and log_probs "
                         f"[batch, beam, vocab], but got {tuple(seq_shape)} and "
                         f"{tuple(lp_shape)}.")
    return True


# ------------------------------------------------------------------ LogUniformCandidateSampler
class LogUniformCandidateSampler(_Composed):
    """LogUniformCandidateSampler(num_true=1, num_sampled=5, unique=True, range_max=5,
    seed=0)(true_classes int64 [batch, num_true]) -> (sampled_candidates int64 [num_sampled],
    true_expected_count float32 [batch, num_true], sampled_expected_count float32
    [num_sampled]): classes drawn from the log-uniform distribution P(c) =
    log((c + 2) / (c + 1)) / log(range_max + 1) over [0, range_max), without repeats when
    unique, and TensorFlow's expected counts (ops/function/breadth_more_func.py,
    log_uniform_sample). The random numbers are mycel's: seeded instances are reproducible,
    not bit-equal to MindSpore's."""

    def __init__(self, num_true=1, num_sampled=5, unique=True, range_max=5, seed=0):
        _sampler_ok("LogUniformCandidateSampler", num_true, num_sampled, unique, range_max,
                    seed)
        self.num_true, self.num_sampled, self.unique = num_true, num_sampled, unique
        self.range_max, self.seed = range_max, seed
        super().__init__(num_true=num_true, num_sampled=num_sampled, unique=unique,
                         range_max=range_max, seed=seed)
        self._uniform = _C.OpHandle("UniformReal", {"seed": seed, "seed2": 0,
                                                    "dtype": _C.float64})

    def __call__(self, true_classes):
        op = "LogUniformCandidateSampler"
        _check_tensor(op, "true_classes", true_classes, (_C.int64,))
        _check_rank(op, "true_classes", true_classes, 2)
        if true_classes.shape[1] != self.num_true:
            raise ValueError(f"For '{op}', 'true_classes' must be [batch_size, num_true] with "
                             f"num_true = {self.num_true}, but got shape "
                             f"{tuple(true_classes.shape)}.")
        return _cs.log_uniform_sample(true_classes, self.num_sampled, self.unique,
                                      self.range_max, self._uniform)


def _sampler_ok(op, num_true, num_sampled, unique, range_max, seed):
    for name, v in (("num_true", num_true), ("num_sampled", num_sampled),
                    ("range_max", range_max)):
        _check_int(op, name, v)
    _check_int(op, "seed", seed, positive=False)
    _check_bool(op, "unique", unique)
    if seed < 0:
        raise ValueError(f"For '{op}', 'seed' must be non-negative, but got {seed}.")
    if unique and num_sampled > range_max:
        raise ValueError(f"For '{op}', 'num_sampled' ({num_sampled}) must not exceed "
                         f"'range_max' ({range_max}) when unique.")


def log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True,
                                  range_max=5, seed=0):
    """The functional form of LogUniformCandidateSampler (same arguments, same outputs)."""
    return LogUniformCandidateSampler(num_true, num_sampled, unique, range_max,
                                      seed)(true_classes)


# ------------------------------------------------------------------ EditDistance
@constexpr
def _edit_plan(h_idx, h_val, h_shape, t_idx, t_val, t_shape):
    op = "EditDistance"
    shapes = []
    for name, v in (("hypothesis_shape", h_shape), ("truth_shape", t_shape)):
        if not isinstance(v, _C.Tensor):
            raise TypeError(f"For '{op}', '{name}' must be a Tensor (a constant), but got "
                            f"{type(v).__name__}.")
        shapes.append(tuple(int(e) for e in v.asnumpy().reshape(-1)))
    hs, ts = shapes
    if len(hs) != len(ts) or len(hs) < 1 or min(hs + ts) < 0:
        raise ValueError(f"For '{op}', hypothesis_shape and truth_shape must have the same "
                         f"rank (at least 1) and no negative entry, but got {hs} and {ts}.")
    for name, idx, val, shp in (("hypothesis", h_idx, h_val, hs), ("truth", t_idx, t_val, ts)):
        if len(idx) != 2 or idx[1] != len(shp) or tuple(val) != (idx[0],):
            raise ValueError(f"For '{op}', {name}_indices must be [n, {len(shp)}] and "
                             f"{name}_values [n], but got {tuple(idx)} and {tuple(val)}.")
    out = tuple(max(a, b) for a, b in zip(hs[:-1], ts[:-1]))
    rows = 1
    for e in out:
        rows *= e
    strides = []
    acc = 1
    for e in reversed(out):
        strides.insert(0, acc)
        acc *= e
    width_h = max(1, min(h_idx[0], hs[-1]))
    width_t = max(1, min(t_idx[0], ts[-1]))
    return out, rows, tuple(strides), width_h, width_t


def _edit_dense(indices, values, strides, rows, width):
    """(sequences [rows, width] as float64, lengths [rows] int64): the values of each row
    (the leading indices), in the order of their last index."""
    idx = prim("Cast")(indices, _C.int64)
    n = idx.shape[0]
    rank = idx.shape[1]
    row = prim("ZerosLike")(idx[:, 0])
    for k in range(rank - 1):
        row = prim("Add")(row, prim("Mul")(idx[:, k], strides[k]))
    last = idx[:, rank - 1]
    same = prim("Equal")(prim("ExpandDims")(row, 1), prim("ExpandDims")(row, 0))
    before = prim("Less")(prim("ExpandDims")(last, 0), prim("ExpandDims")(last, 1))
    pos = prim("ReduceSum", keep_dims=False)(
        prim("Cast")(prim("LogicalAnd")(same, before), _C.int64), (1,))  # rank in its row
    at_row = prim("Equal")(prim("ExpandDims")(row, 0), prim("ExpandDims")(_range(rows), 1))
    lengths = prim("ReduceSum", keep_dims=False)(prim("Cast")(at_row, _C.int64), (1,))
    hit = prim("LogicalAnd")(prim("Reshape")(at_row, (rows, 1, n)),
                             prim("Equal")(prim("Reshape")(pos, (1, 1, n)),
                                           prim("Reshape")(_range(width), (1, width, 1))))
    val = prim("Reshape")(prim("Cast")(values, _C.float64), (1, 1, n))
    dense = prim("ReduceSum", keep_dims=False)(
        prim("Mul")(prim("Cast")(hit, _C.float64), val), (2,))
    return dense, lengths


@constexpr
def _upper_mask(n):
    """[n, n] float64: 0 where k <= j (column j, row k), a large number elsewhere."""
    return _C.Tensor(np.where(np.arange(n)[:, None] <= np.arange(n)[None, :], 0.0, 1e18))


@constexpr
def _col_index(n):
    return _C.Tensor(np.arange(n, dtype=np.float64))


def _levenshtein(a, la, b, lb):
    """The edit distance of each row's a[:la] and b[:lb] (float64 [rows]). Row i of the table
    is D_i[j] = j + min_{k <= j}(E[k] - k) with E[0] = D_{i-1}[0] + 1 and E[j] =
    min(D_{i-1}[j] + 1, D_{i-1}[j - 1] + (a_i != b_j)): a vector step per row of a."""
    rows, width_a = a.shape
    cols = b.shape[1] + 1
    j = _col_index(cols)
    mask = _upper_mask(cols)
    d = prim("BroadcastTo", shape=(rows, cols))(j)
    table = (d,)
    for i in range(width_a):
        cost = prim("Cast")(prim("NotEqual")(a[:, i:i + 1], b), _C.float64)  # [rows, B]
        diag = prim("Add")(d[:, :cols - 1], cost)
        up = prim("Add")(d, 1.0)
        e = prim("Concat", axis=1)((up[:, :1], prim("Minimum")(up[:, 1:], diag)))
        shifted = prim("Sub")(e, j)
        windows = prim("Add")(prim("ExpandDims")(shifted, 2), mask)  # [rows, k, j]
        d = prim("Add")(prim("ReduceMin", keep_dims=False)(windows, (1,)), j)
        table = table + (d,)
    full = prim("Stack", axis=1)(table)  # [rows, A + 1, B + 1]
    at_a = prim("GatherD")(full, prim("BroadcastTo", shape=(rows, 1, cols))(
        prim("Reshape")(la, (rows, 1, 1))), 1)
    return prim("Reshape")(prim("GatherD")(prim("Reshape")(at_a, (rows, cols)),
                                           prim("Reshape")(lb, (rows, 1)), 1), (rows,))


class EditDistance(_Composed):
    """EditDistance(normalize=True)(hypothesis_indices, hypothesis_values, hypothesis_shape,
    truth_indices, truth_values, truth_shape) -> float32 distances of shape
    max(hypothesis_shape[:-1], truth_shape[:-1]): TensorFlow's Levenshtein distance between
    the sparse sequences of each position of the leading dims (a sequence is the values of
    the entries sharing those leading indices, in the order of their last index). With
    normalize the distance is divided by the truth's length: a missing truth gives inf (0 when
    the hypothesis is missing too). The shapes must be constant int64 tensors (they set the
    output shape)."""

    def __init__(self, normalize=True):
        self.normalize = _check_bool("EditDistance", "normalize", normalize)
        super().__init__(normalize=normalize)

    def __call__(self, hypothesis_indices, hypothesis_values, hypothesis_shape, truth_indices,
                 truth_values, truth_shape):
        op = "EditDistance"
        _check_tensor(op, "hypothesis_indices", hypothesis_indices, (_C.int64,))
        _check_tensor(op, "truth_indices", truth_indices, (_C.int64,))
        out, rows, strides, wh, wt = _edit_plan(
            hypothesis_indices.shape, hypothesis_values.shape, hypothesis_shape,
            truth_indices.shape, truth_values.shape, truth_shape)
        a, la = _edit_dense(hypothesis_indices, hypothesis_values, strides, rows, wh)
        b, lb = _edit_dense(truth_indices, truth_values, strides, rows, wt)
        dist = _levenshtein(a, la, b, lb)
        if self.normalize:
            lbf = prim("Cast")(lb, _C.float64)
            both_empty = prim("LogicalAnd")(prim("Equal")(la, 0), prim("Equal")(lb, 0))
            dist = prim("Select")(both_empty, prim("ZerosLike")(dist), prim("Div")(dist, lbf))
        return prim("Reshape")(prim("Cast")(dist, _C.float32), out)


# ------------------------------------------------------------------ RNNTLoss
@constexpr
def _rnnt_plan(a_shape, l_shape, il_shape, ll_shape, blank):
    op = "RNNTLoss"
    if len(a_shape) != 4:
        raise ValueError(f"For '{op}', 'acts' must be 4-D [B, T, U + 1, V], but got shape "
                         f"{tuple(a_shape)}.")
    b, _, u1, v = a_shape
    if tuple(l_shape) != (b, u1 - 1) or tuple(il_shape) != (b,) or tuple(ll_shape) != (b,):
        raise ValueError(f"For '{op}', 'labels' must be [B, U] = [{b}, {u1 - 1}] and the "
                         f"lengths [B], but got {tuple(l_shape)}, {tuple(il_shape)} and "
                         f"{tuple(ll_shape)}.")
    if not 0 <= blank < v:
        raise ValueError(f"For '{op}', 'blank_label' ({blank}) must be in [0, {v}).")
    return True


@constexpr
def _lower_neg(n):
    """[n, n] float: 0 where k <= u (row k, column u), -1e30 elsewhere."""
    return _C.Tensor(np.where(np.arange(n)[:, None] <= np.arange(n)[None, :], 0.0, -1e30))


def _prefix_lse(v, mask):
    """out[..., u] = log sum_{k <= u} exp(v[..., k]) (v finite)."""
    w = prim("Add")(prim("ExpandDims")(v, 2), prim("Cast")(mask, v.dtype))  # [B, k, u]
    m = prim("ReduceMax", keep_dims=True)(w, (1,))
    s = prim("ReduceSum", keep_dims=False)(prim("Exp")(prim("Sub")(w, m)), (1,))
    return prim("Add")(prim("Log")(s), prim("Squeeze", axis=(1,))(m))


def _rnnt_costs(lp, labels, act_lens, label_lens, blank):
    """The negative log-likelihood [B] of each label sequence under the transducer with
    log-probabilities lp [B, T, U + 1, V] (the forward variable alpha, one time step at a time:
    alpha_t(u) = logsumexp(alpha_{t-1}(u) + blank_{t-1}(u), alpha_t(u - 1) + emit_t(u - 1)),
    solved along u as a prefix log-sum-exp of alpha_{t-1} + blank - C with C the running sum
    of the emissions, plus C)."""
    b, steps, u1, _ = lp.shape
    lab = prim("Cast")(labels, _C.int64)
    blank_lp = lp[:, :, :, blank]  # [B, T, U + 1]
    if u1 > 1:
        emit = prim("Squeeze", axis=(3,))(prim("GatherD")(
            lp[:, :, :u1 - 1, :], prim("BroadcastTo", shape=(b, steps, u1 - 1, 1))(
                prim("Reshape")(lab, (b, 1, u1 - 1, 1))), 3))  # [B, T, U]
        csum = prim("Concat", axis=2)((prim("ZerosLike")(blank_lp[:, :, :1]),
                                       prim("CumSum")(emit, 2)))  # [B, T, U + 1]
    else:
        csum = prim("ZerosLike")(blank_lp)
    mask = _lower_neg(u1)
    alpha = csum[:, 0]  # t = 0: only emissions
    alphas = (alpha,)
    for t in range(1, steps):
        a = prim("Add")(alpha, blank_lp[:, t - 1])
        alpha = prim("Add")(_prefix_lse(prim("Sub")(a, csum[:, t]), mask), csum[:, t])
        alphas = alphas + (alpha,)
    full = prim("Stack", axis=1)(alphas)  # [B, T, U + 1]
    t_last = prim("Reshape")(prim("Sub")(prim("Cast")(act_lens, _C.int64), 1), (b, 1, 1))
    u_last = prim("Reshape")(prim("Cast")(label_lens, _C.int64), (b, 1))
    at_t = prim("BroadcastTo", shape=(b, 1, u1))(t_last)
    row = prim("Reshape")(prim("GatherD")(full, at_t, 1), (b, u1))
    brow = prim("Reshape")(prim("GatherD")(blank_lp, at_t, 1), (b, u1))
    final = prim("Add")(prim("GatherD")(row, u_last, 1), prim("GatherD")(brow, u_last, 1))
    return prim("Neg")(prim("Reshape")(final, (b,)))


def _rnnt_total(acts, labels, act_lens, label_lens, blank):
    lp = prim("LogSoftmax", axis=-1)(acts)
    return prim("ReduceSum", keep_dims=False)(_rnnt_costs(lp, labels, act_lens, label_lens,
                                                          blank), ())


class RNNTLoss(_Composed):
    """RNNTLoss(blank_label=0)(acts, labels, input_length, label_length) -> (costs [B],
    grads like acts): the RNN transducer loss (Graves 2012) of the activations acts
    [B, T, U + 1, V] (log-softmax over V is taken first) for labels [B, U] (int32) with each
    example's input_length (<= T) and label_length (<= U), and its gradient with respect to
    acts. Computed in float32 (float64 for float64 acts); the outputs take acts' dtype."""

    def __init__(self, blank_label=0):
        self.blank_label = _check_int("RNNTLoss", "blank_label", blank_label, positive=False)
        super().__init__(blank_label=blank_label)

    def __call__(self, acts, labels, input_length, label_length):
        op = "RNNTLoss"
        _check_tensor(op, "acts", acts, (_C.float16, _C.float32, _C.float64))
        for name, t in (("labels", labels), ("input_length", input_length),
                        ("label_length", label_length)):
            _check_tensor(op, name, t, (_C.int32,))
        _rnnt_plan(acts.shape, labels.shape, input_length.shape, label_length.shape,
                   self.blank_label)
        work = _C.float64 if acts.dtype == _C.float64 else _C.float32
        x = prim("Cast")(acts, work)
        costs = _rnnt_costs(prim("LogSoftmax", axis=-1)(x), labels, input_length, label_length,
                            self.blank_label)
        grads = _grad(_rnnt_total, 0)(x, labels, input_length, label_length, self.blank_label)
        return prim("Cast")(costs, acts.dtype), prim("Cast")(grads, acts.dtype)


# ------------------------------------------------------------------ LARSUpdate
class LARSUpdate(_Composed):
    """LARSUpdate(epsilon=1e-05, hyperpara=0.001, use_clip=False)(weight, gradient,
    norm_weight, norm_gradient, weight_decay, learning_rate) -> the new gradient of nn.LARS
    (layer-wise adaptive rate scaling), with ||w|| = sqrt(norm_weight) and ||g|| =
    sqrt(norm_gradient) (the inputs are sums of squares) and delta = weight_decay:
        lambda = hyperpara ||w|| / (||g|| + delta ||w|| + epsilon)  (1 where ||w|| or ||g|| is 0)
        lambda = min(lambda / learning_rate, 1)                      with use_clip
        new gradient = lambda (gradient + delta weight)."""

    def __init__(self, epsilon=1e-05, hyperpara=0.001, use_clip=False):
        op = "LARSUpdate"
        self.epsilon = _check_float(op, "epsilon", epsilon)
        self.hyperpara = _check_float(op, "hyperpara", hyperpara)
        self.use_clip = _check_bool(op, "use_clip", use_clip)
        super().__init__(epsilon=epsilon, hyperpara=hyperpara, use_clip=use_clip)

    def __call__(self, weight, gradient, norm_weight, norm_gradient, weight_decay,
                 learning_rate):
        op = "LARSUpdate"
        for name, t in (("weight", weight), ("gradient", gradient),
                        ("norm_weight", norm_weight), ("norm_gradient", norm_gradient)):
            _check_tensor(op, name, t, (_C.float16, _C.float32, _C.float64))
        _same_shape(op, weight.shape, gradient.shape)
        w_norm = prim("Sqrt")(prim("Cast")(norm_weight, weight.dtype))
        g_norm = prim("Sqrt")(prim("Cast")(norm_gradient, weight.dtype))
        wd = _as_dtype(weight_decay, weight.dtype)
        ratio = prim("Div")(prim("Mul")(w_norm, self.hyperpara),
                            prim("Add")(prim("Add")(g_norm, prim("Mul")(wd, w_norm)),
                                        self.epsilon))
        one = prim("OnesLike")(ratio)
        both = prim("LogicalAnd")(prim("Greater")(w_norm, 0.0), prim("Greater")(g_norm, 0.0))
        ratio = prim("Select")(both, ratio, one)
        if self.use_clip:
            lr = _as_dtype(learning_rate, weight.dtype)
            ratio = prim("Minimum")(prim("Div")(ratio, lr), one)
        return prim("Mul")(ratio, prim("Add")(gradient, prim("Mul")(wd, weight)))


def _as_dtype(v, dtype):
    """A tensor cast to dtype; a Python number as it is (exact in any dtype's arithmetic)."""
    if isinstance(v, _C.Tensor):
        return prim("Cast")(v, dtype)
    return float(v)


@constexpr
def _same_shape(op, a, b):
    if tuple(a) != tuple(b):
        raise ValueError(f"For '{op}', gradient must have weight's shape {tuple(a)}, but got "
                         f"{tuple(b)}.")
    return True
