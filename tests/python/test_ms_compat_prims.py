"""P.TruncateMod, P.EmbeddingLookup, P.DType, P.Ger, P.Renorm, P.LRN, P.ApplyAdamWithAmsgrad
and ops.strided_slice (composed primitives) against torch/numpy, and Primitive.set_device, in
PYNATIVE and GRAPH mode."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn
from mycel.ops import operations as P
from ms_cell import Fn

RNG = np.random.default_rng(21)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_truncate_mod_matches_torch_fmod(mode, dtype):
    x = (RNG.standard_normal((3, 5)) * 20).astype(dtype)
    y = (RNG.choice([-1, 1], (1, 5)) * RNG.uniform(1, 6, (1, 5))).astype(dtype)
    got = Fn(P.TruncateMod())(ms.Tensor(x), ms.Tensor(y)).asnumpy()
    np.testing.assert_allclose(got, torch.fmod(torch.tensor(x), torch.tensor(y)).numpy(),
                               rtol=1e-6)
    got = Fn(P.TruncateMod())(ms.Tensor(x), 3).asnumpy()
    np.testing.assert_allclose(got, np.fmod(x, dtype(3)), rtol=1e-6)


def test_truncate_mod_of_two_bools_is_a_type_error():
    b = ms.Tensor(np.array([True, False]))
    with pytest.raises(TypeError):
        P.TruncateMod()(b, b)


@pytest.mark.parametrize("offset", [0, 3, -2])
def test_embedding_lookup_shifts_and_zeroes_outside_rows(mode, offset):
    params = RNG.standard_normal((6, 2, 3)).astype(np.float32)
    indices = np.array([[0, 4, 9], [3, 8, -1]], np.int32)
    prim = P.EmbeddingLookup().set_device("CPU")
    assert prim.primitive_target == "CPU"
    got = Fn(prim)(ms.Tensor(params), ms.Tensor(indices), offset).asnumpy()
    want = np.zeros(indices.shape + params.shape[1:], np.float32)
    for pos, i in np.ndenumerate(indices):
        if 0 <= i - offset < params.shape[0]:
            want[pos] = params[i - offset]
    np.testing.assert_array_equal(got, want)


def test_set_device_needs_a_string():
    with pytest.raises(TypeError, match="set_device"):
        P.Add().set_device(1)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_])
def test_dtype_primitive(mode, dtype):
    class Same(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dtype = P.DType()

        def construct(self, x):
            return ms.ops.cast(ms.ops.zeros_like(x), self.dtype(x))

    x = ms.Tensor(np.ones((2, 3), dtype))
    want = {np.float32: ms.float32, np.int64: ms.int64, np.bool_: ms.bool_}[dtype]
    assert P.DType()(x) == want
    assert Same()(x).dtype == want


@pytest.mark.parametrize("begin, end, strides, masks, index", [
    ((1, 0, 3), (2, 3, 0), (1, 2, -1), {}, np.s_[1:2, 0:3:2, 3:0:-1]),
    ((0, 1, 0), (2, 3, 4), (1, 1, 2), {"begin_mask": 0b001, "end_mask": 0b100},
     np.s_[:2, 1:3, 0::2]),
    ((1, 0, 0), (2, 3, 4), (1, 1, 1), {"shrink_axis_mask": 0b001}, np.s_[1, 0:3, 0:4])])
def test_strided_slice_matches_numpy(mode, begin, end, strides, masks, index):
    x = np.arange(24.0).reshape(2, 3, 4)

    class Slice(nn.Cell):
        def construct(self, t):
            return ms.ops.strided_slice(t, begin, end, strides, **masks)

    np.testing.assert_array_equal(Slice()(ms.Tensor(x)).asnumpy(), x[index])


def test_strided_slice_takes_index_tensors():
    x = np.arange(24).reshape(2, 3, 4).astype(np.int32)
    idx = [ms.Tensor(np.array(v, np.int64)) for v in ((1, 0, -1), (2, 3, -5), (1, 2, -1))]
    np.testing.assert_array_equal(ms.ops.strided_slice(ms.Tensor(x), *idx).asnumpy(),
                                  x[1:2, 0:3:2, -1:-5:-1])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_ger_matches_torch_outer(mode, dtype):
    x, y = RNG.standard_normal(3).astype(dtype), RNG.standard_normal(4).astype(dtype)
    want = torch.outer(torch.tensor(x), torch.tensor(y)).numpy()
    for got in (Fn(P.Ger())(ms.Tensor(x), ms.Tensor(y)), ms.ops.ger(ms.Tensor(x), ms.Tensor(y)),
                ms.Tensor(x).ger(ms.Tensor(y))):
        assert got.dtype == ms.Tensor(x).dtype
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-3 if dtype == np.float16 else 1e-7)


def test_ger_vmap_and_errors():
    xs, ys = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 4))
    got = ms.vmap(lambda a, b: P.Ger()(a, b))(ms.Tensor(xs), ms.Tensor(ys)).asnumpy()
    np.testing.assert_allclose(got, np.einsum("bi,bj->bij", xs, ys), rtol=1e-12)
    with pytest.raises(ValueError, match="Ger.*1-d"):
        ms.ops.ger(ms.Tensor(xs), ms.Tensor(ys[0]))
    with pytest.raises(TypeError, match="Ger.*float"):
        ms.ops.ger(ms.Tensor(np.ones(2, np.int32)), ms.Tensor(np.ones(2, np.int32)))


@pytest.mark.parametrize("p, dim, maxnorm", [(1, 0, 10.0), (2, 1, 10.0), (3.5, -1, 4.0),
                                             (2, 2, 100.0)])
def test_renorm_matches_torch(mode, p, dim, maxnorm):
    x = RNG.standard_normal((3, 4, 5)) * 4
    want = torch.renorm(torch.tensor(x), p, dim, maxnorm).numpy()
    np.testing.assert_allclose(Fn(P.Renorm(p, dim, maxnorm))(ms.Tensor(x)).asnumpy(), want,
                               rtol=1e-12)
    np.testing.assert_allclose(ms.Tensor(x).renorm(p, dim, maxnorm).asnumpy(), want, rtol=1e-12)


def test_renorm_errors():
    x = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="Renorm.*'p'"):
        P.Renorm(0, 0, 1.0)(x)
    with pytest.raises(ValueError, match="Renorm.*'axis'"):
        P.Renorm(2, 2, 1.0)(x)
    with pytest.raises(TypeError, match="Renorm.*float"):
        P.Renorm(2, 0, 1.0)(ms.Tensor(np.ones((2, 3), np.int32)))


@pytest.mark.parametrize("radius, bias, alpha, beta", [(5, 1.0, 1.0, 0.5), (1, 2.0, 1e-2, 0.75),
                                                        (0, 1.0, 0.5, 1.0)])
def test_lrn_matches_torch(mode, radius, bias, alpha, beta):
    x = RNG.standard_normal((2, 7, 3, 4))
    size = 2 * radius + 1  # torch divides alpha by the window size, MindSpore does not
    want = torch.nn.functional.local_response_norm(torch.tensor(x), size, alpha * size, beta,
                                                   bias).numpy()
    got = Fn(P.LRN(radius, bias, alpha, beta))(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-10)
    got32 = Fn(P.LRN(radius, bias, alpha, beta))(ms.Tensor(x.astype(np.float32)))
    assert got32.dtype == ms.float32
    np.testing.assert_allclose(got32.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_lrn_errors():
    with pytest.raises(ValueError, match="LRN.*4-d"):
        P.LRN()(ms.Tensor(np.ones((2, 3), np.float32)))
    with pytest.raises(ValueError, match="LRN.*norm_region"):
        P.LRN(norm_region="WITHIN_CHANNEL")(ms.Tensor(np.ones((1, 2, 2, 2), np.float32)))


class Amsgrad(nn.Cell):
    def __init__(self, var, m, v, vhat):
        super().__init__()
        self.opt = P.ApplyAdamWithAmsgrad(0.8, 0.95, 0.0)
        self.var, self.m = ms.Parameter(ms.Tensor(var), "var"), ms.Parameter(ms.Tensor(m), "m")
        self.v, self.vhat = ms.Parameter(ms.Tensor(v), "v"), ms.Parameter(ms.Tensor(vhat), "vh")

    def construct(self, b1p, b2p, lr, grad):
        return self.opt(self.var, self.m, self.v, self.vhat, b1p, b2p, lr, grad)


def test_apply_adam_with_amsgrad_matches_torch_two_steps(mode):
    w = RNG.standard_normal((3, 4))
    grads = [RNG.standard_normal((3, 4)) for _ in range(2)]
    z = np.zeros_like(w)
    net = Amsgrad(w, z, z, z)
    p = torch.tensor(w, requires_grad=True)
    opt = torch.optim.Adam([p], lr=0.1, betas=(0.8, 0.95), eps=0.0, amsgrad=True)
    for t, g in enumerate(grads, 1):
        f64 = [ms.Tensor(v, ms.float64) for v in (0.8 ** t, 0.95 ** t, 0.1)]
        out = net(*f64, ms.Tensor(g))
        p.grad = torch.tensor(g)
        opt.step()
        np.testing.assert_allclose(out[0].asnumpy(), p.detach().numpy(), rtol=1e-10)
        np.testing.assert_allclose(net.var.asnumpy(), p.detach().numpy(), rtol=1e-10)
    st = opt.state[p]
    np.testing.assert_allclose(net.m.asnumpy(), st["exp_avg"].numpy(), rtol=1e-12)
    np.testing.assert_allclose(net.v.asnumpy(), st["exp_avg_sq"].numpy(), rtol=1e-12)
    np.testing.assert_allclose(net.vhat.asnumpy(), st["max_exp_avg_sq"].numpy(), rtol=1e-12)
