"""DPModel (MindArmour's): ``Model`` whose training step is DP-SGD with per-micro-batch clipping.

The step splits the batch into ``micro_batches`` equal slices along axis 0 and computes each
slice's gradient with ``value_and_grad`` (Python loops over the static count, in chunks of at
most 32 micro-batches per helper call: GRAPH mode unrolls them into one compiled step holding
one gradient computation per micro-batch, since it unrolls loops of at most 63 iterations;
mycel has no vmap yet, so per-example clipping is micro_batches == batch size). Each
micro-batch gradient (all parameters together) is scaled by ``min(1, C / ||g||)``; the clipped
gradients are summed, Gaussian noise of std ``C * sigma`` is added and the sum divided by the
number of micro-batches, either by the step (``noise_mech``) or by a DP optimizer
(``DPOptimizerClassFactory``). With ``clip_mech`` the bound C is a Parameter updated after each
step from the fraction of unclipped micro-batches. The step returns the mean micro-batch loss.
"""
import numpy as np

from mycel import _mycel as _C
from mycel._mycel import Tensor
from mycel.armour.privacy.diff_privacy.mechanisms import (AdaClippingWithGaussianRandom,
                                                          NoiseGaussianRandom, check_number,
                                                          noised_mean)
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.nn.layer._check import positive_int
from mycel.nn.wrap import WithLossCell, check_step_args
from mycel.ops.composite import depend, value_and_grad
from mycel.ops.function import array_func as _array
from mycel.ops.function import math_func as _math
from mycel.ops.primitive import constexpr
from mycel.train.model import Model


_UNROLL = 32  # micro-batches per chunk, an unrolled loop (GRAPH mode unrolls loops of <= 63)


@constexpr
def _rows(shape, k):
    """Rows per micro-batch (checked at compile time in GRAPH mode)."""
    if len(shape) == 0 or shape[0] % k != 0:
        raise ValueError(f"For 'DPModel', the batch size of an input of shape {tuple(shape)} "
                         f"must be a multiple of micro_batches {k}.")
    return shape[0] // k


def _slice(x, i, k):
    """Micro-batch i of k of the Tensor x along axis 0."""
    m = _rows(x.shape, k)
    return x[i * m:(i + 1) * m]


def clip_by_global_norm(grads, norm_bound):
    """(grads scaled by min(1, norm_bound / ||grads||), 1.0 if they were left unscaled else
    0.0), the norm taken over all the gradients together."""
    sq = None
    for g in grads:
        s = _math.sum(g * g)
        sq = s if sq is None else sq + s
    norm = _math.sqrt(sq)
    scale = norm_bound / _math.maximum(norm, norm_bound)
    out = ()
    for g in grads:
        out = out + (g * scale,)
    return out, (norm <= norm_bound).astype(_C.float32)


def _add(xs, ys):
    """The elementwise sums of two tuples of tensors."""
    out = ()
    for a, b in zip(xs, ys):
        out = out + (a + b,)
    return out


class DPTrainOneStepCell(Cell):
    """DPTrainOneStepCell(network, optimizer, micro_batches, norm_bound, noise_mech=None,
    clip_mech=None): one DP-SGD step (see the module's description); `network` returns the
    loss. Without noise_mech the optimizer must be a DP optimizer (it adds the noise)."""

    def __init__(self, network, optimizer, micro_batches, norm_bound, noise_mech=None,
                 clip_mech=None):
        super().__init__(auto_prefix=False)
        check_step_args("DPModel", network, optimizer)
        self.network = network
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.grad_fn = value_and_grad(network, None, self.weights)
        self._micro_batches = micro_batches
        self._chunk = max(d for d in range(1, _UNROLL + 1) if micro_batches % d == 0)
        self._chunks = micro_batches // self._chunk
        self._noise_mech = noise_mech
        self._clip_mech = clip_mech
        self.norm_bound = Parameter(Tensor(np.float32(norm_bound)), name="dp_norm_bound",
                                    requires_grad=False)

    def _micro_step(self, inputs, i, k):
        """(loss, clipped gradients, 1.0 if unclipped) of micro-batch i of k."""
        micro = ()
        for x in inputs:
            micro = micro + (_slice(x, i, k),)
        loss, grads = self.grad_fn(*micro)
        clipped, kept = clip_by_global_norm(grads, self.norm_bound)
        return loss, clipped, kept

    def _chunk_sums(self, inputs, c, k):
        """(loss, clipped gradients, unclipped count) summed over the micro-batches of chunk
        c: a loop of at most _UNROLL iterations, which GRAPH mode unrolls."""
        first = c * self._chunk
        loss_sum, total, unclipped = self._micro_step(inputs, first, k)
        for j in range(1, self._chunk):
            loss, clipped, kept = self._micro_step(inputs, first + j, k)
            total, loss_sum, unclipped = _add(total, clipped), loss_sum + loss, unclipped + kept
        return loss_sum, total, unclipped

    def construct(self, *inputs):
        k = self._micro_batches
        loss_sum, total, unclipped = self._chunk_sums(inputs, 0, k)
        for c in range(1, self._chunks):
            loss, clipped, kept = self._chunk_sums(inputs, c, k)
            total, loss_sum, unclipped = _add(total, clipped), loss_sum + loss, unclipped + kept
        grads = total
        loss = loss_sum / k
        if self._noise_mech is not None:
            grads = noised_mean(total, self._noise_mech, self.norm_bound, k)
            loss = depend(loss, self._noise_mech.update())
        if self._clip_mech is not None:
            nxt = self._clip_mech(unclipped / k, self.norm_bound)
            loss = depend(loss, _array.assign(self.norm_bound, nxt))
        return depend(loss, self.optimizer(grads))


class DPModel(Model):
    """DPModel(micro_batches=2, norm_bound=1.0, noise_mech=None, clip_mech=None,
    optimizer=None, network=..., loss_fn=..., metrics=None, ...): Model trained by DP-SGD.
    Each batch is split into micro_batches slices whose gradients are clipped to norm_bound
    (global L2 norm), summed, noised (std norm_bound * noise multiplier) and averaged; eval and
    predict are Model's. Give the noise either as noise_mech (a NoiseMechanismsFactory
    mechanism) with an ordinary optimizer, or as a DP optimizer from DPOptimizerClassFactory
    (same micro_batches; then its mechanism's norm_bound must equal norm_bound); clip_mech
    (ClipMechanismsFactory, with noise_mech) adapts the bound after every step.

    The privacy monitors account per-example sampling. With micro-batches of one example that
    is exact; with larger micro-batches, adding or removing one example changes its
    micro-batch's clipped gradient by up to 2C, so the guarantee is the one the monitor gives
    for half the noise multiplier."""

    def __init__(self, micro_batches=2, norm_bound=1.0, noise_mech=None, clip_mech=None,
                 optimizer=None, **kwargs):
        positive_int(micro_batches, "micro_batches", "DPModel")
        check_number(norm_bound, "norm_bound", "DPModel")
        network, loss_fn = kwargs.pop("network", None), kwargs.pop("loss_fn", None)
        if kwargs.get("amp_level", "O0") != "O0" or kwargs.get("loss_scale_manager"):
            raise ValueError("For 'DPModel', mixed precision and loss scaling are not "
                             "supported (amp_level must be 'O0').")
        if optimizer is None:
            raise ValueError("For 'DPModel', an 'optimizer' is needed.")
        super().__init__(network, loss_fn, optimizer, **kwargs)
        dp_mb = getattr(optimizer, "dp_micro_batches", None)
        if noise_mech is not None and not isinstance(noise_mech, NoiseGaussianRandom):
            raise TypeError(f"For 'DPModel', the 'noise_mech' must come from "
                            f"NoiseMechanismsFactory, but got {type(noise_mech).__name__}.")
        if clip_mech is not None and not isinstance(clip_mech, AdaClippingWithGaussianRandom):
            raise TypeError(f"For 'DPModel', the 'clip_mech' must come from "
                            f"ClipMechanismsFactory, but got {type(clip_mech).__name__}.")
        if noise_mech is not None and noise_mech._norm_bound != float(norm_bound):
            raise ValueError(f"For 'DPModel', the noise mechanism's norm_bound "
                             f"{noise_mech._norm_bound} differs from norm_bound {norm_bound}: "
                             f"the noise must be calibrated to the clipping bound.")
        if (noise_mech is None) == (dp_mb is None):
            raise ValueError("For 'DPModel', give the noise exactly once: a 'noise_mech' with "
                             "an ordinary optimizer, or a DP optimizer without noise_mech.")
        if dp_mb is not None:
            if dp_mb != micro_batches:
                raise ValueError(f"For 'DPModel', the DP optimizer averages over {dp_mb} "
                                 f"micro-batches but micro_batches is {micro_batches}.")
            if optimizer.noise_mech._norm_bound != float(norm_bound):
                raise ValueError(f"For 'DPModel', the DP optimizer's noise norm_bound "
                                 f"{optimizer.noise_mech._norm_bound} differs from norm_bound "
                                 f"{norm_bound}.")
            if clip_mech is not None:
                raise ValueError("For 'DPModel', 'clip_mech' needs 'noise_mech' (the noise "
                                 "must follow the adapted bound).")
        step_net = WithLossCell(network, loss_fn) if loss_fn is not None else network
        self._train_network = DPTrainOneStepCell(step_net, optimizer, micro_batches,
                                                 float(norm_bound), noise_mech, clip_mech)
