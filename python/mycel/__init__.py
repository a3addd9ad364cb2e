"""mycel: a deep-learning framework with MindSpore's design and a C++ core.

``import mycel as ms`` reads like MindSpore 2.x: ``ms.Tensor``, ``ms.float32``, ``ms.ops``,
``ms.nn``, ``ms.set_seed``, ``ms.set_context``.
"""
import os as _os

# A developer build tree may put the extension elsewhere (cmake -DMYCEL_PY_OUT=...).
if _os.environ.get("MYCEL_EXT_DIR"):
    __path__.insert(0, _os.environ["MYCEL_EXT_DIR"])  # noqa: F821 (the package __path__)

# OpenMP worker threads sleep when idle instead of spinning (unless the user chose): on a
# shared or busy machine spinning workers steal the cores the kernels need (kernels ran 10-20x
# slower under load); on a quiet one the difference is within noise. libgomp reads this when
# the extension loads it.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# A short spin before sleeping (libgomp honours an explicit GOMP_SPINCOUNT under PASSIVE; its
# default there is 0): a worker that sleeps between two kernels costs a wake-up each time
# (346 voluntary context switches per ResNet-18 step). Measured on 2 cores: quiet, ResNet-18
# training 77 -> 67 ms and the Transformer step 89 -> 79 ms (bfloat16 65 -> 51 ms); with two
# busy processes on the cores, 131 -> 139 ms (within the noise there; 30000 doubled CPU time).
_os.environ.setdefault("GOMP_SPINCOUNT", "3000")

from mycel import _mycel  # noqa: E402
from mycel._mycel import Tensor, from_numpy, set_seed, get_seed  # noqa: E402,F401
from mycel._mycel import (int8, uint8, int16, int32, int64, float16, bfloat16,  # noqa: E402
                          float32, float64, DType, dtype_from_name)  # noqa: F401
from mycel import common  # noqa: E402,F401
from mycel.common import tensor as _tensor_methods  # noqa: E402,F401  (attaches methods)
from mycel.common.parameter import Parameter, ParameterTuple  # noqa: E402,F401
from mycel import ops, numpy, nn, context, hal  # noqa: E402,F401
from mycel.common.api import jit, mutable  # noqa: E402,F401
from mycel.common.api import JitConfig  # noqa: E402,F401
from mycel.ops.composite import (grad, value_and_grad, vjp, jvp, jacfwd,  # noqa: E402,F401
                                 jacrev)
from mycel.ops._vmap import vmap  # noqa: E402,F401
from mycel.common._no_grad import _no_grad  # noqa: E402,F401
from mycel.common.recompute import recompute  # noqa: E402,F401
from mycel.context import (set_context, get_context, GRAPH_MODE,  # noqa: E402,F401
                           PYNATIVE_MODE)
from mycel.context import STRICT, COMPATIBLE, LAX  # noqa: E402,F401
from mycel.train import (save_checkpoint, load_checkpoint,  # noqa: E402,F401
                         load_param_into_net)
from mycel.train import export, load, Model  # noqa: E402,F401
from mycel import train  # noqa: E402,F401
from mycel.train import data_sink  # noqa: E402,F401
from mycel.train import (SummaryRecord, SummaryCollector,  # noqa: E402,F401
                         SummaryLandscape)
from mycel import amp  # noqa: E402,F401
from mycel import device_context  # noqa: E402,F401
from mycel import parallel, communication  # noqa: E402,F401
from mycel.parallel import (Layout, ParallelMode, set_auto_parallel_context,  # noqa: E402,F401
                            get_auto_parallel_context, reset_auto_parallel_context,
                            build_searched_strategy, merge_sliced_parameter,
                            load_distributed_checkpoint, transform_checkpoints,
                            transform_checkpoint_by_rank)
from mycel.parallel.algo import (set_algo_parameters, get_algo_parameters,  # noqa: E402,F401
                                 reset_algo_parameters)
from mycel.parallel.shard import shard  # noqa: E402,F401

bool_ = getattr(_mycel, "bool")
float_ = float32
int_ = int32
from mycel.common import dtype  # noqa: E402  (ms.dtype.float32, as mindspore.dtype)

from mycel.version import __version__  # noqa: E402,F401
__all__ = ["Tensor", "from_numpy", "set_seed", "get_seed", "set_context", "get_context",
           "GRAPH_MODE", "PYNATIVE_MODE", "jit", "mutable", "grad", "value_and_grad", "vjp", "jvp",
           "jacfwd", "jacrev", "Parameter", "ParameterTuple", "ops", "nn", "numpy", "context",
           "parallel", "communication", "Layout", "ParallelMode", "set_auto_parallel_context",
           "get_auto_parallel_context", "reset_auto_parallel_context", "bool_", "int8",
           "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
           "amp", "vmap"]
__all__ += ["set_algo_parameters", "get_algo_parameters", "reset_algo_parameters", "shard"]
__all__ += ["recompute"]
from mycel.common.sparse_tensor import (CSRTensor, COOTensor, RowTensor,  # noqa: E402,F401
                                        SparseTensor)
__all__ += ["CSRTensor", "COOTensor", "RowTensor", "SparseTensor"]
__all__ += ["STRICT", "COMPATIBLE", "LAX"]

from mycel.common.api import jit_class  # noqa: E402,F401  (MindSpore's name)
__all__ += ["jit_class"]

from mycel._mycel import uint16, uint32, uint64  # noqa: E402,F401
__all__ += ["uint16", "uint32", "uint64"]

from mycel._mycel import complex64, complex128  # noqa: E402,F401
__all__ += ["complex64", "complex128"]
from mycel.common.dtype import dtype_to_pytype, get_py_obj_dtype  # noqa: E402,F401
__all__ += ["dtype_to_pytype", "get_py_obj_dtype"]



def is_tensor(obj):
    """Whether obj is a mycel Tensor (a Parameter included), as ``mindspore.is_tensor``."""
    return isinstance(obj, Tensor)
from mycel.common.dtype import dtype_to_nptype, pytype_to_dtype  # noqa: E402,F401
__all__ += ["dtype_to_nptype", "pytype_to_dtype"]

# MindSpore 2.x's torch-style namespace, the compile hints, and the runtime API.
from mycel import mint  # noqa: E402,F401
from mycel.common.lazy_inline import lazy_inline, no_inline  # noqa: E402,F401
__all__ += ["mint", "lazy_inline", "no_inline"]

# MindSpore's top-level helpers (common/toplevel.py), dtype aliases and types.
from mycel.common.toplevel import (manual_seed, seed, initial_seed,  # noqa: E402,F401
                                   get_rng_state, set_rng_state, set_device, dtype_to_pytype,
                                   get_py_obj_dtype, run_check)
from mycel.common.dtype import (half, single, double, byte, short, intc, intp,  # noqa: E402,F401
                                ubyte, ushort, uintc, uintp, string, TensorType, Type)
from mycel.ops.primitive import constexpr  # noqa: E402,F401
from mycel.ops.composite import get_grad  # noqa: E402,F401
__all__ += ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
            "set_device", "dtype_to_pytype", "get_py_obj_dtype", "run_check", "half", "single",
            "double", "byte", "short", "intc", "intp", "ubyte", "ushort", "uintc", "uintp",
            "string", "TensorType", "Type", "constexpr", "get_grad"]
tensor_type = TensorType
from mycel.train import (check_checkpoint, ckpt_to_safetensors,  # noqa: E402,F401
                         safetensors_to_ckpt, load_checkpoint_async, async_ckpt_thread_status)
from mycel.train.dataset_helper import DatasetHelper  # noqa: E402,F401
from mycel.log import get_level, get_log_config  # noqa: E402,F401
__all__ += ["check_checkpoint", "ckpt_to_safetensors", "safetensors_to_ckpt",
            "load_checkpoint_async", "async_ckpt_thread_status", "DatasetHelper", "get_level",
            "get_log_config"]
from mycel.common.toplevel import ms_memory_recycle  # noqa: E402,F401
from mycel.common.generator import Generator, default_generator  # noqa: E402,F401
from mycel.common.toplevel import (get_current_device, set_recursion_limit,  # noqa: E402,F401
                                   set_deterministic)
from mycel.common.print_file import parse_print  # noqa: E402,F401
from mycel.train.mindir_proto import load_mindir, save_mindir  # noqa: E402,F401
from mycel.common.dtype import (list_, tuple_, type_none, number, uint, Int,  # noqa: E402,F401
                                QuantDtype)
__all__ += ["Generator", "default_generator", "get_current_device", "set_recursion_limit",
            "set_deterministic",
            "parse_print", "list_", "tuple_", "type_none", "number", "uint", "Int",
            "QuantDtype", "load_mindir", "save_mindir"]
from mycel.train.dataset_helper import connect_network_with_dataset  # noqa: E402,F401
__all__ += ["ms_memory_recycle", "connect_network_with_dataset"]
from mycel import profiler  # noqa: E402,F401
from mycel.profiler import Profiler  # noqa: E402,F401
__all__ += ["Profiler"]
from mycel.common.symbol import Symbol  # noqa: E402,F401
__all__ += ["Symbol"]


def tensor(input_data=None, dtype=None, shape=None, init=None, const_arg=False, device=None):
    """A Tensor of input_data (``mindspore.tensor``, the function form of ``Tensor(...)``).

    device: only None or "CPU" (mycel places tensors on the CPU unless moved with ``.to``).
    """
    if device not in (None, "CPU", "cpu"):
        raise ValueError(f"For 'tensor', device must be None or 'CPU', but got {device!r}.")
    if isinstance(input_data, Tensor) and shape is None and init is None and not const_arg:
        # a new tensor of its value (also in graph code, where Tensor(...) of a run-time value
        # would go through the JIT fallback)
        return ops.cast(input_data, input_data.dtype if dtype is None else dtype)
    if input_data is not None and shape is None and init is None and not const_arg:
        return Tensor(input_data, dtype)
    return Tensor(input_data, dtype, shape, init, const_arg=const_arg)


__all__ += ["tensor"]
