"""The 1-d and transposed convolutions, the 1-d and adaptive poolings, Upsample and
PixelShuffle/PixelUnshuffle against PyTorch on the same weights and inputs (forward, and the
gradients w.r.t. the input and every Parameter, through test_nn_layers_more's harness), in
PYNATIVE and GRAPH mode; odd sizes, MindSpore's 'same'/'valid' rules (the torch side pads or
crops explicitly), the functional forms, and argument errors naming the layer."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import mycel as ms
from mycel import nn, ops

from test_nn_layer_grads import T, mode, rand, same_pad  # noqa: F401
from test_nn_layers_more import Case, check_case, run


class TorchFn(torch.nn.Module):
    """A torch module computing fn(x, weight, bias) with the given parameter shapes."""

    def __init__(self, fn, weight_shape=None, bias_shape=None):
        super().__init__()
        self.fn = fn
        if weight_shape is not None:
            self.weight = torch.nn.Parameter(torch.zeros(weight_shape))
        self.bias = torch.nn.Parameter(torch.zeros(bias_shape)) if bias_shape else None

    def forward(self, x):
        return self.fn(x, getattr(self, "weight", None), self.bias)


def x_in(*shape):
    return lambda npd: [rand(*shape, seed=1, dtype=npd)]


# ---- convolutions -----------------------------------------------------------------------------

def conv1d_ref(net, length):
    """torch conv1d with MindSpore's padding of a length-`length` input made explicit."""
    k, s, d = net.kernel_size, net.stride, net.dilation
    if net.pad_mode == "same":
        pad = same_pad(length, k, s, d)
    else:
        pad = net.padding
    return lambda x, w, b: F.conv1d(F.pad(x, pad), w, b, stride=s, dilation=d,
                                    groups=net.group)


def conv1d(name, length=11, **kw):
    def make(dt):
        return nn.Conv1d(4, 6, 3, dtype=dt, **kw)
    net = make(ms.float32)
    return Case(name, make, lambda: TorchFn(conv1d_ref(net, length), net.weight.shape,
                                            (6,) if net.has_bias else None),
                x_in(2, 4, length), f64=True)


def crop_full(full, sizes, starts):
    """full[..., start:start + size] on the trailing axes, zero-padded where it runs past."""
    for k, (size, start) in enumerate(zip(sizes, starts)):
        axis = full.ndim - len(sizes) + k
        extra = max(start + size - full.shape[axis], 0)
        pad = [0, 0] * (full.ndim - axis - 1) + [0, extra]
        full = F.pad(full, pad).narrow(axis, start, size)
    return full


def transposed_ref(net, in_sizes, out_sizes, two_d):
    """The transposed convolution as torch's unpadded conv_transpose (the full output), cropped
    to the layer's output size from the forward convolution's leading pad (MindSpore's rule:
    'same' pads like Conv2d 'same' on the output size, 'valid' none, 'pad' the given ones)."""
    ks = net.kernel_size if two_d else (net.kernel_size,)
    st = net.stride if two_d else (net.stride,)
    dil = net.dilation if two_d else (net.dilation,)
    if net.pad_mode == "same":
        starts = [same_pad(o, k, s, d)[0] for o, k, s, d in zip(out_sizes, ks, st, dil)]
    elif net.pad_mode == "valid":
        starts = [0] * len(ks)
    else:
        starts = [net.padding[0], net.padding[2]] if two_d else [net.padding[0]]
    conv = F.conv_transpose2d if two_d else F.conv_transpose1d

    def ref(x, w, b):
        full = conv(x, w, None, stride=st, dilation=dil, groups=net.group)
        out = crop_full(full, out_sizes, starts)
        return out if b is None else out + b.reshape((-1,) + (1,) * len(ks))
    return ref


def transposed(name, cls, x_shape, out_sizes, **kw):
    two_d = cls is nn.Conv2dTranspose

    def make(dt):
        return cls(4, 6, (3, 2) if two_d else 3, dtype=dt, **kw)
    net = make(ms.float32)
    ref = transposed_ref(net, x_shape[2:], out_sizes, two_d)
    return Case(name, make, lambda: TorchFn(ref, net.weight.shape,
                                            (6,) if net.has_bias else None),
                x_in(*x_shape), f64=True)


CONV = [
    conv1d("conv1d-same-s2-d2-bias", stride=2, dilation=2, has_bias=True),
    conv1d("conv1d-pad-group", pad_mode="pad", padding=(1, 2), group=2),
    conv1d("conv1d-valid-s3", length=10, pad_mode="valid", stride=3, has_bias=True),
    transposed("conv2dT-same-s2", nn.Conv2dTranspose, (2, 4, 5, 3), (10, 6), stride=2),
    transposed("conv2dT-same-s31", nn.Conv2dTranspose, (2, 4, 5, 3), (15, 3), stride=(3, 1),
               has_bias=True),
    transposed("conv2dT-valid-group", nn.Conv2dTranspose, (2, 4, 5, 4), (11, 16),
               pad_mode="valid", stride=(2, 4), group=2, has_bias=True),
    transposed("conv2dT-pad-dil-outpad", nn.Conv2dTranspose, (2, 4, 4, 5), (9, 9),
               pad_mode="pad", padding=(1, 2, 0, 1), stride=2, dilation=(2, 1),
               output_padding=(1, 0)),
    transposed("conv2dT-same-dil", nn.Conv2dTranspose, (2, 4, 4, 5), (8, 5),
               stride=(2, 1), dilation=(2, 3), has_bias=True),
    transposed("conv1dT-same-s3", nn.Conv1dTranspose, (2, 4, 7), (21,), stride=3),
    transposed("conv1dT-valid", nn.Conv1dTranspose, (2, 4, 7), (15,), pad_mode="valid",
               stride=2, has_bias=True),
    transposed("conv1dT-pad-group-outpad", nn.Conv1dTranspose, (2, 4, 6), (11,),
               pad_mode="pad", padding=(2, 1), stride=2, group=2, output_padding=1),
]


# ---- pooling, resampling ----------------------------------------------------------------------

def cell(name, make, tfn, shape, f64=True):
    return Case(name, lambda dt: make(), lambda: TorchFn(lambda x, w, b: tfn(x)), x_in(*shape),
                f64=f64)


POOL = [
    cell("maxpool1d", lambda: nn.MaxPool1d(3, 2), lambda x: F.max_pool1d(x, 3, 2), (2, 3, 10)),
    cell("maxpool1d-pad-ceil-unbatched", lambda: nn.MaxPool1d(3, 2, "pad", 1, ceil_mode=True),
         lambda x: F.max_pool1d(x, 3, 2, 1, ceil_mode=True), (3, 10)),
    cell("maxpool1d-same", lambda: nn.MaxPool1d(4, 3, "same"),
         lambda x: F.max_pool1d(F.pad(x, same_pad(11, 4, 3), value=-math.inf), 4, 3),
         (2, 3, 11)),
    cell("avgpool1d-same-pad-not-counted", lambda: nn.AvgPool1d(3, 2, "same"),
         lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False), (2, 3, 9)),
    cell("avgpool1d-pad", lambda: nn.AvgPool1d(4, 3, "pad", (2, 2)),
         lambda x: F.avg_pool1d(x, 4, 3, 2), (2, 3, 11)),
    cell("avgpool1d-pad-no-count", lambda: nn.AvgPool1d(3, 2, "pad", 1,
                                                        count_include_pad=False),
         lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False), (2, 3, 9)),
    cell("adaptive-avg1d", lambda: nn.AdaptiveAvgPool1d(4),
         lambda x: F.adaptive_avg_pool1d(x, 4), (2, 3, 11)),
    cell("adaptive-avg1d-grow", lambda: nn.AdaptiveAvgPool1d(7),
         lambda x: F.adaptive_avg_pool1d(x, 7), (3, 5)),
    cell("adaptive-avg2d", lambda: nn.AdaptiveAvgPool2d((3, 5)),
         lambda x: F.adaptive_avg_pool2d(x, (3, 5)), (2, 3, 7, 10)),
    cell("adaptive-avg2d-none", lambda: nn.AdaptiveAvgPool2d((None, 2)),
         lambda x: F.adaptive_avg_pool2d(x, (None, 2)), (3, 5, 9)),
    cell("adaptive-max1d", lambda: nn.AdaptiveMaxPool1d(3),
         lambda x: F.adaptive_max_pool1d(x, 3), (2, 3, 10)),
    cell("adaptive-max2d", lambda: nn.AdaptiveMaxPool2d((4, 3)),
         lambda x: F.adaptive_max_pool2d(x, (4, 3)), (2, 3, 7, 10)),
    cell("adaptive-max2d-int-grow", lambda: nn.AdaptiveMaxPool2d(6),
         lambda x: F.adaptive_max_pool2d(x, 6), (2, 2, 4, 9)),
    cell("adaptive-avg3d", lambda: nn.AdaptiveAvgPool3d((2, None, 3)),
         lambda x: F.adaptive_avg_pool3d(x, (2, None, 3)), (2, 2, 5, 4, 7)),
    cell("adaptive-avg3d-unbatched-grow", lambda: nn.AdaptiveAvgPool3d(4),
         lambda x: F.adaptive_avg_pool3d(x, 4), (2, 3, 5, 6)),
    cell("adaptive-max3d", lambda: nn.AdaptiveMaxPool3d((3, 2, 4)),
         lambda x: F.adaptive_max_pool3d(x, (3, 2, 4)), (2, 2, 5, 4, 7)),
    cell("upsample-nearest-x2", lambda: nn.Upsample(scale_factor=2),
         lambda x: F.interpolate(x, scale_factor=2), (2, 3, 4, 5)),
    cell("upsample-nearest-size", lambda: nn.Upsample(size=(7, 3)),
         lambda x: F.interpolate(x, size=(7, 3)), (2, 3, 4, 5)),
    cell("upsample-nearest-scale-1.7", lambda: nn.Upsample(scale_factor=1.7),
         lambda x: F.interpolate(x, scale_factor=1.7), (2, 3, 5)),
    cell("upsample-nearest-exact", lambda: nn.Upsample(size=(9, 4), mode="nearest-exact"),
         lambda x: F.interpolate(x, size=(9, 4), mode="nearest-exact"), (2, 3, 5, 7)),
    cell("upsample-linear", lambda: nn.Upsample(size=9, mode="linear"),
         lambda x: F.interpolate(x, size=9, mode="linear"), (2, 3, 5)),
    cell("upsample-linear-align", lambda: nn.Upsample(scale_factor=2.5, mode="linear",
                                                      align_corners=True),
         lambda x: F.interpolate(x, scale_factor=2.5, mode="linear", align_corners=True),
         (2, 3, 5)),
    cell("upsample-bilinear", lambda: nn.Upsample(scale_factor=(1.5, 2.3), mode="bilinear"),
         lambda x: F.interpolate(x, scale_factor=(1.5, 2.3), mode="bilinear"), (2, 3, 5, 4)),
    cell("upsample-bilinear-recompute",
         lambda: nn.Upsample(scale_factor=1.5, mode="bilinear", recompute_scale_factor=True),
         lambda x: F.interpolate(x, scale_factor=1.5, mode="bilinear",
                                 recompute_scale_factor=True), (2, 3, 5, 4)),
    cell("upsample-bilinear-align-shrink", lambda: nn.Upsample(size=(3, 2), mode="bilinear",
                                                               align_corners=True),
         lambda x: F.interpolate(x, size=(3, 2), mode="bilinear", align_corners=True),
         (2, 3, 7, 5)),
    cell("upsample-area", lambda: nn.Upsample(size=(3, 4), mode="area"),
         lambda x: F.interpolate(x, size=(3, 4), mode="area"), (2, 3, 7, 9)),
    cell("pixel-shuffle", lambda: nn.PixelShuffle(2), lambda x: F.pixel_shuffle(x, 2),
         (2, 8, 3, 5)),
    cell("pixel-shuffle-5d", lambda: nn.PixelShuffle(3), lambda x: F.pixel_shuffle(x, 3),
         (2, 2, 9, 2, 3)),
    cell("pixel-unshuffle", lambda: nn.PixelUnshuffle(2), lambda x: F.pixel_unshuffle(x, 2),
         (2, 3, 4, 6)),
]

CASES = CONV + POOL
PARAMS = [pytest.param(c, ms.float32, id=c.name) for c in CASES] + \
    [pytest.param(c, ms.float64, id=c.name + "-f64") for c in CASES if c.f64]


@pytest.mark.parametrize("case,dtype", PARAMS)
def test_layer_forward_and_gradients_match_torch(mode, case, dtype):
    check_case(case, dtype)


# ---- functional forms ----------------------------------------------------------------------

def tt(x):
    return torch.from_numpy(x)


def test_functional_forms_match_torch(mode):
    x2, w2 = rand(2, 4, 5, 6, seed=1), rand(4, 3, 3, 2, seed=2)
    b3 = rand(6, seed=3)
    got = run(lambda x, w, b: ops.conv_transpose2d(x, w, b, stride=(2, 3), padding=(1, 0),
                                                   output_padding=(1, 2), groups=2),
              x2, w2, b3)
    want = F.conv_transpose2d(tt(x2), tt(w2), tt(b3), stride=(2, 3), padding=(1, 0),
                              output_padding=(1, 2), groups=2)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)

    x1, w1 = rand(2, 4, 9, seed=4), rand(6, 2, 3, seed=5)
    got = run(lambda x, w, b: ops.conv1d(x, w, b, stride=2, pad_mode="pad", padding=1,
                                         dilation=2, groups=2), x1, w1, b3)
    want = F.conv1d(tt(x1), tt(w1), tt(b3), stride=2, padding=1, dilation=2, groups=2)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)

    x = rand(2, 3, 7, 10, seed=6)
    for fn, tfn in [(lambda t: ops.adaptive_avg_pool2d(t, (3, 4)),
                     lambda t: F.adaptive_avg_pool2d(t, (3, 4))),
                    (lambda t: ops.adaptive_max_pool2d(t, 5),
                     lambda t: F.adaptive_max_pool2d(t, 5)),
                    (lambda t: ops.adaptive_avg_pool1d(t[0], 3),
                     lambda t: F.adaptive_avg_pool1d(t[0], 3)),
                    (lambda t: ops.adaptive_max_pool1d(t[0], 4),
                     lambda t: F.adaptive_max_pool1d(t[0], 4)),
                    (lambda t: ops.adaptive_avg_pool3d(t, (2, 3, 4)),
                     lambda t: F.adaptive_avg_pool3d(t, (2, 3, 4))),
                    (lambda t: ops.adaptive_max_pool3d(t, 3),
                     lambda t: F.adaptive_max_pool3d(t, 3)),
                    (lambda t: ops.interpolate(t, size=(4, 13), mode="bilinear",
                                               align_corners=True),
                     lambda t: F.interpolate(t, size=(4, 13), mode="bilinear",
                                             align_corners=True)),
                    (lambda t: ops.interpolate(t, scale_factor=0.6),
                     lambda t: F.interpolate(t, scale_factor=0.6)),
                    (lambda t: ops.pixel_shuffle(ops.pixel_unshuffle(t[:, :, :4, :8], 2), 2),
                     lambda t: t[:, :, :4, :8])]:
        np.testing.assert_allclose(run(fn, x), tfn(tt(x)).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make,tfn,shape", [
    (lambda: nn.AdaptiveMaxPool2d((3, 4), return_indices=True),
     lambda x: F.adaptive_max_pool2d(x, (3, 4), return_indices=True), (2, 3, 7, 10)),
    (lambda: nn.AdaptiveMaxPool2d(5, True), lambda x: F.adaptive_max_pool2d(x, 5, True),
     (3, 4, 3)),
    (lambda: nn.AdaptiveMaxPool3d((2, None, 3), True),
     lambda x: F.adaptive_max_pool3d(x, (2, None, 3), True), (2, 2, 5, 4, 7)),
    (lambda: lambda x: ops.adaptive_max_pool1d(x, 4, return_indices=True),
     lambda x: F.adaptive_max_pool1d(x, 4, return_indices=True), (2, 3, 10)),
])
def test_adaptive_max_pool_indices(mode, make, tfn, shape):
    """The maxima and the flat indices of each into the pooled axes, as torch's; the
    gradient reaches the maxima."""
    x = rand(*shape, seed=11)
    fn = make()
    out, idx = (ms.jit(fn) if mode == ms.GRAPH_MODE and not isinstance(fn, nn.Cell) else
                fn)(T(x))
    want, want_idx = tfn(torch.from_numpy(x))
    assert idx.dtype == ms.int64
    np.testing.assert_allclose(out.asnumpy(), want.numpy(), rtol=1e-6)
    np.testing.assert_array_equal(idx.asnumpy(), want_idx.numpy())
    grad = ms.grad(lambda t: fn(t)[0].sum())(T(x))
    tx = torch.from_numpy(x).requires_grad_(True)
    tfn(tx)[0].sum().backward()
    np.testing.assert_allclose(grad.asnumpy(), tx.grad.numpy(), rtol=1e-6)


def test_parameter_shapes_and_defaults():
    c1 = nn.Conv1d(4, 6, 3, group=2, has_bias=True)
    assert (c1.weight.shape, c1.bias.shape, c1.pad_mode) == ((6, 2, 3), (6,), "same")
    t2 = nn.Conv2dTranspose(4, 6, 3, group=2)
    assert (t2.weight.shape, t2.bias, t2.pad_mode) == ((4, 3, 3, 3), None, "same")
    t1 = nn.Conv1dTranspose(4, 6, 5, has_bias=True)
    assert [p.name for p in t1.get_parameters()] == ["weight", "bias"]
    assert t1.weight.shape == (4, 6, 5)
    # HeUniform(sqrt(5)): U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = weight.shape[1] * k.
    bound = 1 / np.sqrt(6 * 5)
    w = t1.weight.asnumpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    assert "output_channels=6" in repr(t1)


def test_unbatched_and_odd_sizes(mode):
    x = rand(3, 1, seed=7)
    out = nn.AdaptiveAvgPool1d(4)(T(x))
    np.testing.assert_allclose(out.asnumpy(), np.repeat(x, 4, axis=1), rtol=1e-6)
    y = rand(1, 1, 1, 1, seed=8)
    out = nn.Upsample(size=(3, 2), mode="bilinear")(T(y))
    np.testing.assert_allclose(out.asnumpy(), np.broadcast_to(y, (1, 1, 3, 2)), rtol=1e-6)


@pytest.mark.parametrize("make,exc,msg", [
    (lambda: nn.Conv1d(4, 6, 3, padding=1), ValueError, "padding must be zero"),
    (lambda: nn.Conv1d(4, 6, (3, 3)), TypeError, "'kernel_size' must be an int"),
    (lambda: nn.Conv1d(4, 6, 3, group=4), ValueError, "divisible by group"),
    (lambda: nn.Conv2dTranspose(4, 6, 3, output_padding=1), ValueError,
     "output_padding must be 0 unless pad_mode is 'pad'"),
    (lambda: nn.Conv2dTranspose(4, 6, 3, stride=2, pad_mode="pad", output_padding=2),
     ValueError, "must be smaller than stride or dilation"),
    (lambda: nn.Conv1dTranspose(4, 6, 3, pad_mode="full"), ValueError, "pad_mode must be"),
    (lambda: nn.MaxPool1d(3, return_indices=True), ValueError, "return_indices"),
    (lambda: nn.AvgPool1d(0), ValueError, "'kernel_size' must be a positive int"),
    (lambda: nn.AdaptiveAvgPool2d((2, 3, 4)), ValueError, "tuple of 2 ints"),
    (lambda: nn.AdaptiveMaxPool1d(0), ValueError, "'output_size' must be a positive int"),
    (lambda: nn.AdaptiveMaxPool2d(2, return_indices=1), TypeError,
     "'return_indices' must be a bool"),
    (lambda: nn.AdaptiveAvgPool3d((2, 3)), ValueError, "tuple of 3 ints"),
    (lambda: nn.PixelShuffle(0), ValueError, "'upscale_factor' must be a positive int"),
])
def test_construction_errors(make, exc, msg):
    with pytest.raises(exc, match=msg):
        make()


@pytest.mark.parametrize("net,shape,exc,msg", [
    (lambda: nn.Conv1d(4, 6, 3), (2, 4, 5, 5), ValueError, "'Conv1d', the input must be 3-d"),
    (lambda: nn.Conv2dTranspose(4, 6, 3), (4, 5, 5), ValueError,
     "'Conv2dTranspose', the input must be 4-d"),
    (lambda: nn.Conv1dTranspose(4, 6, 5, pad_mode="pad", padding=4), (1, 4, 2), ValueError,
     "output length must be positive"),
    (lambda: nn.MaxPool1d(2), (2, 3, 4, 5), ValueError, "'MaxPool1d', the input must be 2-d"),
    (lambda: nn.AdaptiveAvgPool2d(2), (4, 5), ValueError, "must be 3-d or 4-d"),
    (lambda: nn.AdaptiveMaxPool3d(2), (4, 5, 6), ValueError, "must be 4-d or 5-d"),
    (lambda: nn.Upsample(size=3, scale_factor=2.0), (1, 2, 4), ValueError,
     "exactly one of size and scale_factor"),
    (lambda: nn.Upsample(size=3, mode="bicubic"), (1, 2, 4), ValueError, "mode must be one"),
    (lambda: nn.Upsample(size=3, mode="bilinear"), (1, 2, 4), ValueError, "needs a 4-d input"),
    (lambda: nn.Upsample(size=3, align_corners=True), (1, 2, 4), ValueError,
     "align_corners is only valid"),
    (lambda: nn.Upsample(scale_factor=0.1), (1, 2, 4), ValueError, "must be positive"),
    (lambda: nn.PixelShuffle(2), (1, 6, 2, 2), ValueError, "divisible by upscale_factor"),
    (lambda: nn.PixelUnshuffle(2), (1, 2, 3, 4), ValueError, "divisible by downscale_factor"),
])
def test_call_errors(mode, net, shape, exc, msg):
    with pytest.raises(exc, match=msg):
        net()(T(rand(*shape, seed=9)))


def test_float_only(mode):
    with pytest.raises(TypeError, match="'adaptive_avg_pool2d', the input must be a floating"):
        nn.AdaptiveAvgPool2d(2)(T(np.ones((1, 2, 4, 4), np.int32)))


@pytest.mark.parametrize("fn,exc,msg", [
    (lambda x: ops.conv_transpose2d(x, x[:, :2], stride=2, output_padding=2), ValueError,
     "output_padding 2 must be non-negative and smaller than stride"),
    (lambda x: ops.conv1d(x, x), ValueError, "'conv1d', the input must be 3-d"),
    (lambda x: ops.adaptive_avg_pool2d(x, (2, 0)), ValueError, "must hold positive ints"),
    (lambda x: ops.interpolate(x, size=(2, 3, 4)), ValueError, "size must be a positive int"),
    (lambda x: ops.interpolate(x, scale_factor=(2, "a")), ValueError, "scale_factor must be"),
])
def test_functional_errors(mode, fn, exc, msg):
    with pytest.raises(exc, match=msg):
        run(fn, rand(2, 2, 4, 4, seed=10))
