"""THOR: second-order training with Kronecker-factored curvature (MindSpore's ``nn.thor``;
Chen et al., "THOR: Trace-based Hardware-driven layer-ORiented Natural Gradient Descent
Computation", AAAI 2021).

For each Dense and Conv2d layer (weight W as a matrix [out, fan_in]; a convolution's
fan_in = C_in * kh * kw, its inputs the kernel-sized patches, found with a convolution by a
one-hot kernel) with P output positions per sample (1 for Dense), on a step that captures:

    A = (1 / (B P)) sum over rows a a^T          (a: the layer's input rows / patches)
    G = (B / P) sum over rows d d^T / loss_scale^2
                (d: the gradient of the batch's loss by the layer's output s = W a + b, one
                 row per sample and position: B d is a sample's own gradient)

and the gradient of W is preconditioned as

    grad_W <- (G + sqrt(damping) I)^-1 grad_W (A + sqrt(damping) I)^-1 / P

(the natural gradient under F ~ A (x) G, damped as MindSpore's: sqrt(damping) on each factor);
the other parameters keep their gradients; then Momentum (ApplyMomentum) with weight decay
(on the parameters decay_filter keeps) and the loss scale, as ``nn.Momentum``.

Capture and inversion run every `frequency` steps (``ThorTrainOneStepCell``, train/train_thor.py):
the layers capture A in their forward pass and expose their outputs to a zero "probe" Parameter
whose gradient is d; the inverses are computed on the host (float64 numpy, LAPACK) and stored
in Parameters ``matrix_a_inv.<layer>``/``matrix_g_inv.<layer>``, which the compiled update reads
on the other steps. Dimension reduction (as MindSpore's split_dim): a factor larger than
SPLIT_DIM (128) is inverted as blocks of SPLIT_DIM on its diagonal (the last block smaller),
the coupling between blocks dropped, which bounds the cost of an inversion by the block size.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.common.parameter import Parameter, ParameterTuple
from mycel.nn.cell import Cell
from mycel.nn.layer.basic import Dense
from mycel.nn.layer.conv import Conv2d
from mycel.nn.optim.momentum import Momentum
from mycel.nn.optim.optimizer import _check_float
from mycel.ops import operations as P
from mycel.ops.composite import depend
from mycel.ops.function._util import prim

SPLIT_DIM = 128
PLAIN, CAPTURE, SHAPES = 0, 1, 2  # a THOR layer's _thor_mode


class _ThorLayer:
    """What DenseThor and Conv2dThor add to their layer: ``matrix_a`` (the captured A, a
    Parameter), ``_thor_mode`` (PLAIN: the layer's own computation; CAPTURE: also assign A
    and add the probe to the output; SHAPES, PYNATIVE only: record the output shape, from which
    the probe is made), ``thor_probe`` (zeros of the output's shape once made) and ``_positions``
    (P)."""

    def _thor_setup(self, fan_in):
        prefix = self.weight.name[:-len("weight")]
        self.matrix_a = Parameter(_C.Tensor(np.eye(fan_in, dtype=np.float32)),
                                  name=prefix + "matrix_a", requires_grad=False)
        object.__setattr__(self, "_thor_mode", PLAIN)
        object.__setattr__(self, "_thor_prefix", prefix)
        object.__setattr__(self, "_out_shape", None)
        object.__setattr__(self, "_positions", 1)

    def _thor_output(self, a, s):
        """The layer's pre-activation output s, with A captured from the input rows a."""
        if self._thor_mode == SHAPES:
            object.__setattr__(self, "_out_shape", tuple(s.shape))
        if self._thor_mode == CAPTURE:
            cov = self.thor_t_matmul(a, a) / a.shape[0]
            s = _assign_then(self.matrix_a, cov, s) + self.thor_probe
        return s

    def _make_probe(self):
        """The probe Parameter (zeros of the recorded output shape)."""
        self.thor_probe = Parameter(_C.Tensor(np.zeros(self._out_shape, np.float32)),
                                    name=self._thor_prefix + "thor_probe", requires_grad=False)
        shape = self._out_shape
        object.__setattr__(self, "_positions", int(np.prod(shape[2:])) if len(shape) > 2 else 1)


def _assign_then(param, value, x):
    """x, after ``param`` is assigned ``value``."""
    return depend(x, prim("Assign")(param, value))


class DenseThor(_ThorLayer, Dense):
    """A Dense layer that captures THOR's curvature factors (MindSpore's ``nn.DenseThor``):
    made from an nn.Dense by ``ConvertNetUtils``, with the same Parameters. Inputs of other
    ranks than 2 run as nn.Dense's, but cannot be captured (the THOR step's ValueError)."""

    def construct(self, x):
        if len(x.shape) != 2:
            y = super().construct(x)
            if self._thor_mode == SHAPES:
                object.__setattr__(self, "_out_shape", tuple(y.shape))
            return y
        s = self.matmul(x, self.weight)
        if self.has_bias:
            s = self.bias_add(s, self.bias)
        s = self._thor_output(x, s)
        if self.activation_flag:
            s = self.activation(s)
        return s


class Conv2dThor(_ThorLayer, Conv2d):
    """A Conv2d layer that captures THOR's curvature factors (MindSpore's ``nn.Conv2dThor``):
    made from an nn.Conv2d (group 1, NCHW) by ``ConvertNetUtils``, with the same Parameters.
    Its input patches come from a convolution with a one-hot kernel (``thor_patch_kernel``: a
    filter per (channel, kernel row, kernel column), in the weight's order), with the layer's
    stride, padding and dilation."""

    def _patch_setup(self):
        c, (kh, kw) = self.in_channels, self.kernel_size
        eye = np.eye(c * kh * kw, dtype=np.float32).reshape(c * kh * kw, c, kh, kw)
        self.thor_patch_kernel = Parameter(_C.Tensor(eye), name=self._thor_prefix +
                                           "thor_patch_kernel", requires_grad=False)
        self.thor_patches = P.Conv2D(out_channel=c * kh * kw, kernel_size=(kh, kw),
                                     pad_mode=self.pad_mode, pad=self.padding,
                                     stride=self.stride, dilation=self.dilation, group=1)

    def construct(self, x):
        s = self.conv2d(x, self.weight)
        if self.has_bias:
            s = self.bias_add(s, self.bias)
        if self._thor_mode == CAPTURE:
            patches = self.thor_patches(x, self.thor_patch_kernel)  # [B, fan_in, H', W']
            rows = patches.transpose(0, 2, 3, 1).reshape((-1, patches.shape[1]))
            return self._thor_output(rows, s)
        return self._thor_output(x, s)


class ConvertNetUtils:
    """Turns the Dense and Conv2d layers of a network into DenseThor and Conv2dThor (in place,
    keeping their Parameters), as MindSpore's ``train.ConvertNetUtils``. Grouped or NHWC
    convolutions and Dense layers with non-2-d use stay as they are (not preconditioned)."""

    def convert_to_thor_net(self, net):
        """Converts `net`'s layers; returns the THOR layers in the order of net.cells_and_names()."""
        layers = []
        for _, cell in net.cells_and_names():
            if isinstance(cell, _ThorLayer):
                layers.append(cell)
            elif type(cell) is Dense:
                cell.__class__ = DenseThor
                cell._thor_setup(cell.in_channels)
                layers.append(cell)
            elif type(cell) is Conv2d and cell.group == 1 and cell.data_format == "NCHW":
                cell.__class__ = Conv2dThor
                kh, kw = cell.kernel_size
                cell._thor_setup(cell.in_channels * kh * kw)
                cell._patch_setup()
                layers.append(cell)
        for layer in layers:
            layer.thor_t_matmul = P.MatMul(transpose_a=True)
        return layers


def block_inverse(m, damping, block=SPLIT_DIM):
    """(m + sqrt(damping) I)^-1 of a symmetric positive semi-definite float64 matrix, exactly
    up to `block` rows, else as the inverses of its diagonal blocks of `block` rows
    (dimension reduction). float32."""
    n = m.shape[0]
    out = np.zeros_like(m)
    damped = m + np.sqrt(damping) * np.eye(n)
    for i in range(0, n, block):
        j = min(i + block, n)
        out[i:j, i:j] = np.linalg.inv(damped[i:j, i:j])
    return out.astype(np.float32)


class ThorMomentum(Momentum):
    """The THOR optimizer ``nn.thor`` returns: Momentum on gradients preconditioned by each
    THOR layer's stored inverse factors (see the module). Called with the gradients of
    ``parameters`` (the network's trainable Parameters). ``refresh(layer_grads, step)`` sets the
    inverses from the captured A and the probes' gradients (ThorTrainOneStepCell calls it every
    `frequency` steps)."""

    def __init__(self, net, layers, learning_rate, damping, momentum, weight_decay, loss_scale,
                 batch_size, use_nesterov, decay_filter, enable_clip_grad, frequency):
        params = [p for p in net.trainable_params()]
        groups = params
        if weight_decay > 0:
            decayed = [p for p in params if decay_filter(p)]
            rest = [p for p in params if not decay_filter(p)]
            groups = [{"params": decayed, "weight_decay": weight_decay}]
            if rest:
                groups.append({"params": rest, "weight_decay": 0.0})
        super().__init__(groups, learning_rate, momentum, 0.0, loss_scale, use_nesterov)
        self.frequency = frequency
        self.batch_size = batch_size
        self.enable_clip_grad = enable_clip_grad
        self._damping = np.asarray(damping.asnumpy() if isinstance(damping, _C.Tensor)
                                   else damping, np.float64).reshape(-1)
        self._loss_scale_value = float(loss_scale)
        object.__setattr__(self, "_thor_layers", tuple(layers))
        index = {id(p): i for i, p in enumerate(self.parameters)}
        layer_of = [-1] * len(self.parameters)
        a_inv, g_inv = [], []
        for k, layer in enumerate(layers):
            layer_of[index[id(layer.weight)]] = k
            fan_in = layer.matrix_a.shape[0]
            a_inv.append(Parameter(_C.Tensor(np.eye(fan_in, dtype=np.float32)),
                                   name="matrix_a_inv." + layer._thor_prefix[:-1],
                                   requires_grad=False))
            g_inv.append(Parameter(_C.Tensor(np.eye(layer.out_channels, dtype=np.float32)),
                                   name="matrix_g_inv." + layer._thor_prefix[:-1],
                                   requires_grad=False))
        self._layer_of = tuple(layer_of)
        self.matrix_a_inv = ParameterTuple(a_inv)
        self.matrix_g_inv = ParameterTuple(g_inv)
        self._mm = P.MatMul()

    def get_frequency(self):
        """The steps between refreshes of the curvature factors and their inverses."""
        return self.frequency

    def damping_at(self, step):
        """The damping of optimizer step `step` (the last value after the schedule ends)."""
        return float(self._damping[min(step, len(self._damping) - 1)])

    def refresh(self, probe_grads, step):
        """Sets each layer's inverse factors from its captured A and the gradient of its probe
        (the batch loss's gradient by the layer's output), with the damping of `step`."""
        lam = self.damping_at(step)
        for layer, d, a_inv, g_inv in zip(self._thor_layers, probe_grads, self.matrix_a_inv,
                                          self.matrix_g_inv):
            a = layer.matrix_a.asnumpy().astype(np.float64)
            d = d.asnumpy().astype(np.float64)
            if d.ndim > 2:  # [B, C, H', W'] -> one row per sample and position
                d = d.transpose(0, 2, 3, 1).reshape(-1, d.shape[1])
            pos = layer._positions
            g = self.batch_size / pos * (d.T @ d) / self._loss_scale_value ** 2
            a_inv.set_data(_C.Tensor(block_inverse(a, lam) / np.float32(pos)))
            g_inv.set_data(_C.Tensor(block_inverse(g, lam)))

    def construct(self, gradients):
        out = ()
        for i, g in enumerate(gradients):
            k = self._layer_of[i]
            if k >= 0:
                shape = g.shape
                m = g.reshape((shape[0], -1))
                m = self._mm(self._mm(self.matrix_g_inv[k], m), self.matrix_a_inv[k])
                g = m.reshape(shape)
            if self.enable_clip_grad:  # MindSpore's: each gradient's norm clipped to 1
                norm = prim("Sqrt")(prim("ReduceSum", keep_dims=False)(g * g, ()))
                g = g / prim("Maximum")(norm, 1.0)
            out = out + (g,)
        return super().construct(out)


def thor(net, learning_rate, damping, momentum, weight_decay=0.0, loss_scale=1.0, batch_size=32,
         use_nesterov=False, decay_filter=lambda x: x.name not in [], split_indices=None,
         enable_clip_grad=False, frequency=100):
    """THOR, the second-order optimizer (MindSpore's ``nn.thor``): converts `net`'s Dense and
    Conv2d layers to DenseThor/Conv2dThor (ConvertNetUtils) and returns the optimizer of its
    trainable Parameters. Train with the step ``ConvertModelUtils.convert_to_thor_model``
    builds (or ``train.train_thor.ThorTrainOneStepCell``), which captures the curvature and
    refreshes the inverses every `frequency` steps; the formulas are in this module's doc.

    Args:
        net (Cell): the network (its layers are converted in place).
        learning_rate (Union[float, list, Tensor]): the rate, or one per step.
        damping (Union[float, list, Tensor]): the damping, or one per step (the last value
            after the list ends).
        momentum (float): the momentum, >= 0.
        weight_decay (float): L2 decay of the parameters decay_filter keeps. Default: 0.0.
        loss_scale (float): the loss scale the gradients carry, > 0. Default: 1.0.
        batch_size (int): the batch size; curvature is captured on batches of this size.
            Default: 32.
        use_nesterov (bool): Nesterov momentum. Default: False.
        decay_filter (Callable): Parameter -> bool, which parameters weight_decay applies to.
        split_indices (list): the all-reduce fusion groups of the factors in distributed
            training; standalone training has none to fuse and ignores it. Default: None.
        enable_clip_grad (bool): clip each preconditioned gradient to norm 1. Default: False.
        frequency (int): steps between refreshes of the factors and their inverses, >= 2.
            Default: 100.
    """
    if not isinstance(net, Cell):
        raise TypeError(f"For 'thor', the 'net' must be a Cell, but got {type(net).__name__}.")
    if isinstance(momentum, bool) or not isinstance(momentum, float) or momentum < 0.0:
        raise ValueError(f"For 'thor', the 'momentum' must be a float >= 0.0, but got "
                         f"{momentum!r}.")
    if isinstance(frequency, bool) or not isinstance(frequency, int) or frequency < 2:
        raise ValueError(f"For 'thor', the 'frequency' must be an int >= 2, but got "
                         f"{frequency!r}.")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"For 'thor', the 'batch_size' must be a positive int, but got "
                         f"{batch_size!r}.")
    ls = _check_float("thor", "loss_scale", loss_scale)
    if ls <= 0:
        raise ValueError(f"For 'thor', the 'loss_scale' must be > 0, but got {loss_scale!r}.")
    wd = _check_float("thor", "weight_decay", weight_decay, 0.0)
    for name, flag in (("use_nesterov", use_nesterov), ("enable_clip_grad", enable_clip_grad)):
        if not isinstance(flag, bool):
            raise TypeError(f"For 'thor', the '{name}' must be a bool, but got "
                            f"{type(flag).__name__}.")
    damp = np.asarray(damping.asnumpy() if isinstance(damping, _C.Tensor) else damping,
                      np.float64).reshape(-1)
    if damp.size == 0 or not np.all(damp >= 0):
        raise ValueError("For 'thor', the 'damping' must be non-negative values.")
    layers = ConvertNetUtils().convert_to_thor_net(net)
    return ThorMomentum(net, layers, learning_rate, damp, momentum, wd, ls, batch_size,
                        use_nesterov, decay_filter, enable_clip_grad, frequency)
