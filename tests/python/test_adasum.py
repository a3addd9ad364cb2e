"""Adasum (nn.AdaSumByGradWrapCell, nn.AdaSumByDeltaWeightWrapCell; issue #20) on real ranks
(Gloo, 2 and 4 processes, GRAPH and PYNATIVE mode): after two steps every rank's weights equal
a numpy computation of the recursive pairwise combination
a + b - (a.b)/(2|a|^2) a - (a.b)/(2|b|^2) b over the ranks' gradients (or weight changes),
tensor by tensor; plus the pair rule itself and the errors outside a job."""
import json
import textwrap

import numpy as np
import pytest

import mycel as ms
from mycel import nn, Tensor
from mycel.nn.optim.adasum import adasum_pair
from distributed import run_gloo

SHAPES = [(3, 4), (5,)]
W0 = [np.linspace(-1, 1, 12).reshape(3, 4), np.linspace(0.5, -0.5, 5)]

WORKER = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mycel as ms
    from mycel import nn, Parameter, Tensor
    from mycel.communication import init, get_rank

    init()
    rank = get_rank()
    ms.set_context(mode=ms.GRAPH_MODE if sys.argv[1] == "graph" else ms.PYNATIVE_MODE)
    W0 = [np.linspace(-1, 1, 12).reshape(3, 4), np.linspace(0.5, -0.5, 5)]
    out = {}
    for kind in ("grad", "delta"):
        params = [Parameter(Tensor(w, ms.float64), f"w{i}") for i, w in enumerate(W0)]
        opt = nn.Momentum(params, 0.1, 0.5)
        wrap = (nn.AdaSumByGradWrapCell if kind == "grad" else nn.AdaSumByDeltaWeightWrapCell)(opt)
        for step in range(2):
            rng = np.random.default_rng(100 * rank + step)
            grads = [rng.standard_normal(w.shape) for w in W0]
            if rank == 1 and step == 0:
                grads[1] = np.zeros(5)  # a zero tensor: its coefficient is 0
            wrap(tuple(Tensor(g, ms.float64) for g in grads))
        out[kind] = [p.asnumpy().tolist() for p in params]
    print("RESULT " + json.dumps(out), flush=True)
""")


def _np_pair(a, b):
    dot = float((a * b).sum())
    ca = dot / (2 * (a * a).sum()) if (a * a).sum() > 0 else 0.0
    cb = dot / (2 * (b * b).sum()) if (b * b).sum() > 0 else 0.0
    return a + b - ca * a - cb * b


def _np_tree(xs):
    while len(xs) > 1:
        xs = [_np_pair(xs[i], xs[i + 1]) for i in range(0, len(xs), 2)]
    return xs[0]


def _grads(n, step):
    out = []
    for rank in range(n):
        rng = np.random.default_rng(100 * rank + step)
        g = [rng.standard_normal(w.shape) for w in W0]
        if rank == 1 and step == 0:
            g[1] = np.zeros(5)
        out.append(g)
    return out


def _oracle(n):
    """Momentum(lr 0.1, 0.5) steps: on the combined gradients ('grad'), or each rank's own
    step with the weight changes combined ('delta', each rank keeping its own moments)."""
    w, m = [x.copy() for x in W0], [np.zeros_like(x) for x in W0]
    for step in range(2):
        gs = _grads(n, step)
        for i in range(len(W0)):
            g = _np_tree([gs[r][i] for r in range(n)])
            m[i] = 0.5 * m[i] + g
            w[i] = w[i] - 0.1 * m[i]
    grad = w
    w = [x.copy() for x in W0]
    moms = [[np.zeros_like(x) for x in W0] for _ in range(n)]
    for step in range(2):
        gs = _grads(n, step)
        for i in range(len(W0)):
            deltas = []
            for r in range(n):
                moms[r][i] = 0.5 * moms[r][i] + gs[r][i]
                deltas.append(-0.1 * moms[r][i])
            w[i] = w[i] + _np_tree(deltas)
    return {"grad": grad, "delta": w}


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_adasum_matches_numpy(tmp_path, n, mode):
    script = tmp_path / "adasum_worker.py"
    script.write_text(WORKER)
    results = run_gloo(script, n, args=(mode,), timeout=240)
    want = _oracle(n)
    for rank, (rc, out) in enumerate(results):
        assert rc == 0, f"rank {rank} failed:\n{out}"
        got = json.loads(out.split("RESULT ", 1)[1].splitlines()[0])
        for kind in ("grad", "delta"):
            for g, w in zip(got[kind], want[kind]):
                np.testing.assert_allclose(np.array(g), w, rtol=1e-6, atol=1e-9,
                                           err_msg=f"{kind} rank {rank}")
    # the combination is not the plain mean or sum
    plain = W0[0] - 0.1 * np.mean([g[0] for g in _grads(n, 0)], axis=0)
    assert not np.allclose(want["grad"][0], plain)


def test_adasum_pair_rule(mode):
    a, b = np.array([1.0, 0.0]), np.array([0.0, 2.0])
    got = adasum_pair(Tensor(a), Tensor(b)).asnumpy()
    np.testing.assert_allclose(got, a + b)  # orthogonal: the sum
    got = adasum_pair(Tensor(a), Tensor(a)).asnumpy()
    np.testing.assert_allclose(got, a)      # equal: the average
    c = np.array([0.3, -1.2])
    np.testing.assert_allclose(adasum_pair(Tensor(a), Tensor(c)).asnumpy(), _np_pair(a, c))


def test_adasum_errors():
    p = [ms.Parameter(Tensor(np.ones(2, np.float32)), "p")]
    with pytest.raises(TypeError, match="'optimizer' must be an nn Optimizer"):
        nn.AdaSumByGradWrapCell("sgd")
    with pytest.raises(RuntimeError, match="Adasum needs a distributed job"):
        nn.AdaSumByDeltaWeightWrapCell(nn.SGD(p, 0.1))
