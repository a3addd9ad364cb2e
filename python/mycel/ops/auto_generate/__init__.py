"""mycel.ops.auto_generate: where MindSpore 2.x programs import the primitives its op
definitions generate (``from mindspore.ops.auto_generate.gen_ops_prim import InplaceAddExt``).
mycel has one op table (src/ops/defs); the names here are those programs use, composed from
mycel's ops (gen_ops_prim: the classes and their instances; gen_ops_def: the instances)."""
from mycel.ops.auto_generate.gen_ops_prim import *  # noqa: F401,F403


def __getattr__(name):
    """MindSpore generates its primitive classes (``auto_generate.AvgPool``, ``Pow``, ...)
    and the functions over them (``auto_generate.acos``, ``add``, ...) into this package; in
    mycel they are ops.operations' classes and ops' functions of the same names, found here
    on first use (PEP 562) rather than imported, since ops imports its families first (the
    gradient primitives, auto_generate.PReLUGrad, ...: ops.operations._grad_ops')."""
    from mycel.ops import operations as _P
    from mycel.ops.operations import _grad_ops as _G
    from mycel.ops import function as _F
    if not name.startswith("_"):
        for home in (_P, _F, _G):
            if hasattr(home, name):
                return getattr(home, name)
    raise AttributeError(f"module 'mycel.ops.auto_generate' has no attribute '{name}'")
