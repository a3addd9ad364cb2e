"""The functional API, one module per family; mycel.ops re-exports all of it."""
from mycel.ops.function.math_func import *  # noqa: F401,F403
from mycel.ops.function.nn_func import *  # noqa: F401,F403
from mycel.ops.function.array_func import *  # noqa: F401,F403
from mycel.ops.function.random_func import *  # noqa: F401,F403
from mycel.ops.function.resample_func import *  # noqa: F401,F403
from mycel.ops.function.loss_func import *  # noqa: F401,F403
from mycel.ops.function.sort_scan_func import *  # noqa: F401,F403
from mycel.ops.function.layout_func import *  # noqa: F401,F403
from mycel.ops.function.einsum_func import *  # noqa: F401,F403
from mycel.ops.function.unary_func import *  # noqa: F401,F403
from mycel.ops.function.compat_func import *  # noqa: F401,F403
from mycel.ops.function.scatter_func import *  # noqa: F401,F403
from mycel.ops.function.linalg_func import *  # noqa: F401,F403
from mycel.ops.function.segment_func import *  # noqa: F401,F403
from mycel.ops.function.math_ext_func import *  # noqa: F401,F403
from mycel.ops.function.array_ext_func import *  # noqa: F401,F403
from mycel.ops.function.bitwise_func import *  # noqa: F401,F403
