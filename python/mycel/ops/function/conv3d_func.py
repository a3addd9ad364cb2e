"""3-D convolution (MindSpore's Conv3D, ``ops.conv3d``, ``nn.Conv3d``) composed from the
Conv2D primitive.

For x [N, C, D, H, W] and weight [O, C / group, kd, kh, kw]:
    y[n, o, z] = sum over j < kd of conv2d(x[n, :, z * sd + j * dd], w[:, :, j])
so each depth tap j is one Conv2D over the depth positions it reads (a strided slice of the
depth axis folded into the batch: [N * Do, C, H, W]) with that tap's [O, C / group, kh, kw]
weights, and the kd results add up. The multiply-adds are exactly the 3-D convolution's, done
by the Conv2D kernel (oneDNN); depth padding is a Pad before, height and width padding is
Conv2D's own. Gradients come from Conv2D's, StridedSlice's and Pad's bprops.
"""
import math

from mycel.ops.function._util import prim, three_ints, tensor_arg
from mycel.ops.primitive import constexpr


@constexpr
def conv3d_args(op, pad_mode, padding, stride, dilation):
    """Checked (pad_mode, pads as 6 ints (head, tail, top, bottom, left, right), stride,
    dilation), MindSpore's rules: padding non-zero only with pad_mode 'pad'."""
    if not isinstance(pad_mode, str) or pad_mode.lower() not in ("valid", "same", "pad"):
        raise ValueError(f"For '{op}', 'pad_mode' must be 'valid', 'same' or 'pad', but got "
                         f"{pad_mode!r}.")
    pad_mode = pad_mode.lower()
    if isinstance(padding, int) and not isinstance(padding, bool):
        pads = (padding,) * 6
    elif isinstance(padding, (tuple, list)) and len(padding) == 3:
        pads = tuple(p for p in padding for _ in range(2))
    else:
        pads = tuple(padding)
    if len(pads) != 6 or any(isinstance(p, bool) or not isinstance(p, int) or p < 0
                             for p in pads):
        raise ValueError(f"For '{op}', 'padding' must be a non-negative int, 3 or 6 of them, "
                         f"but got {padding!r}.")
    if pad_mode != "pad" and any(pads):
        raise ValueError(f"For '{op}', 'padding' must be 0 unless pad_mode is 'pad', but got "
                         f"{padding!r}.")
    return pad_mode, pads, three_ints(stride, "stride", op), three_ints(dilation, "dilation", op)


@constexpr
def _geometry(op, xshape, wshape, pad_mode, pads, stride, dilation, group):
    """((depth before, after), (top, bottom, left, right), output depth) after the checks."""
    if len(xshape) != 5 or len(wshape) != 5:
        raise ValueError(f"For '{op}', the input and weight must be 5-d, but got shapes "
                         f"{tuple(xshape)} and {tuple(wshape)}.")
    if xshape[1] != wshape[1] * group or wshape[0] % group:
        raise ValueError(f"For '{op}', the input's channels ({xshape[1]}) must equal the "
                         f"weight's shape[1] ({wshape[1]}) times group ({group}), and the "
                         f"weight's shape[0] ({wshape[0]}) be divisible by group.")
    spatial, ks = xshape[2:], wshape[2:]
    if pad_mode == "pad":
        p = pads
    elif pad_mode == "valid":
        p = (0,) * 6
    else:
        p = ()
        for n, k, s, d in zip(spatial, ks, stride, dilation):
            total = max(0, (math.ceil(n / s) - 1) * s + d * (k - 1) + 1 - n)
            p = p + (total // 2, total - total // 2)
    outs = []
    for i in range(3):
        ext = dilation[i] * (ks[i] - 1) + 1
        n = spatial[i] + p[2 * i] + p[2 * i + 1]
        if n < ext:
            raise ValueError(f"For '{op}', the padded input {tuple(xshape)} is smaller than "
                             f"the dilated kernel {tuple(ks)} along spatial axis {i}.")
        outs.append((n - ext) // stride[i] + 1)
    return (p[0], p[1]), p[2:], outs[0]


def conv3d_nd(x, w, pad_mode, pads, stride, dilation, group, op="Conv3D"):
    """The 3-D convolution of x [N, C, D, H, W] with w [O, C / group, kd, kh, kw] (module
    docstring), arguments checked by conv3d_args."""
    (d0, d1), hw_pad, depth_out = _geometry(op, x.shape, w.shape, pad_mode, pads, stride,
                                            dilation, group)
    if d0 or d1:
        x = prim("Pad", paddings=((0, 0), (0, 0), (d0, d1), (0, 0), (0, 0)))(x)
    n, c, _, h, wd = x.shape
    o, _, kd, kh, kw = w.shape
    conv = prim("Conv2D", out_channel=o, kernel_size=(kh, kw), pad_mode="pad", pad=hw_pad,
                stride=stride[1:], dilation=dilation[1:], group=group)
    y = None
    for j in range(kd):
        start = j * dilation[0]
        xs = prim("StridedSlice")(x, (0, 0, start, 0, 0),
                                  (n, c, start + (depth_out - 1) * stride[0] + 1, h, wd),
                                  (1, 1, stride[0], 1, 1))
        xs = prim("Reshape")(prim("Transpose")(xs, (0, 2, 1, 3, 4)), (n * depth_out, c, h, wd))
        wj = prim("Reshape")(prim("StridedSlice")(w, (0, 0, j, 0, 0), (o, w.shape[1], j + 1,
                                                                        kh, kw), (1,) * 5),
                             (o, w.shape[1], kh, kw))
        yj = conv(xs, wj)
        y = yj if y is None else y + yj
    ho, wo = y.shape[2], y.shape[3]
    return prim("Transpose")(prim("Reshape")(y, (n, depth_out, o, ho, wo)), (0, 2, 1, 3, 4))


def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0,  # noqa: A002
           dilation=1, groups=1):
    """ops.conv3d: the 3-D convolution of [N, C, D, H, W] input with weight
    [O, C / groups, kd, kh, kw], plus bias [O] when given. pad_mode 'valid', 'same' or 'pad'
    (padding: an int, 3 ints or (head, tail, top, bottom, left, right))."""
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise ValueError(f"For 'conv3d', 'groups' must be a positive int, but got {groups!r}.")
    tensor_arg(input, "conv3d", "input")
    tensor_arg(weight, "conv3d", "weight")
    pad_mode, pads, stride, dilation = conv3d_args("conv3d", pad_mode, padding, stride,
                                                   dilation)
    out = conv3d_nd(input, weight, pad_mode, pads, stride, dilation, groups, "conv3d")
    return out if bias is None else prim("BiasAdd")(out, bias)
