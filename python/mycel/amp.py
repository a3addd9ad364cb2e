"""mycel.amp: automatic mixed precision, as MindSpore 2.x's ``mindspore.amp``.

``auto_mixed_precision(network, amp_level, dtype)`` marks a network's cells to compute in a
low-precision float with ``Cell.to_float`` (the same casts in both modes: inputs and the
Parameters a marked cell reads are cast, the Parameters stay float32 master weights and get
float32 gradients through the casts):

- "O0": nothing changes;
- "O1": the white-list cells (Dense and the convolutions, whose MatMul/Conv2D run on the CPU's
  bf16 units) compute in `dtype`, their outputs cast back to float32; everything else stays
  float32;
- "O2": the whole network computes in `dtype` except the black-list cells (BatchNorm and
  LayerNorm, which compute in float32 with their outputs cast back to `dtype`); the loss that
  ``build_train_network`` adds computes in float32;
- "O3": the whole network in `dtype`.

`dtype` is bfloat16 by default: these CPUs compute in bfloat16 (oneDNN's bf16 matmul and
convolution with float32 accumulation) but have no float16 arithmetic, so float16 is a storage
type there (its ops compute in float32 between casts). The level's cells are swapped in place
for small wrappers that cast outputs (``_OutputTo``); Parameter names do not change.

Loss scaling: ``build_train_network`` wraps the step in ``nn.TrainOneStepWithLossScaleCell``
when its ``loss_scale_manager`` asks for it; for hand-written steps, ``StaticLossScaler`` and
``DynamicLossScaler`` scale the loss and unscale the gradients, ``all_finite`` says whether
gradients overflowed, and ``adjust`` moves the scale.
"""
import numpy as np

from mycel import _mycel as _C
from mycel import nn
from mycel._mycel import Tensor
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.nn.wrap import (TrainOneStepCell, TrainOneStepWithLossScaleCell, all_finite_flag,
                           check_step_args)
from mycel.ops.function import array_func as _array
from mycel.ops.function import math_func as _math
from mycel.ops.functional import mixed_precision_cast as _mixed_precision_cast
from mycel.ops.primitive import constexpr
from mycel.train.loss_scale_manager import (DynamicLossScaleManager, FixedLossScaleManager,
                                            LossScaleManager)

_LEVELS = ("O0", "O1", "O2", "O3")
_FLOATS = (_C.float16, _C.bfloat16, _C.float32, _C.float64)


def _present(*names):
    """The nn classes of those names that this build has."""
    return tuple(getattr(nn, n) for n in names if hasattr(nn, n))


# O1 computes these in low precision (MindSpore's white list: the matmul and convolution
# cells); O2 keeps these in float32 (its black list: the normalisations).
AMP_WHITE_LIST = _present("Dense", "Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose",
                          "Conv2dTranspose", "Conv3dTranspose")
AMP_BLACK_LIST = _present("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm",
                          "LayerNorm")


_LayerNormConstruct = nn.LayerNorm.construct if hasattr(nn, "LayerNorm") else None


class _OutputTo(Cell):
    """Runs a cell and casts its (floating-point) output to `dtype`: the seam between cells
    computing in different precisions."""

    def __init__(self, op, dtype):
        super().__init__(auto_prefix=False)
        self._op = op
        self._dtype = dtype

    def construct(self, *inputs):
        return self._op(*inputs).astype(self._dtype)


class _OutputTo32(Cell):
    """MindSpore's ``amp._OutputTo32(backbone)``: runs the backbone and casts every
    floating-point Tensor of its output (nested tuples and lists too) to float32
    (F.mixed_precision_cast), as the O2/O3 mixed-precision networks return."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *args, **kwargs):
        return _mixed_precision_cast(_C.float32, self._backbone(*args, **kwargs))


@constexpr
def _in_low_precision(x_dtype, gamma_dtype, beta_dtype, dtype):
    """Whether a LayerNorm can take its input as it comes: x already in the network's low
    dtype `dtype`, the parameters float32."""
    return x_dtype == dtype and gamma_dtype == _C.float32 and beta_dtype == _C.float32


class _LayerNormTo(_OutputTo):
    """O2's LayerNorm with a bfloat16 (or float16) input: the LayerNorm kernel itself reads
    the low-precision x with the float32 gamma/beta, computes in float32 and rounds its
    output to x's dtype (LayerNormGrad likewise: dx in x's dtype, float32 parameter
    gradients). The values are those of casting x to float32, normalising in float32 and
    casting back (the kernel's arithmetic is float32's), without those two casts and their
    two in the backward pass. Any other input goes the _OutputTo way."""

    def construct(self, x):
        norm = self._op
        if _in_low_precision(x.dtype, norm.gamma.dtype, norm.beta.dtype, self._dtype):
            y, _, _ = norm.layer_norm(x, norm.gamma, norm.beta)
            return y
        return norm(x).astype(self._dtype)


def _replace(parent, name, cell):
    """Puts `cell` in place of parent's sub-cell `name` without renaming any Parameter (the
    attribute, the registry, and a container's cell_list)."""
    object.__setattr__(parent, name, cell)
    parent._cells[name] = cell
    if "cell_list" in parent.__dict__:
        object.__setattr__(parent, "cell_list", list(parent._cells.values()))


def _wrap_listed(network, classes, compute, output):
    """Each sub-cell of `network` (at any depth) that is an instance of `classes` computes in
    `compute` and has its output cast to `output`."""
    for name, sub in list(network._cells.items()):
        if isinstance(sub, _OutputTo):
            continue
        if isinstance(sub, classes):
            wrap = _OutputTo
            if compute == _C.float32 and type(sub).construct is _LayerNormConstruct:
                wrap = _LayerNormTo  # a LayerNorm in float32 seamed into a low-precision net
            _replace(network, name, wrap(sub.to_float(compute), output))
        else:
            _wrap_listed(sub, classes, compute, output)


def _check_network(network, who):
    if not isinstance(network, Cell):
        raise TypeError(f"For '{who}', the 'network' must be a Cell, but got "
                        f"{type(network).__name__}.")


def _check_level(level, who, name):
    if level not in _LEVELS:
        raise ValueError(f"For '{who}', the '{name}' must be one of {', '.join(_LEVELS)}, but "
                         f"got {level!r}.")


def _check_dtype(dtype, who):
    if dtype not in (_C.float16, _C.bfloat16):
        raise ValueError(f"For '{who}', the 'dtype' must be mycel.bfloat16 or mycel.float16, "
                         f"but got {dtype!r}.")


def auto_mixed_precision(network, amp_level="O0", dtype=_C.bfloat16):
    """Returns `network` set up for mixed precision at `amp_level` ("O0", "O1", "O2" or
    "O3"; see the module's doc) computing in `dtype` (mycel.bfloat16, the default, or
    mycel.float16). The network is changed in place (O1 on a single white-list layer returns
    it wrapped). A network already set up at a level other than O0 is returned as it is."""
    _check_network(network, "auto_mixed_precision")
    _check_level(amp_level, "auto_mixed_precision", "amp_level")
    _check_dtype(dtype, "auto_mixed_precision")
    if amp_level == "O0" or network.__dict__.get("_amp_level", "O0") != "O0":
        return network
    if amp_level == "O1":
        network = _apply_lists(network, dtype, white=AMP_WHITE_LIST)
    else:
        network = _apply_lists(network, dtype, black=AMP_BLACK_LIST if amp_level == "O2" else ())
    object.__setattr__(network, "_amp_level", amp_level)
    return network


def get_white_list():
    """The cell classes O1 computes in low precision (a copy of AMP_WHITE_LIST)."""
    return list(AMP_WHITE_LIST)


def get_black_list():
    """The cell classes O2 keeps in float32 (a copy of AMP_BLACK_LIST)."""
    return list(AMP_BLACK_LIST)


def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=_C.bfloat16):
    """Mixed precision with your own lists (exactly one of them): with white_list, the cells of
    those classes compute in `dtype` and the rest in float32 (O1's rule); with black_list,
    everything computes in `dtype` except the cells of those classes (O2's rule). Returns the
    network, changed in place (a single white-listed cell comes back wrapped)."""
    _check_network(network, "custom_mixed_precision")
    if (white_list is None) == (black_list is None):
        raise ValueError("For 'custom_mixed_precision', give exactly one of 'white_list' and "
                         "'black_list'.")
    classes = tuple(white_list if white_list is not None else black_list)
    if not all(isinstance(c, type) and issubclass(c, Cell) for c in classes):
        raise TypeError("For 'custom_mixed_precision', the lists must hold Cell classes.")
    _check_dtype(dtype, "custom_mixed_precision")
    return _apply_lists(network, dtype, white=classes if white_list is not None else None,
                        black=classes if black_list is not None else None)


def _apply_lists(network, dtype, white=None, black=None):
    """O1's rule with `white`, or O2's with `black` (O3: black empty)."""
    if white is not None:
        if isinstance(network, white):
            return _OutputTo(network.to_float(dtype), _C.float32)  # a single listed layer
        _wrap_listed(network, white, dtype, _C.float32)
        return network
    network.to_float(dtype)
    if black:
        _wrap_listed(network, black, _C.float32, dtype)
    return network


class _WithLossCellAmp(Cell):
    """``loss_fn(float32(backbone(data)), float32(label))``: the loss of a low-precision
    network, computed in float32."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = self._backbone(data).astype(_C.float32)
        if label.dtype in _FLOATS:
            label = label.astype(_C.float32)
        return self._loss_fn(out, label)

    @property
    def backbone_network(self):
        """The wrapped network."""
        return self._backbone


# build_train_network's settings per level (MindSpore's): the dtype the network is cast to
# (None: the level's own rule), whether normalisations stay float32, the default manager.
_CONFIG = {
    "O0": {"cast_model_type": _C.float32, "keep_batchnorm_fp32": False,
           "loss_scale_manager": None},
    "O1": {"cast_model_type": _C.float32, "keep_batchnorm_fp32": False,
           "loss_scale_manager": None},
    "O2": {"cast_model_type": _C.bfloat16, "keep_batchnorm_fp32": True,
           "loss_scale_manager": DynamicLossScaleManager},
    "O3": {"cast_model_type": _C.bfloat16, "keep_batchnorm_fp32": False,
           "loss_scale_manager": None},
}


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0",
                        **kwargs):
    """The training step of `network` with mixed precision at `level`, as MindSpore's: the
    network is set up with auto_mixed_precision (O2 and O3 in `cast_model_type`, bfloat16 by
    default, float16 allowed; O2 keeps BatchNorm/LayerNorm in float32 unless
    keep_batchnorm_fp32=False), the loss_fn (if given) is added and computes in float32, and
    the result is wrapped in TrainOneStepWithLossScaleCell when the loss_scale_manager (O2's
    default: DynamicLossScaleManager()) has an update cell or a scale other than 1, else in
    TrainOneStepCell. kwargs: cast_model_type, keep_batchnorm_fp32, loss_scale_manager.
    boost_level must be "O0" (no boost algorithms here)."""
    check_step_args("build_train_network", network, optimizer)
    _check_level(level, "build_train_network", "level")
    if boost_level != "O0":
        raise ValueError(f"For 'build_train_network', only boost_level 'O0' is supported, but "
                         f"got {boost_level!r}.")
    unknown = set(kwargs) - {"cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager"}
    if unknown:
        raise ValueError(f"For 'build_train_network', unsupported arguments: "
                         f"{', '.join(sorted(unknown))}.")
    config = dict(_CONFIG[level])
    if config["loss_scale_manager"] is not None:
        config["loss_scale_manager"] = config["loss_scale_manager"]()
    config.update(kwargs)
    cast = config["cast_model_type"]
    manager = config["loss_scale_manager"]
    if manager is not None and not isinstance(manager, LossScaleManager):
        raise TypeError(f"For 'build_train_network', the 'loss_scale_manager' must be a "
                        f"LossScaleManager, but got {type(manager).__name__}.")
    if cast in (_C.float16, _C.bfloat16):
        amp_level = "O2" if level == "O2" and config["keep_batchnorm_fp32"] else "O3"
        network = auto_mixed_precision(network, amp_level, cast)
    elif cast != _C.float32:
        raise ValueError(f"For 'build_train_network', the 'cast_model_type' must be float32, "
                         f"float16 or bfloat16, but got {cast!r}.")
    elif level == "O1":
        network = auto_mixed_precision(network, "O1")
    if loss_fn is not None:
        if network.__dict__.get("_amp_level", "O0") != "O0":
            network = _WithLossCellAmp(network, loss_fn)
        else:
            network = nn.WithLossCell(network, loss_fn)
    if manager is not None:
        update_cell = manager.get_update_cell()
        scale = manager.get_loss_scale()
        if update_cell is not None:
            return TrainOneStepWithLossScaleCell(network, optimizer, update_cell).set_train()
        if scale != 1.0:
            return TrainOneStepCell(network, optimizer, scale).set_train()
    return TrainOneStepCell(network, optimizer).set_train()


def _scale_tree(inputs, scale, divide):
    """Every Tensor of inputs (a Tensor, or nested tuples/lists of them, given back as
    tuples) times (or divided by) scale, cast to its dtype. The operation is a flag rather
    than a function value: graph mode gives a function value one signature, and the leaves'
    shapes differ."""
    if isinstance(inputs, (tuple, list)):
        out = ()
        for x in inputs:
            out = out + (_scale_tree(x, scale, divide),)
        return out
    s = scale.astype(inputs.dtype)
    return inputs / s if divide else inputs * s


def _leaves(inputs):
    """The Tensors of inputs (nested tuples/lists), as one tuple."""
    if isinstance(inputs, (tuple, list)):
        out = ()
        for x in inputs:
            out = out + _leaves(x)
        return out
    return (inputs,)


def all_finite(inputs, status=None):
    """A bool Tensor (shape ()): whether every element of every Tensor in `inputs` (a
    Tensor, or a tuple/list of them, e.g. gradients) is finite. `status` (from init_status)
    is accepted for MindSpore's signature; this backend needs none."""
    return all_finite_flag(_leaves(inputs))


def init_status():
    """The overflow status MindSpore's Ascend backend needs before all_finite: here a float32
    Tensor of 8 zeros that all_finite does not need."""
    return Tensor(np.zeros(8, np.float32))


class LossScaler:
    """The interface of loss scalers: scale(inputs), unscale(inputs), adjust(grads_finite)."""

    def scale(self, inputs):
        """inputs multiplied by the scale."""
        raise NotImplementedError

    def unscale(self, inputs):
        """inputs divided by the scale."""
        raise NotImplementedError

    def adjust(self, grads_finite):
        """Updates the scale after a step whose gradients were (not) all finite."""
        raise NotImplementedError


def _check_scale_value(scale_value, who):
    if isinstance(scale_value, bool) or not isinstance(scale_value, (int, float)) or \
            not scale_value > 0:
        raise ValueError(f"For '{who}', the 'scale_value' must be a positive number, but got "
                         f"{scale_value!r}.")
    return Parameter(Tensor(float(scale_value), _C.float32), name="scale_value",
                     requires_grad=False)


class StaticLossScaler(LossScaler):
    """StaticLossScaler(scale_value): a constant loss scale (a float32 Parameter
    ``scale_value``): scale multiplies, unscale divides; adjust does nothing (returns
    False)."""

    def __init__(self, scale_value):
        self.scale_value = _check_scale_value(scale_value, "StaticLossScaler")

    def scale(self, inputs):
        """Every Tensor of inputs times the scale."""
        return _scale_tree(inputs, self.scale_value, False)

    def unscale(self, inputs):
        """Every Tensor of inputs divided by the scale."""
        return _scale_tree(inputs, self.scale_value, True)

    def adjust(self, grads_finite):
        """Nothing to adjust: False."""
        return False


class DynamicLossScaler(StaticLossScaler):
    """DynamicLossScaler(scale_value, scale_factor, scale_window): a loss scale that adapts,
    as MindSpore's ``amp.DynamicLossScaler``. ``adjust(grads_finite)``: after a step with a
    non-finite gradient the scale becomes ``max(scale / scale_factor, 1)`` and the count of
    good steps restarts; on the scale_window-th good step in a row it is multiplied by
    scale_factor (when the product is finite). The scale and the count are Parameters
    (``scale_value``, ``counter``), updated in place; returns True."""

    def __init__(self, scale_value, scale_factor, scale_window):
        self.scale_value = _check_scale_value(scale_value, "DynamicLossScaler")
        for name, v in (("scale_factor", scale_factor), ("scale_window", scale_window)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"For 'DynamicLossScaler', the '{name}' must be a positive "
                                 f"int, but got {v!r}.")
        self.scale_factor = scale_factor
        self.scale_window = scale_window
        self.counter = Parameter(Tensor(0, _C.int32), name="counter", requires_grad=False)

    def adjust(self, grads_finite):
        """Updates scale_value and counter after a step (see the class doc); True."""
        finite = Tensor(grads_finite) if not isinstance(grads_finite, Tensor) else grads_finite
        scale = self.scale_value
        grown = scale * float(self.scale_factor)
        at_window = self.counter == (self.scale_window - 1)
        keep_or_grow = _math.select(_math.logical_and(at_window, all_finite_flag([grown])),
                                    grown, scale)
        lowered = _math.maximum(scale / float(self.scale_factor), 1.0)
        _array.assign(self.scale_value, _math.select(finite, keep_or_grow, lowered))
        count = (self.counter + 1) % self.scale_window
        _array.assign(self.counter, _math.select(finite, count, count * 0))
        return True


__all__ = ["auto_mixed_precision", "custom_mixed_precision", "get_white_list", "get_black_list",
           "build_train_network", "all_finite", "init_status",
           "LossScaler", "StaticLossScaler", "DynamicLossScaler", "LossScaleManager",
           "FixedLossScaleManager", "DynamicLossScaleManager", "AMP_WHITE_LIST",
           "AMP_BLACK_LIST"]
