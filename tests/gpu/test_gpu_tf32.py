"""device_context.gpu.op_precision on the GPU: float32 MatMul/BatchMatMul and convolutions
(forward and both gradients) with TF32 off are float32-accurate against a float64 oracle,
with TF32 on within TF32's tolerance of it, in PYNATIVE and GRAPH modes; switching back off
restores float32 accuracy (the cuDNN algorithm cache keys on the switch).

Error measure: max |y - y64| / max(|a| @ |b|) (for a convolution, the same over its
im2col products), i.e. relative to the size of the products being summed. float32 with K
terms stays far below 1e-5; TF32 rounds each input to 10 mantissa bits (2**-11 relative),
so its products carry ~1e-3 relative error at most."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, ops
from mycel.device_context.gpu import op_precision

F32_TOL = 1e-5
TF32_TOL = 4e-3


@pytest.fixture(autouse=True)
def _switches_off_after():
    yield
    op_precision.matmul_allow_tf32(False)
    op_precision.conv_allow_tf32(False)


def _rel_err(y, y64, scale):
    return float(np.max(np.abs(y.astype(np.float64) - y64)) / np.max(scale))


def _matmul_errors(mode):
    ms.set_context(device_target="GPU", mode=mode)
    rng = np.random.RandomState(0)
    a = rng.randn(1024, 1024).astype(np.float32)
    b = rng.randn(1024, 768).astype(np.float32)
    ba = rng.randn(4, 96, 512).astype(np.float32)
    bb = rng.randn(4, 512, 80).astype(np.float32)

    @ms.jit
    def graph_mm(x, y):
        return ops.matmul(x, y)

    f = graph_mm if mode == ms.GRAPH_MODE else ops.matmul
    y = f(Tensor(a), Tensor(b)).asnumpy()
    yb = ops.bmm(Tensor(ba), Tensor(bb)).asnumpy()
    e = _rel_err(y, a.astype(np.float64) @ b, np.abs(a).astype(np.float64) @ np.abs(b))
    eb = _rel_err(yb, ba.astype(np.float64) @ bb, np.abs(ba).astype(np.float64) @ np.abs(bb))
    return e, eb


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_matmul_tf32_switch(mode):
    off, off_b = _matmul_errors(mode)
    assert off < F32_TOL and off_b < F32_TOL, (off, off_b)
    op_precision.matmul_allow_tf32(True)
    on, on_b = _matmul_errors(mode)
    assert on < TF32_TOL and on_b < TF32_TOL, (on, on_b)
    # A 1024^3 product on an Ampere-or-later GPU runs on TF32 tensor cores when allowed: its
    # error is that of 10-bit inputs, far above float32's (else the switch did not arrive).
    assert on > 10 * off, (on, off)
    op_precision.matmul_allow_tf32(False)
    again, _ = _matmul_errors(mode)
    assert again < F32_TOL, again


def _conv_oracle(x, w):
    """float64 'valid' cross-correlation by im2col, and the scale |x| (*) |w|."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    ho, wo = h - kh + 1, wd - kw + 1
    cols = np.empty((n, c, kh, kw, ho, wo))
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = x[:, :, i:i + ho, j:j + wo]
    cols = cols.reshape(n, c * kh * kw, ho * wo)
    wm = w.reshape(o, -1).astype(np.float64)
    y = np.einsum("ok,nkp->nop", wm, cols).reshape(n, o, ho, wo)
    s = np.einsum("ok,nkp->nop", np.abs(wm), np.abs(cols)).reshape(n, o, ho, wo)
    return y, s


def _conv_run(mode):
    ms.set_context(device_target="GPU", mode=mode)
    rng = np.random.RandomState(1)
    x = rng.randn(8, 64, 20, 20).astype(np.float32)
    w = rng.randn(64, 64, 3, 3).astype(np.float32)
    dy = rng.randn(8, 64, 18, 18).astype(np.float32)
    conv = ops.Conv2D(64, 3, pad_mode="valid")

    def fwd(xt, wt):
        return conv(xt, wt)

    def loss(xt, wt, d):
        return ops.sum(conv(xt, wt) * d)

    grad = ms.grad(loss, grad_position=(0, 1))
    if mode == ms.GRAPH_MODE:
        fwd, grad = ms.jit(fwd), ms.jit(grad)
    y = fwd(Tensor(x), Tensor(w)).asnumpy()
    dx, dw = (g.asnumpy() for g in grad(Tensor(x), Tensor(w), Tensor(dy)))
    return x, w, dy, y, dx, dw


def _conv_errors(mode):
    x, w, dy, y, dx, dw = _conv_run(mode)
    y64, ys = _conv_oracle(x, w)
    # Gradients' float64 oracle: the CPU kernels on float64 inputs (the same ops).
    ms.set_context(device_target="CPU", mode=ms.PYNATIVE_MODE)
    conv = ops.Conv2D(64, 3, pad_mode="valid")

    def loss(xt, wt, d):
        return ops.sum(conv(xt, wt) * d)

    grad = ms.grad(loss, grad_position=(0, 1))
    f64 = [Tensor(v.astype(np.float64)) for v in (x, w, dy)]
    dx64, dw64 = (g.asnumpy() for g in grad(*f64))
    # Scales of the gradients' sums: the same products of magnitudes.
    dxs, dws = (g.asnumpy() for g in grad(*[Tensor(np.abs(v.asnumpy())) for v in f64]))
    return (_rel_err(y, y64, ys), _rel_err(dx, dx64, dxs), _rel_err(dw, dw64, dws))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_conv_tf32_switch(mode):
    off = _conv_errors(mode)
    assert max(off) < F32_TOL, off
    op_precision.conv_allow_tf32(True)
    on = _conv_errors(mode)
    assert max(on) < TF32_TOL, on
    print(f"conv relative errors (y, dx, dw): TF32 off {off}, on {on}")
    op_precision.conv_allow_tf32(False)
    again = _conv_errors(mode)
    assert max(again) < F32_TOL, again
