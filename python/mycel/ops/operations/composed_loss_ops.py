"""Loss primitives of MindSpore 2.x composed from the functional forms (ops/function):
SmoothL1Loss, SoftMarginLoss, the margin losses, BCEWithLogitsLoss,
SigmoidCrossEntropyWithLogits, CTCLoss (TensorFlow's, sparse labels and logits) with
CTCGreedyDecoder, and RNNTLoss (the RNN transducer loss).

Attributes in ``__init__``, inputs in ``__call__``, as MindSpore's. Each is a
_Composed primitive whose __call__ graph mode parses like any function, so both modes
and gradients come from the ops it is built of. The family modules (array_ops, math_ops,
nn_ops, ...) list these classes where MindSpore defines them.
"""
import numpy as np
from mycel import _mycel as _C
from mycel.ops.composite import grad as _grad
from mycel.ops.function import ctc_func as _ctc
from mycel.ops.function import loss_func as _loss
from mycel.ops.function import nn_func as _nnf
from mycel.ops.function._util import prim
from mycel.ops.function._util import prim as _prim
from mycel.ops.operations._compat_checks import _check_bool
from mycel.ops.operations._compat_checks import _check_int
from mycel.ops.operations._compat_checks import _check_tensor
from mycel.ops.operations.composed_ops import _Composed, _exporter
from mycel.ops.primitive import constexpr

__all__ = ["CTCLoss", "RNNTLoss"]


_export = _exporter(__all__, globals())


class _Reduction(_Composed):
    def __init__(self, reduction="mean"):
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"For '{type(self).__name__}', reduction must be 'mean', 'sum' or "
                             f"'none', but got {reduction!r}.")
        super().__init__(reduction=reduction)
        self.reduction = reduction


@_export
class SmoothL1Loss(_Reduction):
    """SmoothL1Loss(beta=1.0, reduction='none')(logits, labels)."""

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        if beta <= 0:
            raise ValueError(f"For 'SmoothL1Loss', beta must be positive, but got {beta}.")
        self.beta = beta

    def __call__(self, logits, labels):
        return _loss.smooth_l1_loss(logits, labels, self.beta, self.reduction)


@_export
class SoftMarginLoss(_Reduction):
    """SoftMarginLoss(reduction='mean')(logits, labels): mean(log(1 + exp(-y x)))."""

    def __call__(self, logits, labels):
        return _loss.soft_margin_loss(logits, labels, self.reduction)


@_export
class MultilabelMarginLoss(_Reduction):
    """MultilabelMarginLoss(reduction='mean')(x, target): (loss, is_target)."""

    def __call__(self, x, target):
        loss = _nnf.multilabel_margin_loss(x, target, self.reduction)
        return loss, _is_target(x, target)


def _is_target(x, target):
    y = _prim("Cast")(target, _C.int64)
    if y.ndim == 1:
        y = _prim("ExpandDims")(y, 0)
    c = y.shape[-1]
    valid = _prim("Equal")(_prim("CumSum")(_prim("Cast")(_prim("Less")(y, 0), _C.int64), 1), 0)
    ys = _prim("Select")(valid, y, _prim("ZerosLike")(y))
    hit = _prim("LogicalAnd")(_prim("ExpandDims")(valid, -1), _prim("Equal")(
        _prim("ExpandDims")(ys, -1), _nnf._classes(c)))
    out = _prim("Cast")(_prim("ReduceMax")(_prim("Cast")(hit, _C.int32), (1,)), target.dtype)
    return _prim("Reshape")(out, target.shape)


@_export
class MultiMarginLoss(_Reduction):
    """MultiMarginLoss(p=1, margin=1.0, reduction='mean')(inputs, target, weight=None)."""

    def __init__(self, p=1, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        self.p, self.margin = p, margin

    def __call__(self, inputs, target, weight=None):
        return _loss.multi_margin_loss(inputs, target, self.p, self.margin, weight,
                                       self.reduction)


@_export
class TripletMarginLoss(_Reduction):
    """TripletMarginLoss(p=2, swap=False, eps=1e-06, reduction='mean')(x, positive,
    negative, margin)."""

    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean"):
        super().__init__(reduction)
        self.p, self.swap, self.eps = p, swap, eps

    def __call__(self, x, positive, negative, margin):
        m = float(margin)  # a tensor's float() names this op when it holds more than one value
        return _loss.triplet_margin_loss(x, positive, negative, m, self.p, self.eps,
                                         self.swap, self.reduction)


@_export
class BCEWithLogitsLoss(_Reduction):
    """BCEWithLogitsLoss(reduction='mean')(logits, label, weight, pos_weight)."""

    def __call__(self, logits, label, weight=None, pos_weight=None):
        return _nnf.binary_cross_entropy_with_logits(logits, label, weight, pos_weight,
                                                    self.reduction)


@_export
class SigmoidCrossEntropyWithLogits(_Composed):
    """SigmoidCrossEntropyWithLogits()(logits, label): the elementwise
    max(x, 0) - x * y + log(1 + exp(-|x|))."""

    def __init__(self):
        super().__init__()

    def __call__(self, logits, label):
        for name, v in (("logits", logits), ("label", label)):
            if not isinstance(v, _C.Tensor):
                raise TypeError(f"For 'SigmoidCrossEntropyWithLogits', {name} must be a "
                                f"Tensor, but got {type(v).__name__}.")
        x = logits
        return (_prim("Maximum")(x, 0.0) - x * label +
                _prim("Log1p")(_prim("Exp")(-_prim("Abs")(x))))


@_export
class CTCGreedyDecoder(_Composed):
    """CTCGreedyDecoder(merge_repeated=True)(inputs, sequence_length): ops.ctc_greedy_decoder
    (PYNATIVE mode: the number of decoded labels depends on the values)."""

    def __init__(self, merge_repeated=True):
        if not isinstance(merge_repeated, bool):
            raise TypeError(f"For 'CTCGreedyDecoder', merge_repeated must be a bool, but got "
                            f"{merge_repeated!r}.")
        super().__init__(merge_repeated=merge_repeated)
        self.merge_repeated = merge_repeated

    def __call__(self, inputs, sequence_length):
        return _ctc.ctc_greedy_decoder(inputs, sequence_length, self.merge_repeated)


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
