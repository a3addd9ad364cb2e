"""The base class of probability distributions (MindSpore 2.x's
``nn.probability.distribution.Distribution``).

A distribution is a Cell. Its parameters given at construction are its defaults; every
method also takes them again (``dist_spec_args``: ``normal.prob(x, mean, sd)``), which
evaluates another distribution of the same family without changing this one. Subclasses
implement the private forms (``_log_prob``, ``_cdf``, ``_mean``, ...); the base class
derives the ones a subclass leaves out where a formula relates them (prob = exp(log_prob),
survival = 1 - cdf, sd = sqrt(var), ...) and raises NotImplementedError for the rest.
``construct(name, *args)`` dispatches by the method's name, so ``dist('prob', x)`` works.

Every method is ordinary mycel code (ops on Tensors), so it runs eagerly in PYNATIVE mode
and compiles inside a Cell's ``construct`` in GRAPH mode.

Subclass protocol: ``__init__(self, seed, dtype, name, param)`` where ``param`` holds the
subclass's ``__init__`` arguments (``dict(locals())``) and ``param['param_dict']`` its
distribution parameters by name; the subclass then registers each with
``self._add_parameter(value, name)`` and reads them back in its methods with
``self._check_param_type(*dist_spec_args)``.
"""
import numpy as np

from mycel import ops
from mycel.nn.cell import Cell
from mycel.nn.probability.distribution._utils.utils import (
    cast_to_tensor, cast_type_for_device, set_param_type, raise_none_error,
    raise_not_implemented_util, CheckTuple, CheckTensor, check_tensor)
from mycel.nn.probability.distribution._utils.custom_ops import (
    broadcast_to, exp_generic, log_generic)


def _check_name_seed(name, seed, owner):
    if not isinstance(name, str):
        raise TypeError(f"For '{owner}', the 'name' should be str, but got "
                        f"{type(name).__name__}.")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"For '{name}', the 'seed' should be int, but got "
                        f"{type(seed).__name__}.")
    if seed < 0:
        raise ValueError(f"For '{name}', the 'seed' should be >= 0, but got {seed}.")


class Distribution(Cell):
    """Base class of distributions (module docstring).

    Args:
        seed (int): the seed of sampling (None: 0, the global seed).
        dtype (mycel.dtype): the type of the event samples.
        name (str): the distribution's name.
        param (dict): the subclass's constructor arguments, with 'param_dict'.
    """

    def __init__(self, seed, dtype, name, param):
        super().__init__()
        if seed is None:
            seed = 0
        _check_name_seed(name, seed, type(self).__name__)
        self._name = name
        self._seed = seed
        self._dtype = cast_type_for_device(dtype)
        self._dist_params = {k: v for k, v in param.items()
                             if not (k == "self" or k.startswith("_"))}
        if "distribution" not in self._dist_params:
            self.parameter_type = set_param_type(self._dist_params["param_dict"], dtype)
            self._batch_shape = self._calc_batch_shape()
            self._is_scalar_batch = self._check_is_scalar_batch()
            self._broadcast_shape = self._batch_shape
        self._set_prob()
        self._set_log_prob()
        self._set_sd()
        self._set_var()
        self._set_cdf()
        self._set_survival()
        self._set_log_cdf()
        self._set_log_survival()
        self._set_cross_entropy()
        self.checktuple = CheckTuple()
        self.checktensor = CheckTensor()
        self.broadcast = broadcast_to
        self.exp_base = exp_generic
        self.log_base = log_generic

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def seed(self):
        return self._seed

    @property
    def parameters(self):
        return self._dist_params

    @property
    def is_scalar_batch(self):
        return self._is_scalar_batch

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def broadcast_shape(self):
        return self._broadcast_shape

    def _sample_seed(self):
        """The seed the random ops get: None (the global stream) when this one is 0."""
        return None if self._seed == 0 else self._seed

    def _reset_parameters(self):
        self.default_parameters = []
        self.parameter_names = []

    def _add_parameter(self, value, name):
        """`value` as a Tensor of the parameter type (None stays None), recorded as the
        default of parameter `name`."""
        if "default_parameters" not in self.__dict__:
            self._reset_parameters()
        value_t = None if value is None else cast_to_tensor(value, self.parameter_type)
        self.default_parameters = self.default_parameters + [value_t]
        self.parameter_names = self.parameter_names + [name]
        return value_t

    def _check_param_type(self, *args):
        """The parameters a call uses: each given argument (a Tensor, else a TypeError) or
        else its default (a TypeError when both are None), cast to the parameter type and
        broadcast together. One parameter is returned as it is, several as a tuple."""
        out = ()
        for arg, name, default in zip(args, self.parameter_names, self.default_parameters):
            if arg is not None:
                arg = check_tensor(arg, name)
            elif default is not None:
                arg = default
            else:
                arg = raise_none_error(name)
            out = out + (ops.cast(arg, self.parameter_type),)
        if len(out) == 1:
            return out[0]
        total = out[0]
        for a in out[1:]:
            total = total + a
        zero = ops.zeros_like(total)
        result = ()
        for a in out:
            result = result + (a + zero,)
        return result

    def _check_value(self, value, name):
        """`value` when it is a Tensor, else a TypeError naming `name`."""
        return check_tensor(value, name)

    def _check_is_scalar_batch(self):
        for value in self._dist_params["param_dict"].values():
            if value is not None and not isinstance(value, (int, float)):
                return False
        return True

    def _calc_batch_shape(self):
        """The broadcast shape of the parameters given at construction (None if one is
        missing); a ValueError when they do not broadcast."""
        shapes = []
        for value in self._dist_params["param_dict"].values():
            if value is None:
                return None
            shapes.append(tuple(cast_to_tensor(value).shape))
        try:
            return tuple(np.broadcast_shapes(*shapes)) if shapes else ()
        except ValueError:
            raise ValueError(f"For '{self._name}', the parameters' shapes {shapes} are not "
                             "broadcastable.") from None

    # --- choosing the implementation of each method -------------------------------------
    def _has(self, name):
        return hasattr(type(self), name)

    def _set_prob(self):
        if self._has("_prob"):
            self._call_prob = self._prob
        elif self._has("_log_prob"):
            self._call_prob = self._calc_prob_from_log_prob
        else:
            self._call_prob = self._raise_not_implemented_error("prob")

    def _set_sd(self):
        if self._has("_sd"):
            self._call_sd = self._sd
        elif self._has("_var"):
            self._call_sd = self._calc_sd_from_var
        else:
            self._call_sd = self._raise_not_implemented_error("sd")

    def _set_var(self):
        if self._has("_var"):
            self._call_var = self._var
        elif self._has("_sd"):
            self._call_var = self._calc_var_from_sd
        else:
            self._call_var = self._raise_not_implemented_error("var")

    def _set_log_prob(self):
        if self._has("_log_prob"):
            self._call_log_prob = self._log_prob
        elif self._has("_prob"):
            self._call_log_prob = self._calc_log_prob_from_prob
        else:
            self._call_log_prob = self._raise_not_implemented_error("log_prob")

    def _set_cdf(self):
        if self._has("_cdf"):
            self._call_cdf = self._cdf
        elif self._has("_log_cdf"):
            self._call_cdf = self._calc_cdf_from_log_cdf
        elif self._has("_survival_function"):
            self._call_cdf = self._calc_cdf_from_survival
        elif self._has("_log_survival"):
            self._call_cdf = self._calc_cdf_from_log_survival
        else:
            self._call_cdf = self._raise_not_implemented_error("cdf")

    def _set_survival(self):
        if self._has("_survival_function"):
            self._call_survival = self._survival_function
        elif self._has("_log_survival"):
            self._call_survival = self._calc_survival_from_log_survival
        elif self._has("_cdf") or self._has("_log_cdf"):
            self._call_survival = self._calc_survival_from_call_cdf
        else:
            self._call_survival = self._raise_not_implemented_error("survival_function")

    def _set_log_cdf(self):
        if self._has("_log_cdf"):
            self._call_log_cdf = self._log_cdf
        elif (self._has("_cdf") or self._has("_survival_function")
              or self._has("_log_survival")):
            self._call_log_cdf = self._calc_log_cdf_from_call_cdf
        else:
            self._call_log_cdf = self._raise_not_implemented_error("log_cdf")

    def _set_log_survival(self):
        if self._has("_log_survival"):
            self._call_log_survival = self._log_survival
        elif self._has("_survival_function") or self._has("_log_cdf") or self._has("_cdf"):
            self._call_log_survival = self._calc_log_survival_from_call_survival
        else:
            self._call_log_survival = self._raise_not_implemented_error("log_survival")

    def _set_cross_entropy(self):
        if self._has("_cross_entropy"):
            self._call_cross_entropy = self._cross_entropy
        else:
            self._call_cross_entropy = self._raise_not_implemented_error("cross_entropy")

    def _raise_not_implemented_error(self, func_name):
        name = self._name

        def raise_error(*args, **kwargs):
            return raise_not_implemented_util(func_name, name, *args, **kwargs)
        return raise_error

    # --- derived forms --------------------------------------------------------------------
    def _calc_prob_from_log_prob(self, value, *args, **kwargs):
        return self.exp_base(self._log_prob(value, *args, **kwargs))

    def _calc_log_prob_from_prob(self, value, *args, **kwargs):
        return self.log_base(self._prob(value, *args, **kwargs))

    def _calc_cdf_from_log_cdf(self, value, *args, **kwargs):
        return self.exp_base(self._log_cdf(value, *args, **kwargs))

    def _calc_cdf_from_survival(self, value, *args, **kwargs):
        return 1.0 - self._survival_function(value, *args, **kwargs)

    def _calc_cdf_from_log_survival(self, value, *args, **kwargs):
        return 1.0 - self.exp_base(self._log_survival(value, *args, **kwargs))

    def _calc_log_cdf_from_call_cdf(self, value, *args, **kwargs):
        return self.log_base(self._call_cdf(value, *args, **kwargs))

    def _calc_survival_from_call_cdf(self, value, *args, **kwargs):
        return 1.0 - self._call_cdf(value, *args, **kwargs)

    def _calc_survival_from_log_survival(self, value, *args, **kwargs):
        return self.exp_base(self._log_survival(value, *args, **kwargs))

    def _calc_log_survival_from_call_survival(self, value, *args, **kwargs):
        return self.log_base(self._call_survival(value, *args, **kwargs))

    def _calc_sd_from_var(self, *args, **kwargs):
        return ops.sqrt(self._var(*args, **kwargs))

    def _calc_var_from_sd(self, *args, **kwargs):
        return ops.square(self._sd(*args, **kwargs))

    def _calc_cross_entropy(self, dist, *args, **kwargs):
        """H(a, b) = H(a) + KL(a || b)."""
        return self._entropy(*args, **kwargs) + self._kl_loss(dist, *args, **kwargs)

    # --- defaults a subclass overrides ----------------------------------------------------
    def _get_dist_args(self, *args, **kwargs):
        return raise_not_implemented_util("get_dist_args", self._name, *args, **kwargs)

    def _get_dist_type(self):
        return raise_not_implemented_util("get_dist_type", self._name)

    def _kl_loss(self, *args, **kwargs):
        return raise_not_implemented_util("kl_loss", self._name, *args, **kwargs)

    def _mean(self, *args, **kwargs):
        return raise_not_implemented_util("mean", self._name, *args, **kwargs)

    def _mode(self, *args, **kwargs):
        return raise_not_implemented_util("mode", self._name, *args, **kwargs)

    def _entropy(self, *args, **kwargs):
        return raise_not_implemented_util("entropy", self._name, *args, **kwargs)

    def _sample(self, *args, **kwargs):
        return raise_not_implemented_util("sample", self._name, *args, **kwargs)

    # --- the public methods ---------------------------------------------------------------
    def get_dist_args(self, *args, **kwargs):
        """The distribution's parameters: the given ones, the defaults for the others."""
        return self._get_dist_args(*args, **kwargs)

    def get_dist_type(self):
        """The distribution's family name ('Normal', ...)."""
        return self._get_dist_type()

    def log_prob(self, value, *args, **kwargs):
        """log of the pdf (pmf) at `value`."""
        return self._call_log_prob(value, *args, **kwargs)

    def prob(self, value, *args, **kwargs):
        """The pdf (pmf) at `value`."""
        return self._call_prob(value, *args, **kwargs)

    def cdf(self, value, *args, **kwargs):
        """The cumulative distribution function at `value`."""
        return self._call_cdf(value, *args, **kwargs)

    def log_cdf(self, value, *args, **kwargs):
        """log of the cdf at `value`."""
        return self._call_log_cdf(value, *args, **kwargs)

    def survival_function(self, value, *args, **kwargs):
        """1 - cdf at `value`."""
        return self._call_survival(value, *args, **kwargs)

    def log_survival(self, value, *args, **kwargs):
        """log of the survival function at `value`."""
        return self._call_log_survival(value, *args, **kwargs)

    def kl_loss(self, dist, *args, **kwargs):
        """KL(self || other), `other` a distribution of family `dist` given by its
        parameters (then, optionally, this one's)."""
        return self._kl_loss(dist, *args, **kwargs)

    def mean(self, *args, **kwargs):
        """The mean."""
        return self._mean(*args, **kwargs)

    def mode(self, *args, **kwargs):
        """The mode."""
        return self._mode(*args, **kwargs)

    def sd(self, *args, **kwargs):
        """The standard deviation."""
        return self._call_sd(*args, **kwargs)

    def var(self, *args, **kwargs):
        """The variance."""
        return self._call_var(*args, **kwargs)

    def entropy(self, *args, **kwargs):
        """The (differential) entropy."""
        return self._entropy(*args, **kwargs)

    def cross_entropy(self, dist, *args, **kwargs):
        """H(self, other) = H(self) + KL(self || other)."""
        return self._call_cross_entropy(dist, *args, **kwargs)

    def sample(self, *args, **kwargs):
        """Samples of shape `shape + batch_shape` (`shape` a tuple, default ())."""
        return self._sample(*args, **kwargs)

    def construct(self, name, *args, **kwargs):
        """Calls the method `name` ('prob', 'log_prob', 'cdf', 'log_cdf',
        'survival_function', 'log_survival', 'var', 'sd', 'mode', 'mean', 'entropy',
        'kl_loss', 'cross_entropy', 'sample', 'get_dist_args', 'get_dist_type')."""
        if name == "log_prob":
            return self._call_log_prob(*args, **kwargs)
        if name == "prob":
            return self._call_prob(*args, **kwargs)
        if name == "cdf":
            return self._call_cdf(*args, **kwargs)
        if name == "log_cdf":
            return self._call_log_cdf(*args, **kwargs)
        if name == "survival_function":
            return self._call_survival(*args, **kwargs)
        if name == "log_survival":
            return self._call_log_survival(*args, **kwargs)
        if name == "kl_loss":
            return self._kl_loss(*args, **kwargs)
        if name == "mean":
            return self._mean(*args, **kwargs)
        if name == "mode":
            return self._mode(*args, **kwargs)
        if name == "sd":
            return self._call_sd(*args, **kwargs)
        if name == "var":
            return self._call_var(*args, **kwargs)
        if name == "entropy":
            return self._entropy(*args, **kwargs)
        if name == "cross_entropy":
            return self._call_cross_entropy(*args, **kwargs)
        if name == "sample":
            return self._sample(*args, **kwargs)
        if name == "get_dist_args":
            return self._get_dist_args(*args, **kwargs)
        if name == "get_dist_type":
            return self._get_dist_type()
        return raise_not_implemented_util(name, self._name, *args, **kwargs)
