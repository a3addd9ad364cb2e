"""Parameter: a trainable weight, MindSpore 2.x's ``mindspore.Parameter``.

A Parameter is a Tensor (a subclass: every op takes it) with a name and a requires_grad
flag. Built from a tensor it holds a copy of its data, as MindSpore's Parameter does (a
later write to the Parameter, an Assign in a graph, leaves that tensor alone). Assigned as an
attribute of an ``nn.Cell`` it is registered there; an unnamed one takes the attribute's
name, and a cell assigned into another cell prefixes its parameters' names with the
attribute path ("fc1.weight"), as MindSpore does. Graph mode passes Parameters to compiled
graphs as weight inputs rather than freezing them as constants. ``ParameterTuple`` is a
tuple of them with distinct names.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.common import _flatten

Tensor = _C.Tensor

PARAMETER_NAME_DEFAULT = "Parameter"
# An unnamed Parameter gets a unique generated name "Parameter#<k>" (MindSpore's), which a
# Cell attribute, a ParameterTuple held by a Cell or insert_param_to_cell replaces.
_GENERATED_PARAMETER_NAME_PREFIX = PARAMETER_NAME_DEFAULT + "#"
_PARAMETER_NAME_ID = [0]


def _generate_parameter_name():
    """A new "Parameter#<k>" name."""
    name = _GENERATED_PARAMETER_NAME_PREFIX + str(_PARAMETER_NAME_ID[0])
    _PARAMETER_NAME_ID[0] += 1
    return name


def _is_parameter_generated(param_name):
    """Whether `param_name` is a generated name (the Parameter was made without one)."""
    return isinstance(param_name, str) and param_name.startswith(_GENERATED_PARAMETER_NAME_PREFIX)


class Parameter(Tensor):
    """Parameter(default_input, name=None, requires_grad=True): a named trainable tensor.

    default_input is a Tensor (copied; a Parameter too, as MindSpore: the new Parameter holds
    a copy of its data, under its own name), a numpy array, a Python number or a nested list
    (converted as mycel.Tensor would)."""

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True, storage_format="", device=None):
        if isinstance(default_input, (bool, np.bool_)):
            raise ValueError("For 'Parameter', default_input must be a Tensor, a numpy array, "
                             "an int, a float or a list of numbers, but got a bool.")
        data = default_input.copy() if isinstance(default_input, Tensor) else \
            Tensor(default_input)
        self._init_from(data, name, requires_grad, layerwise_parallel, parallel_optimizer,
                        storage_format, device)

    def _init_from(self, data, name, requires_grad, layerwise_parallel=False,
                   parallel_optimizer=True, storage_format="", device=None):
        for flag, value in (("layerwise_parallel", layerwise_parallel),
                            ("parallel_optimizer", parallel_optimizer)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'Parameter', {flag} must be a bool, but got "
                                f"{type(value).__name__}.")
        if not isinstance(storage_format, str) or device not in (None, "CPU", "Ascend", "GPU"):
            raise ValueError(f"For 'Parameter', storage_format must be a str and device None "
                             f"or a device name, but got {storage_format!r} and {device!r}.")
        Tensor.__init__(self, None, data.dtype, ())  # a placeholder, replaced just below
        _C._tensor_assign(self, data)                # take the data's storage
        self.name = name
        self.requires_grad = requires_grad
        # Read by the parallel layer: a layerwise-parallel weight is not averaged across data
        # parallel ranks; parallel_optimizer=False keeps it out of optimizer sharding.
        self.layerwise_parallel = layerwise_parallel
        self.parallel_optimizer = parallel_optimizer

    @classmethod
    def _from_tensor(cls, tensor, name=None, requires_grad=True):
        """A Parameter sharing `tensor`'s storage (no copy): a write through either shows in
        the other (MindSpore's Parameter._from_tensor)."""
        if not isinstance(tensor, Tensor):
            raise TypeError(f"For 'Parameter._from_tensor', the input must be a Tensor, but "
                            f"got {type(tensor).__name__}.")
        param = cls(0.0, name, requires_grad)
        _C._tensor_assign(param, tensor)  # takes the storage, dtype and shape
        return param

    @property
    def name(self):
        """The parameter's name: a generated unique "Parameter#<k>" until a name or a cell
        attribute sets it (None or a blank name also generates one; names are stripped)."""
        return self._name

    @name.setter
    def name(self, value):
        if value is not None and not isinstance(value, str):  # a ValueError, as MindSpore's
            raise ValueError(f"For 'Parameter', the name must be a str or None, but got "
                             f"{type(value).__name__}.")
        value = None if value is None else value.strip()
        self._name = value if value else _generate_parameter_name()

    @property
    def requires_grad(self):
        """Whether optimizers update it (trainable_params())."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if not isinstance(value, bool):
            raise TypeError(f"For 'Parameter', requires_grad must be a bool, but got "
                            f"{type(value).__name__}.")
        self._requires_grad = value

    @property
    def data(self):
        """The parameter itself (MindSpore's Parameter.data)."""
        return self

    def value(self):
        """The parameter's current value (MindSpore's Parameter.value): the parameter itself,
        a Tensor, so later updates show in it."""
        return self

    def set_data(self, data, slice_shape=False):
        """Replaces the data (shared with `data`; cast to this parameter's dtype when it has
        another). As in MindSpore the shape may change: a graph that read the parameter is
        compiled again for the new shape on its next call (GRAPH mode, @jit), whatever
        `slice_shape` (MindSpore's flag for a rank's slice under semi-automatic parallelism)
        says. `data` is a Tensor, an int or a float (a TypeError for anything else, and for a
        Python float set into an integer parameter). Returns self."""
        if isinstance(data, (bool, np.bool_)) or not isinstance(data, (Tensor, int, float)):
            raise TypeError(f"For 'Parameter.set_data', the data must be a Tensor, an int or a "
                            f"float, but got {type(data).__name__} (name={self.name}).")
        if not isinstance(data, Tensor):
            if isinstance(data, float) and not self.dtype.is_floating_point:
                raise TypeError(f"For 'Parameter.set_data', a float cannot be set into the "
                                f"{self.dtype} parameter '{self.name}' (Use .set_dtype(xxx) "
                                f"to change the dtype).")
            data = Tensor(data, self.dtype)
        if data.dtype != self.dtype:
            data = data.astype(self.dtype)
        _flatten._forget(self)  # no longer a view of a flattened chunk
        _C._tensor_assign(self, data)
        self.sliced = bool(slice_shape)
        return self

    def clone(self, init="same"):
        """A new Parameter with a copy of the data, named like this one."""
        if init != "same":
            raise ValueError("For 'Parameter.clone', only init='same' is supported.")
        return Parameter(Tensor.copy(self), self.name, self.requires_grad)

    def copy(self):
        """A new Parameter with a copy of the data (MindSpore's Parameter.copy: clone)."""
        return self.clone()

    def __repr__(self):
        return (f"Parameter (name={self.name}, shape={tuple(self.shape)}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    __str__ = __repr__

    def __reduce__(self):  # pickles as numpy data (Tensor itself does not pickle)
        return (_rebuild, (self.asnumpy().copy(), self.dtype.name, self.name,
                           self.requires_grad))


def _rebuild(array, dtype_name, name, requires_grad):
    return Parameter(Tensor(array, _C.dtype_from_name(dtype_name)), name, requires_grad)


class ParameterTuple(tuple):
    """ParameterTuple(iterable): a tuple of Parameters with distinct names (MindSpore's): what
    ``grad(..., weights=...)`` and optimizers take, and what a Cell may hold as an attribute
    (a constant tuple of weights in GRAPH mode). A TypeError for an item that is not a
    Parameter, a ValueError for a name that two different Parameters share (one Parameter may
    appear more than once, as in MindSpore)."""

    # Graph code sees a ParameterTuple as the plain tuple of its Parameters
    # (frontend/py_value.cc).
    __mycel_graph_tuple__ = True

    def __new__(cls, iterable):
        items = tuple(iterable)
        names = {}
        for x in items:
            if not isinstance(x, Parameter):
                raise TypeError(f"For 'ParameterTuple', each element must be a Parameter, but "
                                f"got {type(x).__name__}.")
            if names.setdefault(x.name, x) is not x:
                raise ValueError(f"For 'ParameterTuple', the name '{x.name}' appears twice; "
                                 "set a unique name for each Parameter.")
        return tuple.__new__(cls, items)

    def clone(self, prefix, init="same"):
        """A ParameterTuple of new Parameters named `prefix`.<name>: copies of these
        (init='same'), or of their shapes and dtypes filled with 'zeros' or 'ones'."""
        if not isinstance(prefix, str) or not prefix:
            raise ValueError(f"For 'ParameterTuple.clone', the 'prefix' must be a non-empty "
                             f"string, but got {prefix!r}.")
        fill = {"zeros": 0.0, "ones": 1.0}
        if init != "same" and init not in fill:
            raise ValueError(f"For 'ParameterTuple.clone', the 'init' must be 'same', 'zeros' "
                             f"or 'ones', but got {init!r}.")
        out = []
        for p in self:
            data = Tensor.copy(p) if init == "same" else Tensor(
                np.full(tuple(p.shape), fill[init]), _C.float64).astype(p.dtype)
            out.append(Parameter(data, f"{prefix}.{p.name}", p.requires_grad))
        return ParameterTuple(out)
