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
from mycel.ops.function.norm_func import *  # noqa: F401,F403
from mycel.ops.function.segment_func import *  # noqa: F401,F403
from mycel.ops.function.math_ext_func import *  # noqa: F401,F403
from mycel.ops.function.array_ext_func import *  # noqa: F401,F403
from mycel.ops.function.bitwise_func import *  # noqa: F401,F403
from mycel.ops.function.unique_func import *  # noqa: F401,F403
from mycel.ops.function.index_add_func import *  # noqa: F401,F403
from mycel.ops.function.tensor_ext_func import *  # noqa: F401,F403
from mycel.ops.function.select_func import *  # noqa: F401,F403
from mycel.ops.function.unpool_func import *  # noqa: F401,F403
from mycel.ops.function.pool3d_func import *  # noqa: F401,F403
from mycel.ops.function.diag_func import *  # noqa: F401,F403
from mycel.ops.function.pool_nd_func import *  # noqa: F401,F403
from mycel.ops.function.ctc_func import *  # noqa: F401,F403
from mycel.ops.function.deformable_func import *  # noqa: F401,F403
# MindSpore 2.x's ops breadth: composed array, math, nn, random/window, scatter and misc
# functions (breadth_*_func.py).
from mycel.ops.function.breadth_array_func import *  # noqa: F401,F403,E402
from mycel.ops.function.breadth_math_func import *  # noqa: F401,F403,E402
from mycel.ops.function.breadth_nn_func import *  # noqa: F401,F403,E402
from mycel.ops.function.breadth_random_func import *  # noqa: F401,F403,E402
from mycel.ops.function.breadth_scatter_func import *  # noqa: F401,F403,E402
from mycel.ops.function.breadth_misc_func import *  # noqa: F401,F403,E402
from mycel.ops.function.breadth_ext_func import *  # noqa: F401,F403,E402
