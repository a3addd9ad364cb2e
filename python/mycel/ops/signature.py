"""MindSpore's ``mindspore.ops.signature``: the descriptors a primitive's
``__mindspore_signature__`` is written with (``make_sig('x', sig_rw.RW_WRITE,
dtype=sig_dtype.T)``): each input's read/write kind, argument kind, default and dtype group.

mycel records them on the class as MindSpore does; its compiler does not read them (it has no
signature-driven implicit casts: an op's inputs are checked and promoted by the op itself), so
they document a primitive's inputs rather than change how it runs."""
import enum
from collections import namedtuple

__all__ = ["sig_rw", "sig_kind", "sig_dtype", "Signature", "make_sig"]


class sig_rw(enum.IntEnum):  # noqa: N801 (MindSpore's name)
    """Whether an input is read (RW_READ), written in place (RW_WRITE: a Parameter) or a
    reference (RW_REF)."""
    RW_READ = 0
    RW_WRITE = 1
    RW_REF = 2


class sig_kind(enum.IntEnum):  # noqa: N801 (MindSpore's name)
    """An input's argument kind (Python's parameter kinds)."""
    KIND_POSITIONAL_KEYWORD = 0
    KIND_VAR_POSITIONAL = 1
    KIND_KEYWORD_ONLY = 2
    KIND_VAR_KEYWARD = 3
    KIND_EMPTY_DEFAULT_VALUE = 4


class sig_dtype(enum.IntEnum):  # noqa: N801 (MindSpore's name)
    """An input's dtype group: inputs of one group T, T1, ... share a dtype; T_EMPTY_DEFAULT_VALUE
    is no group."""
    T = 0
    T1 = 1
    T2 = 2
    T3 = 3
    T4 = 4
    T5 = 5
    T6 = 6
    T7 = 7
    T8 = 8
    T9 = 9
    T_EMPTY_DEFAULT_VALUE = 10


Signature = namedtuple("Signature", ["name", "rw", "kind", "default", "dtype"])


def make_sig(name="var", rw=sig_rw.RW_READ, kind=sig_kind.KIND_POSITIONAL_KEYWORD,
             default=sig_kind.KIND_EMPTY_DEFAULT_VALUE, dtype=sig_dtype.T_EMPTY_DEFAULT_VALUE):
    """The Signature of one input (MindSpore's make_sig)."""
    if not isinstance(name, str):
        raise TypeError(f"For 'make_sig', 'name' must be a str, but got {type(name).__name__}.")
    return Signature(name, sig_rw(rw), sig_kind(kind), default, sig_dtype(dtype))
