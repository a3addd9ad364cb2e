"""mint's random functions (MindSpore 2.4's PyTorch-style signatures): rand, randn, randint,
randperm, multinomial, bernoulli, rand_like, randn_like, randint_like (mint.normal is in
mint/__init__.py). Each draws from the global generator or, given ``generator=``, from that
Generator's stream (common/generator.py); they are mycel.ops' random functions with mint's
argument order and defaults (multinomial samples without replacement by default; bernoulli's input is the
probability of each 1)."""
from mycel import _mycel as _C
from mycel.ops.function import random_func as _r
from mycel.ops.function import random_func as _rf

__all__ = ["rand", "randn", "randint", "randperm", "multinomial", "bernoulli", "rand_like",
           "randn_like", "randint_like"]


def _size(size):
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


def rand(*size, generator=None, dtype=None):
    """Samples of U[0, 1) of the given size (float32 unless dtype is given)."""
    return _r.rand(*_size(size), dtype=dtype, generator=generator)


def randn(*size, generator=None, dtype=None):
    """Samples of N(0, 1) of the given size (float32 unless dtype is given)."""
    return _r.randn(*_size(size), dtype=dtype, generator=generator)


def randint(*args, generator=None, dtype=None):
    """randint(high, size) or randint(low, high, size): integers drawn uniformly from
    [low, high) (low 0 when not given), int64 unless dtype is given."""
    if len(args) == 2:
        low, high, size = 0, args[0], args[1]
    elif len(args) == 3:
        low, high, size = args[0], args[1], args[2]
    else:
        raise TypeError(f"For 'randint', the arguments must be (high, size) or (low, high, "
                        f"size), but got {len(args)} positional arguments.")
    return _rf.randint(low, high, size, dtype=dtype, generator=generator)


def randperm(n, *, generator=None, dtype=_C.int64):
    """A random permutation of 0 .. n - 1."""
    return _rf.randperm(n, dtype=dtype, generator=generator)


def multinomial(input, num_samples, replacement=False, *, generator=None):  # noqa: A002
    """num_samples category indices per row of input (non-negative weights, 1-D or 2-D),
    without replacement unless replacement is True; int64."""
    return _rf.multinomial(input, num_samples, replacement, generator=generator)


def bernoulli(input, *, generator=None):  # noqa: A002
    """1 with probability input (each element, in [0, 1]), else 0, in input's dtype."""
    return _rf.bernoulli(input, input, generator=generator)


def rand_like(input, *, generator=None, dtype=None):  # noqa: A002
    """U[0, 1) samples of input's shape (its dtype unless given)."""
    return _rf.rand_like(input, dtype=dtype, generator=generator)


def randn_like(input, *, generator=None, dtype=None):  # noqa: A002
    """N(0, 1) samples of input's shape (its dtype unless given)."""
    return _rf.randn_like(input, dtype=dtype, generator=generator)


def randint_like(input, *args, generator=None, dtype=None):  # noqa: A002
    """randint_like(input, high) or (input, low, high): integers drawn uniformly from
    [low, high) in input's shape (its dtype unless given)."""
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args[0], args[1]
    else:
        raise TypeError(f"For 'randint_like', the arguments after input must be (high) or "
                        f"(low, high), but got {len(args)}.")
    return _rf.randint_like(input, low, high, dtype=dtype, generator=generator)
