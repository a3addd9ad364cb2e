"""MindSpore's ``_extends.parse.compile_config``: the compiler's developer switches, set as
module attributes (``compile_config.GRAD_FOR_SCALAR = 1``; '' is unset, as MindSpore's
defaults). mycel's compiler reads none of them: its behaviour is fixed where MindSpore's
depends on these (no scalar gradients, list/dict in-place updates always supported in graph
code, bprop results always checked, no loop half-unrolling). They are kept so that programs
setting them run, and read back what was set."""

GRAD_FOR_SCALAR = ''
FALLBACK_SUPPORT_LIST_DICT_INPLACE = ''
CHECK_BPROP = ''
PRE_LIFT = ''
FOR_HALF_UNROLL = ''
RECURSIVE_EVAL = ''
ENABLE_RECOMPUTE_BEFORE_INLINE = ''
