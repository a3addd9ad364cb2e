"""MindSpore's ``mindspore.ops.auto_generate.gen_ops_def``: the generated primitives'
instances (see gen_ops_prim)."""
from mycel.ops.auto_generate.gen_ops_prim import (inplace_add_ext_op,  # noqa: F401
                                                  inplace_sub_ext_op, inplace_copy_op,
                                                  embedding_op)
from mycel.ops.function.array_func import ones, zeros  # noqa: F401,E402
