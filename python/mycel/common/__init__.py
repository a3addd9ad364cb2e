"""Core objects: Tensor and dtypes (``mindspore.common.Tensor``, ``mindspore.common.dtype``),
and the compile helpers MindSpore programs import from here (``mutable``, ``JitConfig``,
``jit``)."""
from mycel._mycel import Tensor  # noqa: F401
from mycel.common.parameter import Parameter, ParameterTuple  # noqa: F401,E402
# The submodule first (mindspore.common.mutable), then the name bound to the function.
from mycel.common import mutable as _mutable_module  # noqa: F401,E402
from mycel.common.api import mutable, JitConfig, jit  # noqa: F401,E402,F811
from mycel._mycel import set_seed, get_seed  # noqa: F401,E402 (MindSpore's common.seed)
