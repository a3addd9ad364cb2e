"""The losses added for MindSpore 2.x compatibility (SmoothL1Loss, HuberLoss, KLDivLoss,
BCELoss, MarginRankingLoss, CosineEmbeddingLoss, SoftMarginLoss, MultiLabelSoftMarginLoss,
MultiMarginLoss, TripletMarginLoss, PoissonNLLLoss, GaussianNLLLoss, CTCLoss, MAELoss,
RMSELoss) against PyTorch's functional losses: the value for every reduction and the gradients
w.r.t. the differentiable inputs, through test_nn_layers_more's harness, in PYNATIVE and GRAPH
mode; the functional forms; edge values; argument errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mycel as ms
from mycel import nn, ops

from test_nn_layer_grads import T, mode, rand  # noqa: F401
from test_nn_layers_more import Case, check_case, run

N, C = 4, 5


class TorchLoss(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def signs(*shape, seed):
    return np.where(rand(*shape, seed=seed) > 0, 1.0, -1.0)


def probs(npd, seed, *shape):
    return (1 / (1 + np.exp(-rand(*shape, seed=seed)))).astype(npd)


def log_probs(npd, seed):
    x = rand(N, C, seed=seed).astype(np.float64)
    return (x - np.log(np.exp(x).sum(1, keepdims=True))).astype(npd)


def case(name, make, tfn, inputs, n_grad=1):
    return Case(name, lambda dt: make(), lambda: TorchLoss(tfn), inputs, n_grad=n_grad,
                f64=True)


def two(npd):
    return [rand(N, C, seed=1, dtype=npd) * 2, rand(N, C, seed=2, dtype=npd) * 2]


def kl_inputs(npd):
    target = probs(npd, 3, N, C)
    target[0, 1] = target[2, 3] = 0.0  # zero probabilities contribute 0
    return [log_probs(npd, 4), target]


def kl_log_target(npd):
    return [log_probs(npd, 4), log_probs(npd, 5)]


def bce_inputs(npd):
    return [probs(npd, 6, N, C), probs(npd, 7, N, C)]


def ranking(npd):
    return [rand(N, seed=8, dtype=npd), rand(N, seed=9, dtype=npd),
            signs(N, seed=10).astype(npd)]


def cosine(npd):
    return [rand(N, C, seed=11, dtype=npd), rand(N, C, seed=12, dtype=npd),
            signs(N, seed=13).astype(npd)]


def margin(npd):
    return [rand(N, C, seed=14, dtype=npd), signs(N, C, seed=15).astype(npd)]


def multilabel(npd):
    return [rand(N, C, seed=16, dtype=npd) * 3, (rand(N, C, seed=17) > 0).astype(npd)]


def classes(npd):
    return [rand(N, C, seed=26, dtype=npd), np.array([0, 3, 4, 1], np.int64)]


def triplet(npd):
    return [rand(N, C, seed=18 + i, dtype=npd) for i in range(3)]


def poisson(npd):
    return [rand(N, C, seed=21, dtype=npd), np.abs(rand(N, C, seed=22, dtype=npd)) * 3]


def poisson_rate(npd):
    return [np.abs(rand(N, C, seed=21, dtype=npd)) + 0.1, np.floor(np.abs(rand(
        N, C, seed=22)) * 3).astype(npd)]


def gaussian(var_shape):
    def inputs(npd):
        return [rand(N, C, seed=23, dtype=npd), rand(N, C, seed=24, dtype=npd),
                np.abs(rand(*var_shape, seed=25, dtype=npd)) + 0.2]
    return inputs


W = rand(C, seed=30)


def t(x):
    return torch.from_numpy(np.ascontiguousarray(x))


class _CTC(nn.Cell):
    """CTCLoss of log_softmax(logits): the gradient w.r.t. the logits is well defined (torch's
    CTC backward folds in the log_softmax's)."""

    def __init__(self, **kw):
        super().__init__()
        self.loss = nn.CTCLoss(**kw)

    def construct(self, x, targets, input_lengths, target_lengths):
        return self.loss(ops.log_softmax(x, -1), targets, input_lengths, target_lengths)


def ctc(name, steps, input_lengths, target_lengths, blank=0, reduction="mean",
        zero_infinity=False):
    def inputs(npd):
        labels = [c for c in range(C) if c != blank]
        targets = np.random.default_rng(40).choice(labels, (3, 4)).astype(np.int64)
        targets[0, 1] = targets[0, 0]  # a repeat: the blank between them is needed
        return [rand(steps, 3, C, seed=41, dtype=npd), targets,
                np.array(input_lengths, np.int64), np.array(target_lengths, np.int64)]

    def tfn(x, targets, il, tl):
        return F.ctc_loss(F.log_softmax(x, -1), targets, il, tl, blank, reduction,
                          zero_infinity)
    return Case(name, lambda dt: _CTC(blank=blank, reduction=reduction,
                                      zero_infinity=zero_infinity),
                lambda: TorchLoss(tfn), inputs, f64=True, tol=1e-4)


CASES = [
    ctc("ctc-none", 12, [12, 10, 11], [4, 2, 0], reduction="none"),
    ctc("ctc-mean-blank-2", 9, [9, 9, 5], [3, 4, 1], blank=2),
    ctc("ctc-sum-zero-infinity", 4, [4, 2, 4], [3, 2, 1], reduction="sum", zero_infinity=True),
    # Longer than GRAPH mode unrolls: a compiled loop.
    ctc("ctc-long", 70, [70, 40, 65], [4, 3, 2]),
    case("smooth-l1-default-none", nn.SmoothL1Loss,
         lambda x, y: F.smooth_l1_loss(x, y, reduction="none"), two, 2),
    case("smooth-l1-beta-mean", lambda: nn.SmoothL1Loss(0.5, "mean"),
         lambda x, y: F.smooth_l1_loss(x, y, beta=0.5), two, 2),
    case("smooth-l1-sum", lambda: nn.SmoothL1Loss(2.0, "sum"),
         lambda x, y: F.smooth_l1_loss(x, y, reduction="sum", beta=2.0), two, 2),
    case("huber-mean", nn.HuberLoss, F.huber_loss, two, 2),
    case("huber-delta-none", lambda: nn.HuberLoss("none", 0.7),
         lambda x, y: F.huber_loss(x, y, "none", 0.7), two, 2),
    case("kl-mean", nn.KLDivLoss, lambda x, y: F.kl_div(x, y, reduction="mean"), kl_inputs),
    case("kl-batchmean", lambda: nn.KLDivLoss("batchmean"),
         lambda x, y: F.kl_div(x, y, reduction="batchmean"), kl_inputs),
    case("kl-none", lambda: nn.KLDivLoss("none"),
         lambda x, y: F.kl_div(x, y, reduction="none"), kl_inputs),
    case("kl-fn-log-target-sum", lambda: _Fn(ops.kl_div, reduction="sum", log_target=True),
         lambda x, y: F.kl_div(x, y, reduction="sum", log_target=True), kl_log_target, 2),
    case("bce-mean", nn.BCELoss, F.binary_cross_entropy, bce_inputs),
    case("bce-weight-none", lambda: nn.BCELoss(T(W), "none"),
         lambda x, y: F.binary_cross_entropy(x, y, t(W), reduction="none"), bce_inputs),
    case("margin-ranking", lambda: nn.MarginRankingLoss(0.3),
         lambda a, b, y: F.margin_ranking_loss(a, b, y, 0.3), ranking, 2),
    case("margin-ranking-none", lambda: nn.MarginRankingLoss(reduction="none"),
         lambda a, b, y: F.margin_ranking_loss(a, b, y, reduction="none"), ranking, 2),
    case("cosine-embedding", lambda: nn.CosineEmbeddingLoss(0.2),
         lambda a, b, y: F.cosine_embedding_loss(a, b, y, 0.2), cosine, 2),
    case("cosine-embedding-sum", lambda: nn.CosineEmbeddingLoss(-0.5, "sum"),
         lambda a, b, y: F.cosine_embedding_loss(a, b, y, -0.5, reduction="sum"), cosine, 2),
    case("soft-margin", nn.SoftMarginLoss, F.soft_margin_loss, margin),
    case("soft-margin-none", lambda: nn.SoftMarginLoss("none"),
         lambda x, y: F.soft_margin_loss(x, y, reduction="none"), margin),
    case("multilabel-soft-margin", nn.MultiLabelSoftMarginLoss,
         F.multilabel_soft_margin_loss, multilabel),
    case("multilabel-soft-margin-weight-none",
         lambda: nn.MultiLabelSoftMarginLoss(T(W), "none"),
         lambda x, y: F.multilabel_soft_margin_loss(x, y, t(W), reduction="none"), multilabel),
    case("multi-margin", nn.MultiMarginLoss, F.multi_margin_loss, classes),
    case("multi-margin-p2-weight-sum", lambda: nn.MultiMarginLoss(2, 0.6, "sum", T(W)),
         lambda x, y: F.multi_margin_loss(x, y, 2, 0.6, t(W).to(x.dtype), reduction="sum"),
         classes),
    case("multi-margin-fn-none", lambda: _Fn(ops.multi_margin_loss, margin=2, reduction="none"),
         lambda x, y: F.multi_margin_loss(x, y, margin=2, reduction="none"), classes),
    case("triplet", nn.TripletMarginLoss, F.triplet_margin_loss, triplet, 3),
    case("triplet-p1-swap-sum", lambda: nn.TripletMarginLoss(1, True, reduction="sum",
                                                             margin=0.5),
         lambda a, p, n: F.triplet_margin_loss(a, p, n, 0.5, 1, swap=True, reduction="sum"),
         triplet, 3),
    case("triplet-p3-none", lambda: nn.TripletMarginLoss(3, reduction="none", margin=2.0),
         lambda a, p, n: F.triplet_margin_loss(a, p, n, 2.0, 3, reduction="none"), triplet, 3),
    case("poisson-log-input", nn.PoissonNLLLoss, F.poisson_nll_loss, poisson),
    case("poisson-rate-full-none", lambda: nn.PoissonNLLLoss(False, True, reduction="none"),
         lambda x, y: F.poisson_nll_loss(x, y, False, True, reduction="none"), poisson_rate),
    case("gaussian", nn.GaussianNLLLoss, F.gaussian_nll_loss, gaussian((N, C)), 3),
    case("gaussian-var-short-full-sum", lambda: nn.GaussianNLLLoss(full=True, reduction="sum"),
         lambda x, y, v: F.gaussian_nll_loss(x, y, v, full=True, reduction="sum"),
         gaussian((N,)), 3),
    case("gaussian-var-unit-none", lambda: nn.GaussianNLLLoss(reduction="none"),
         lambda x, y, v: F.gaussian_nll_loss(x, y, v, reduction="none"), gaussian((N, 1)), 3),
    case("mae", nn.MAELoss, F.l1_loss, two, 2),
    case("rmse", nn.RMSELoss, lambda x, y: torch.sqrt(F.mse_loss(x, y)), two, 2),
]


class _Fn(nn.Cell):
    """A cell calling a functional loss with fixed keyword arguments."""

    def __init__(self, fn, **kw):
        super().__init__()
        self.fn, self.kw = fn, kw

    def construct(self, x, y):
        return self.fn(x, y, **self.kw)


PARAMS = [pytest.param(c, ms.float32, id=c.name) for c in CASES] + \
    [pytest.param(c, ms.float64, id=c.name + "-f64") for c in CASES if c.f64]


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")
@pytest.mark.parametrize("case,dtype", PARAMS)
def test_loss_and_gradients_match_torch(mode, case, dtype):
    check_case(case, dtype)


def test_functional_forms_and_edge_values(mode):
    x, y = two(np.float32)
    np.testing.assert_allclose(run(lambda a, b: ops.smooth_l1_loss(a, b, 0.5, "sum"), x, y),
                               F.smooth_l1_loss(t(x), t(y), beta=0.5, reduction="sum"),
                               rtol=1e-5)
    np.testing.assert_allclose(run(lambda a, b: ops.huber_loss(a, b, "none", 0.3), x, y),
                               F.huber_loss(t(x), t(y), "none", 0.3), rtol=1e-5, atol=1e-7)
    # Probabilities of exactly 0 and 1: the logs are clamped at -100, the loss stays finite.
    p = np.array([0.0, 1.0, 0.5, 1.0], np.float32)
    lab = np.array([1.0, 0.0, 1.0, 1.0], np.float32)
    np.testing.assert_allclose(run(lambda a, b: ops.binary_cross_entropy(a, b, None, "none"),
                                   p, lab),
                               F.binary_cross_entropy(t(p), t(lab), reduction="none"),
                               rtol=1e-6)
    # Large margins: no overflow in the softplus forms.
    big = np.array([[80.0, -80.0]], np.float32)
    np.testing.assert_allclose(run(lambda a, b: ops.soft_margin_loss(a, b, "none"), big,
                                   np.array([[-1.0, 1.0]], np.float32)),
                               [[80.0, 80.0]], rtol=1e-6)
    np.testing.assert_allclose(run(lambda a, b: ops.multilabel_soft_margin_loss(a, b), big,
                                   np.array([[0.0, 1.0]], np.float32)), 80.0, rtol=1e-6)
    a, pos, neg = triplet(np.float32)
    np.testing.assert_allclose(
        run(lambda a, p, n: ops.triplet_margin_loss(a, p, n, 0.7, 2, 1e-6, True), a, pos, neg),
        F.triplet_margin_loss(t(a), t(pos), t(neg), 0.7, swap=True), rtol=1e-5)
    # TripletMarginLoss's construct margin overrides the one given at construction.
    got = nn.TripletMarginLoss(margin=0.1)(T(a), T(pos), T(neg), 3.0).asnumpy()
    np.testing.assert_allclose(got, F.triplet_margin_loss(t(a), t(pos), t(neg), 3.0),
                               rtol=1e-5)


def test_ctc_impossible_target_is_inf(mode):
    lp = np.log(np.full((2, 1, 3), 1 / 3, np.float32))
    args = [T(lp), T(np.array([[1, 1]], np.int64)), T(np.array([2], np.int64)),
            T(np.array([2], np.int64))]
    assert np.isinf(nn.CTCLoss(reduction="none")(*args).asnumpy()).all()
    assert nn.CTCLoss(zero_infinity=True)(*args).asnumpy() == 0
    # Two steps spell [1] as 1-1, 1-blank or blank-1: p = 3 / 9.
    args[1], args[3] = T(np.array([[1, 0]], np.int64)), T(np.array([1], np.int64))
    np.testing.assert_allclose(nn.CTCLoss(reduction="sum")(*args).asnumpy(), -np.log(3 / 9),
                               rtol=1e-6)


def test_gaussian_clamps_small_variance(mode):
    x = np.array([[1.0, 2.0]], np.float32)
    got = nn.GaussianNLLLoss(eps=0.5, reduction="none")(T(x), T(x * 0), T(x * 0 + 1e-9))
    np.testing.assert_allclose(got.asnumpy(), 0.5 * (np.log(0.5) + x ** 2 / 0.5), rtol=1e-6)


@pytest.mark.parametrize("make,exc,msg", [
    (lambda: nn.SmoothL1Loss(reduction="batchmean"), ValueError, "'reduction' must be one of"),
    (lambda: nn.SmoothL1Loss(beta=0), ValueError, "'beta' must be positive"),
    (lambda: nn.HuberLoss(delta="1"), TypeError, "'delta' must be a float"),
    (lambda: nn.KLDivLoss("avg"), ValueError, "'reduction' must be one of"),
    (lambda: nn.CosineEmbeddingLoss(2.0), ValueError, r"'margin' must be in \[-1, 1\]"),
    (lambda: nn.TripletMarginLoss(p=0), ValueError, "'p' must be a positive int"),
    (lambda: nn.TripletMarginLoss(swap=1), TypeError, "'swap' must be a bool"),
    (lambda: nn.PoissonNLLLoss(eps=-1.0), ValueError, "'eps' must be positive"),
    (lambda: nn.BCELoss(reduction="max"), ValueError, "'BCELoss', 'reduction'"),
    (lambda: nn.MultiMarginLoss(p=3), ValueError, "'p' must be 1 or 2"),
    (lambda: nn.CTCLoss(blank=-1), TypeError, "'blank' must be a non-negative int"),
    (lambda: nn.CTCLoss(zero_infinity=0), TypeError, "'zero_infinity' must be a bool"),
])
def test_construction_errors(make, exc, msg):
    with pytest.raises(exc, match=msg):
        make()


@pytest.mark.parametrize("call,exc,msg", [
    (lambda: nn.CosineEmbeddingLoss()(T(rand(3, 4)), T(rand(3, 5)), T(np.ones(3, np.float32))),
     ValueError, "'cosine_embedding_loss', the inputs must have the same shape"),
    (lambda: nn.GaussianNLLLoss()(T(rand(3, 4)), T(rand(3, 4)), T(rand(4) ** 2)),
     ValueError, "'gaussian_nll_loss', var must have"),
    (lambda: nn.SmoothL1Loss()(T(rand(3, 4)), T(rand(3, 5))), ValueError, "broadcast"),
    (lambda: nn.MultiMarginLoss()(T(rand(3, 4)), T(np.zeros(2, np.int64))), ValueError,
     r"the input must be \[N, C\] and the target \[N\]"),
    (lambda: nn.MultiMarginLoss()(T(rand(3, 4)), T(np.zeros(3, np.float32))), TypeError,
     "class indices"),
    (lambda: nn.CTCLoss()(T(rand(5, 2, 4)), T(np.ones((2, 3), np.float32)),
                          T(np.full(2, 5, np.int64)), T(np.full(2, 3, np.int64))), TypeError,
     "targets must be an integer tensor"),
    (lambda: nn.CTCLoss()(T(rand(5, 4)), T(np.ones((2, 3), np.int64)),
                          T(np.full(2, 5, np.int64)), T(np.full(2, 3, np.int64))), ValueError,
     r"log_probs must be a float32 or float64 tensor \[T, N, C\]"),
    (lambda: nn.CTCLoss()(T(rand(5, 2, 4)), T(np.ones((3, 3), np.int64)),
                          T(np.full(2, 5, np.int64)), T(np.full(2, 3, np.int64))), ValueError,
     r"targets must be \[N, S\]"),
    (lambda: nn.CTCLoss()(T(rand(5, 2, 4)), T(np.ones((2, 3), np.int64)),
                          T(np.full(3, 5, np.int64)), T(np.full(2, 3, np.int64))), ValueError,
     r"input_lengths must have shape \(2,\)"),
    (lambda: nn.CTCLoss(blank=4)(T(rand(5, 2, 4)), T(np.ones((2, 3), np.int64)),
                                 T(np.full(2, 5, np.int64)), T(np.full(2, 3, np.int64))),
     ValueError, r"blank must be an int in \[0, 4\)"),
])
def test_call_errors(mode, call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()
