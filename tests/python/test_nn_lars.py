"""nn.LARS around Momentum against a numpy transcription of its update rule, in both modes:
the trust ratio on filtered parameters (a bias is left out by the default filter), the
weight decay applied by LARS (not twice), use_clip dividing by the learning rate, and a zero
gradient leaving the ratio at 1; errors for bad arguments."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, Parameter, Tensor


def lars_reference(ws, gs_steps, names, lr, mom, wd, coef, eps, clip):
    ws = [w.copy() for w in ws]
    acc = [np.zeros_like(w) for w in ws]
    for gs in gs_steps:
        for i, (w, g) in enumerate(zip(ws, gs)):
            d = g + wd * w
            if "bias" not in names[i]:
                wn, gn = np.linalg.norm(w), np.linalg.norm(g)
                r = coef * wn / (gn + wd * wn + eps) if wn > 0 and gn > 0 else 1.0
                if clip:
                    r = min(r / lr, 1.0)
                d = r * d
            acc[i] = mom * acc[i] + d
            ws[i] = w - lr * acc[i]
    return ws


@pytest.mark.parametrize("mode", [ms.GRAPH_MODE, ms.PYNATIVE_MODE], ids=["graph", "pynative"])
@pytest.mark.parametrize("clip", [False, True], ids=["noclip", "clip"])
def test_lars_momentum_matches_the_update_rule(mode, clip):
    ms.set_context(mode=mode)
    rng = np.random.default_rng(3)
    names = ["w", "bias", "v"]
    ws = [rng.standard_normal((4, 3)), rng.standard_normal(3), rng.standard_normal((2, 2))]
    params = [Parameter(Tensor(w, ms.float64), n) for w, n in zip(ws, names)]
    opt = nn.LARS(nn.Momentum(params, 0.1, 0.9, weight_decay=0.01), coefficient=0.02,
                  use_clip=clip)
    steps = [[rng.standard_normal(w.shape) for w in ws] for _ in range(3)]
    steps[1][2] = np.zeros_like(ws[2])  # a zero gradient: ratio 1
    for gs in steps:
        opt(tuple(Tensor(g, ms.float64) for g in gs))
    want = lars_reference(ws, steps, names, 0.1, 0.9, 0.01, 0.02, 1e-5, clip)
    for p, w in zip(params, want):
        # (the optimizer's rates are float32 scalars: 1e-7, far below what LARS changes)
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-7, atol=1e-9, err_msg=p.name)


def test_lars_errors():
    p = [Parameter(Tensor(np.ones(2, np.float32)), "p")]
    with pytest.raises(TypeError, match="'optimizer' must be an nn Optimizer"):
        nn.LARS("sgd")
    with pytest.raises(TypeError, match="'use_clip' must be a bool"):
        nn.LARS(nn.SGD(p, 0.1), use_clip=1)
