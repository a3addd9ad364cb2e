"""mycel: a deep-learning framework with MindSpore's design and a C++ core.

``import mycel as ms`` reads like MindSpore 2.x: ``ms.Tensor``, ``ms.float32``, ``ms.ops``,
``ms.set_seed``, ...
"""
import os as _os

# A developer build tree may put the extension elsewhere (cmake -DMYCEL_PY_OUT=...).
if _os.environ.get("MYCEL_EXT_DIR"):
    __path__.insert(0, _os.environ["MYCEL_EXT_DIR"])  # noqa: F821 (package __path__)

from mycel._mycel import Tensor, from_numpy, set_seed, get_seed  # noqa: E402,F401
from mycel._mycel import (int8, uint8, int16, int32, int64, float16, bfloat16,  # noqa
                          float32, float64, DType, dtype_from_name)
from mycel import _mycel  # noqa: E402
from mycel import ops  # noqa: E402,F401
bool_ = getattr(_mycel, "bool")  # noqa: F821
