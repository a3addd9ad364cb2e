"""MindSpore's ``_extends.parse.compile_config``: the compiler's developer switches, set as
module attributes (``compile_config.GRAD_FOR_SCALAR = 1``; '' is unset, as MindSpore's
defaults).

mycel's compiler reads one of them, GRAD_FOR_SCALAR: when set (not '' or 0), gradients with
respect to Python numbers are taken, as numbers (src/compiler/grad_spec.h). The compiler reads
it from the environment variable ``MS_DEV_GRAD_FOR_SCALAR``, which assigning the attribute
sets (and '' removes); setting the variable before starting Python works too. It is read when
a gradient is compiled, so set it before the first call of the function it concerns.

The others are kept so that programs setting them run, and read back what was set; mycel's
behaviour is fixed where MindSpore's depends on them (list/dict in-place updates always
supported in graph code, bprop results always checked, no loop half-unrolling)."""
import os as _os
import sys as _sys
import types as _types

GRAD_FOR_SCALAR = _os.environ.get("MS_DEV_GRAD_FOR_SCALAR", '')
FALLBACK_SUPPORT_LIST_DICT_INPLACE = ''
CHECK_BPROP = ''
PRE_LIFT = ''
FOR_HALF_UNROLL = ''
RECURSIVE_EVAL = ''
ENABLE_RECOMPUTE_BEFORE_INLINE = ''

# The switches the compiler reads, mirrored into its environment variable on assignment.
_READ_BY_COMPILER = ("GRAD_FOR_SCALAR",)


class _ConfigModule(_types.ModuleType):
    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if name in _READ_BY_COMPILER:
            key = "MS_DEV_" + name
            if value in ('', None, 0, '0', False):
                _os.environ.pop(key, None)
            else:
                _os.environ[key] = str(value)


_sys.modules[__name__].__class__ = _ConfigModule
