"""The lite runtime's Python face (MindSpore Lite's ``Model``, ``Context``, ``Tensor``): thin
wrappers over ``_mycel._lite.LiteModel`` (src/python/py_lite.cc, src/lite/model.h)."""
import enum

import numpy as np

from mycel import _mycel

_lite = _mycel._lite


class ModelType(enum.Enum):
    """The kind of model file ``Model.build_from_file`` reads: ``MINDIR_LITE`` (a ``.ms``
    file written by the converter). ``MINDIR`` files are converted first (``Converter``)."""
    MINDIR = 0
    MINDIR_LITE = 4


class DataType(enum.Enum):
    """Tensor element types of the lite runtime (it computes in float32)."""
    FLOAT32 = 43


_PRECISIONS = {"preferred_fp32": False, "preferred_bf16": True}  # -> bf16 convolutions


class _CPUDeviceInfo:
    """``Context.cpu``: ``thread_num`` (0 keeps OpenMP's default; the setting is
    process-wide, as OpenMP's is) and ``precision_mode``: "preferred_fp32" (float32), or
    "preferred_bf16" (mycel's, in the place of MindSpore Lite's "preferred_fp16": these CPUs
    have bfloat16 dot products and no float16 arithmetic; convolutions take bfloat16 inputs
    and weights, accumulate and write float32). Int8 layers of a quantized file run in int8
    under either."""

    def __init__(self):
        self.thread_num = 0
        self.precision_mode = "preferred_fp32"


class Context:
    """Where and how a model runs: ``target`` (["cpu"]), ``cpu.thread_num``,
    ``cpu.precision_mode``. ``verify_checksum`` (mycel's): False skips the file's checksum
    for trusted files; every other check of the file stays."""

    def __init__(self, thread_num=None):
        self.target = ["cpu"]
        self.cpu = _CPUDeviceInfo()
        if thread_num is not None:
            self.cpu.thread_num = thread_num
        self.verify_checksum = True

    def _checked(self):
        if list(self.target) != ["cpu"]:
            raise ValueError(f"For 'Context', target must be ['cpu'], but got {self.target!r}.")
        threads = self.cpu.thread_num
        if not isinstance(threads, int) or isinstance(threads, bool) or threads < 0:
            raise TypeError(f"For 'Context', cpu.thread_num must be an int >= 0, but got "
                            f"{threads!r}.")
        if self.cpu.precision_mode not in _PRECISIONS:
            raise ValueError("For 'Context', cpu.precision_mode must be 'preferred_fp32' or "
                             "'preferred_bf16' (there is no float16 arithmetic on these CPUs), "
                             f"but got {self.cpu.precision_mode!r}.")
        return self


class Tensor:
    """A named float32 host tensor (MindSpore Lite's ``Tensor``): ``name``, ``shape``,
    ``dtype``, ``element_num``, ``data_size``, ``set_data_from_numpy``,
    ``get_data_to_numpy``."""

    def __init__(self, name="", shape=(), data=None):
        self.name = name
        self._data = np.zeros(tuple(shape), np.float32) if data is None else data

    @property
    def shape(self):
        return list(self._data.shape)

    @property
    def dtype(self):
        return DataType.FLOAT32

    @property
    def element_num(self):
        return int(self._data.size)

    @property
    def data_size(self):
        return int(self._data.nbytes)

    def set_data_from_numpy(self, array):
        """Copies ``array`` (of this tensor's shape, cast to float32) into the tensor."""
        array = np.asarray(array)
        if list(array.shape) != self.shape:
            raise ValueError(f"For 'Tensor.set_data_from_numpy', tensor '{self.name}' has "
                             f"shape {self.shape}, but got {list(array.shape)}.")
        self._data = np.ascontiguousarray(array, dtype=np.float32).copy()

    def get_data_to_numpy(self):
        """The tensor's data as a numpy array (a copy)."""
        return self._data.copy()

    def __repr__(self):
        return f"Tensor(name={self.name!r}, shape={self.shape}, dtype=float32)"


class TrainCfg:
    """On-device training's settings (mycel's; MindSpore Lite keeps the optimizer in the
    model file): ``optimizer`` ("SGD", "Momentum" or "Adam", each updating as mycel's
    ``nn.SGD``, ``nn.Momentum`` and ``nn.Adam``), ``learning_rate``, ``momentum``
    (SGD, Momentum), ``dampening`` and ``nesterov`` (SGD; ``nesterov`` also Momentum),
    ``beta1``, ``beta2``, ``eps`` (Adam), ``weight_decay``, and ``trainable``: the names of
    the weights to train (None: every weight the file marks trainable)."""

    def __init__(self, optimizer="SGD", learning_rate=0.01, momentum=0.0, dampening=0.0,
                 nesterov=False, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0,
                 trainable=None):
        self.optimizer = optimizer
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.dampening = dampening
        self.nesterov = nesterov
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.weight_decay = weight_decay
        self.trainable = trainable

    def _native(self):
        if not isinstance(self.optimizer, str):
            raise TypeError(f"For 'TrainCfg', optimizer must be a str, but got "
                            f"{type(self.optimizer).__name__}.")
        cfg = _lite.TrainCfg()
        cfg.optimizer = self.optimizer
        for name in ("learning_rate", "momentum", "dampening", "beta1", "beta2", "eps",
                     "weight_decay"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"For 'TrainCfg', {name} must be a float, but got "
                                f"{type(value).__name__}.")
            setattr(cfg, name, float(value))
        if not isinstance(self.nesterov, bool):
            raise TypeError(f"For 'TrainCfg', nesterov must be a bool, but got "
                            f"{type(self.nesterov).__name__}.")
        cfg.nesterov = self.nesterov
        names = [] if self.trainable is None else list(self.trainable)
        if not all(isinstance(n, str) for n in names):
            raise TypeError("For 'TrainCfg', trainable must be a list of weight names (str).")
        cfg.trainable = names
        return cfg


class Model:
    """A model of the lite runtime: ``build_from_file``, ``get_inputs``, ``get_outputs``,
    ``resize``, ``predict``; for a model built with ``train=True`` also ``train_step``,
    ``export`` and ``get_trainable_names``."""

    def __init__(self):
        self._model = None
        self._outputs = []
        self._train = False

    def _built(self):
        if self._model is None:
            raise ValueError("For 'Model', call build_from_file first.")
        return self._model

    def build_from_file(self, model_path, model_type=ModelType.MINDIR_LITE, context=None,
                        train=False, train_cfg=None):
        """Maps and checks the ``.ms`` file ``model_path`` (a damaged, truncated, foreign or
        newer-format file is a ValueError) and prepares its kernels and memory. ``train=True``
        builds it for on-device training (a file converted with ``--trainModel=true``) with
        ``train_cfg`` (a ``TrainCfg``; default: SGD, learning rate 0.01)."""
        if model_type != ModelType.MINDIR_LITE:
            raise ValueError(f"For 'Model.build_from_file', model_type must be "
                             f"ModelType.MINDIR_LITE (convert MINDIR files with Converter), "
                             f"but got {model_type!r}.")
        ctx = (context or Context())._checked()
        if train:
            cfg = train_cfg if train_cfg is not None else TrainCfg()
            if not isinstance(cfg, TrainCfg):
                raise TypeError(f"For 'Model.build_from_file', train_cfg must be a TrainCfg, "
                                f"but got {type(cfg).__name__}.")
            if ctx.cpu.precision_mode != "preferred_fp32":
                raise ValueError("For 'Model.build_from_file', a training model runs in "
                                 "float32: cpu.precision_mode must be 'preferred_fp32'.")
            model = _lite.LiteTrainModel()
            model.build(str(model_path), ctx.cpu.thread_num, ctx.verify_checksum, cfg._native())
        else:
            if train_cfg is not None:
                raise ValueError("For 'Model.build_from_file', train_cfg needs train=True.")
            model = _lite.LiteModel()
            model.build(str(model_path), ctx.cpu.thread_num, ctx.verify_checksum, False,
                        _PRECISIONS[ctx.cpu.precision_mode])
        self._model, self._outputs, self._train = model, [], bool(train)

    def _trainer(self, api):
        model = self._built()
        if not self._train:
            raise ValueError(f"For 'Model.{api}', build the model with train=True.")
        return model

    def train_step(self, inputs, labels):
        """One training step on a batch: forward, loss (softmax cross-entropy of output 0
        against ``labels``, int class indices of shape [batch], batch mean), backward and
        the optimizer's update. ``inputs`` as for ``predict``. Returns the loss (a float,
        before the update)."""
        model = self._trainer("train_step")
        labels = np.asarray(labels)
        if labels.dtype.kind not in "iu":
            raise TypeError(f"For 'Model.train_step', labels must be integer class indices, "
                            f"but got dtype {labels.dtype}.")
        return float(model.train_step(self._arrays(inputs, "train_step"),
                                      labels.astype(np.int32)))

    def export(self, model_path):
        """Writes the model with its trained weights to ``model_path`` (a ``.ms`` file that
        ``build_from_file`` reads, for inference or more training, and ``mycel.load``)."""
        self._trainer("export").export(str(model_path))

    def get_trainable_names(self):
        """The names of the weights ``train_step`` updates."""
        return list(self._trainer("get_trainable_names").trainable())

    def get_inputs(self):
        """One zero-filled ``Tensor`` per input, with its name and current shape."""
        return [Tensor(name, shape) for name, shape in self._built().inputs()]

    def get_outputs(self):
        """The outputs of the last ``predict`` (zero-filled before one)."""
        model = self._built()
        return self._outputs or [Tensor(name, shape) for name, shape in model.outputs()]

    def resize(self, inputs, dims):
        """Gives the inputs (``get_inputs()``'s tensors) the shapes ``dims`` (a list per
        input); a shape some node cannot take is a ValueError naming it."""
        model = self._built()
        if self._train:
            raise ValueError("For 'Model.resize', a training model keeps the batch it was "
                             "converted with.")
        if len(inputs) != len(dims):
            raise ValueError(f"For 'Model.resize', got {len(inputs)} inputs and {len(dims)} "
                             "shapes.")
        model.resize([[int(d) for d in shape] for shape in dims])

    def predict(self, inputs):
        """Runs the model on ``inputs`` (lite ``Tensor``s or numpy arrays, in input order);
        returns the outputs as lite ``Tensor``s."""
        model = self._built()
        arrays = self._arrays(inputs, "predict")
        self._outputs = [Tensor(name, data=data) for name, data in model.predict(arrays)]
        return list(self._outputs)

    @staticmethod
    def _arrays(inputs, api):
        arrays = []
        for i, x in enumerate(inputs):
            if isinstance(x, Tensor):
                arrays.append(x._data)
            elif isinstance(x, np.ndarray):
                arrays.append(x)
            else:
                raise TypeError(f"For 'Model.{api}', input {i} must be a lite Tensor or a "
                                f"numpy array, but got {type(x).__name__}.")
        return arrays
