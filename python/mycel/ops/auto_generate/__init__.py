"""mycel.ops.auto_generate: where MindSpore 2.x programs import the primitives its op
definitions generate (``from mindspore.ops.auto_generate.gen_ops_prim import InplaceAddExt``).
mycel has one op table (src/ops/defs); the names here are those programs use, composed from
mycel's ops (gen_ops_prim: the classes and their instances; gen_ops_def: the instances)."""
from mycel.ops.auto_generate.gen_ops_prim import *  # noqa: F401,F403
