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
# MindSpore 2.x's functions composed from the table's: boxes (image_func), print_ and tensordump
# (debug_func), the transformer blocks (transformer_func) and partial (other_func).
from mycel.ops.function.image_func import *  # noqa: F401,F403,E402
from mycel.ops.function.debug_func import *  # noqa: F401,F403,E402
from mycel.ops.function.complex_func import sgn  # noqa: F401,E402
from mycel.ops.function.transformer_func import *  # noqa: F401,F403,E402
from mycel.ops.function.other_func import *  # noqa: F401,F403,E402
from mycel.ops.function.special_func import *  # noqa: F401,F403,E402
from mycel.ops.function.roi_func import roi_align  # noqa: F401,E402
from mycel.ops.function.eig_func import *  # noqa: F401,F403,E402
from mycel.ops.function.cholesky_func import *  # noqa: F401,F403
from mycel.ops.function.stats_ext_func import *  # noqa: F401,F403
from mycel.ops.function.sparse_cwise_func import *  # noqa: F401,F403
from mycel.ops.function.sparse_func import *  # noqa: F401,F403
from mycel.ops.function.attention_func import *  # noqa: F401,F403
from mycel.ops.function.rotated_iou_func import *  # noqa: F401,F403
# betainc, stft / istft and lstsq (betainc_func, stft_func, linalg_ext_func)
from mycel.ops.function.betainc_func import betainc  # noqa: F401,E402
from mycel.ops.function.stft_func import stft, istft  # noqa: F401,E402
from mycel.ops.function.linalg_ext_func import lstsq  # noqa: F401,E402
