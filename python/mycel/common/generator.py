"""MindSpore 2.3's random generators: ``mindspore.Generator``, ``default_generator`` and the
``generator=`` argument of the random functions.

A generator is a Philox stream: a seed (the key, spread by splitmix64) and the next counter
it hands out (the offset). Every random op without an op-level seed reserves a range of
counters of one generator (src/tensor/random.h). ``default_generator`` IS the global state
that ``set_seed``/``manual_seed`` seed and that every random op draws from by default: its
methods read and write that state. A new ``Generator()`` is an independent stream of its
own: a random function given ``generator=g`` draws from g (g's offset advances by what the
call draws; the global state is left as it was), so ``Generator().manual_seed(s)`` draws
what the global generator draws after ``set_seed(s)``, and two generators with one seed draw
the same numbers.

The state (``get_state``) is a 1-d uint64 Tensor [seed, offset, n, then n (primitive,
position) pairs]: the default generator's is ``get_rng_state``'s (its n pairs are the
op-level-seeded primitives' positions), another generator's has n = 0. ``set_state`` takes
either; a generator other than the default one keeps only the seed and offset.

GRAPH mode (a jit function, a Cell's construct compiled): a random op's stream is fixed when
the graph is compiled, and the graph draws from the global state each run, so the default
generator works there (``generator=None`` or ``generator=default_generator``) and another
generator is refused with a TypeError naming the function, as MindSpore does not support
several generators in graph mode either. In PYNATIVE mode any generator works. The swap
is not atomic with respect to random ops that other Python threads run at the same moment
(they would draw from the generator's stream for that instant): use one thread per
generator, or give those ops their own generators.
"""
import os
import sys

import numpy as np

from mycel import _mycel as _C
from mycel.ops.primitive import constexpr

__all__ = ["Generator", "default_generator", "get_rng_state", "set_rng_state",
           "manual_seed", "seed", "initial_seed"]

_DEFAULT_SEED = 5489  # the global generator's seed when set_seed was never called
_MISSING = object()


def _check_seed(value, op):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"For '{op}', the seed must be an int, but got "
                        f"{type(value).__name__}.")
    value = int(value)
    if not 0 <= value < 2**63:
        raise ValueError(f"For '{op}', the seed must be in [0, 2**63), but got {value}.")
    return value


def _state_tensor(seed_, offset, instances):
    items = sorted(instances.items())
    flat = [seed_, offset, len(items)] + [v for kv in items for v in kv]
    return _C.Tensor(np.array(flat, dtype=np.uint64))


def _parse_state(state, op):
    """(seed, offset, instances) of a state Tensor; a TypeError/ValueError naming op."""
    if not isinstance(state, _C.Tensor):
        raise TypeError(f"For '{op}', the state must be a Tensor, but got "
                        f"{type(state).__name__}.")
    flat = state.asnumpy()
    if flat.dtype != np.uint64 or flat.ndim != 1 or flat.size < 3 or \
            flat.size != 3 + 2 * int(flat[2]):
        raise ValueError(f"For '{op}', the state must be the 1-d uint64 Tensor get_state "
                         f"gives, but got shape {tuple(flat.shape)} and dtype {flat.dtype}.")
    pairs = flat[3:].reshape(-1, 2)
    return int(flat[0]), int(flat[1]), {int(k): int(v) for k, v in pairs}


class Generator:
    """An independent random stream (module docstring). ``Generator()`` starts at seed 5489,
    offset 0, the global generator's start."""

    def __init__(self):
        self._seed = _DEFAULT_SEED
        self._offset = 0

    def manual_seed(self, seed):  # pylint: disable=redefined-outer-name
        """Seeds the generator (offset back to 0); returns the generator."""
        self._seed = _check_seed(seed, "Generator.manual_seed")
        self._offset = 0
        return self

    def seed(self):
        """Seeds the generator with a non-deterministic seed (from the operating system) and
        returns it."""
        value = int.from_bytes(os.urandom(8), "little") >> 1
        self.manual_seed(value)
        return value

    def initial_seed(self):
        """The seed the generator was last seeded with."""
        return self._seed

    def get_state(self):
        """The state as a uint64 Tensor (module docstring)."""
        return _state_tensor(self._seed, self._offset, {})

    def set_state(self, state):
        """Sets the state from a Tensor get_state gave; returns the generator."""
        self._seed, self._offset, _ = _parse_state(state, "Generator.set_state")
        return self

    def _step(self, step):
        """(seed, offset) as int64 Tensors, then the offset advances by step (MindSpore's
        private helper its kernels draw through)."""
        n = int(step.asnumpy()) if isinstance(step, _C.Tensor) else int(step)
        if n < 0:
            raise ValueError(f"For 'Generator._step', the step must be non-negative, but got "
                             f"{n}.")
        seed_, offset = self._get()
        self._set(seed_, offset + n)
        return (_C.Tensor(np.array(seed_, np.int64)), _C.Tensor(np.array(offset, np.int64)))

    def _get(self):
        return self._seed, self._offset

    def _set(self, seed_, offset):
        self._seed, self._offset = seed_, offset

    def __repr__(self):
        return f"Generator(seed={self._seed}, offset={self._offset})"


class _DefaultGenerator(Generator):
    """The global generator: its state is the one in src/tensor/random.cc."""

    def __init__(self):  # pylint: disable=super-init-not-called
        pass

    def manual_seed(self, seed):  # pylint: disable=redefined-outer-name
        _C.set_seed(_check_seed(seed, "manual_seed"))
        return self

    def initial_seed(self):
        return _C.get_seed()

    def get_state(self):
        s = _C._random_state()
        return _state_tensor(s.seed, s.offset, s.instances)

    def set_state(self, state):
        seed_, offset, instances = _parse_state(state, "set_rng_state")
        s = _C._RandomState()
        s.seed, s.offset, s.instances = seed_, offset, instances
        _C._set_random_state(s)
        return self

    def _get(self):
        s = _C._random_state()
        return s.seed, s.offset

    def _set(self, seed_, offset):
        s = _C._random_state()
        s.seed, s.offset = seed_, offset
        _C._set_random_state(s)

    def __repr__(self):
        seed_, offset = self._get()
        return f"default_generator(seed={seed_}, offset={offset})"


default_generator = _DefaultGenerator()


def manual_seed(seed):  # pylint: disable=redefined-outer-name
    """Seeds the global random generator (as ``set_seed``)."""
    default_generator.manual_seed(seed)


def seed():
    """Seeds the global random generator with a non-deterministic seed and returns it."""
    return default_generator.seed()


def initial_seed():
    """The seed the global random generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state():
    """The global random generator's state as a uint64 Tensor (module docstring)."""
    return default_generator.get_state()


def set_rng_state(state):
    """Sets the global random generator's state from a Tensor ``get_rng_state`` gave."""
    default_generator.set_state(state)


@constexpr
def uses_generator(generator, op):
    """Whether a random function given ``generator`` must draw from a generator of its own:
    False for None and the default generator (the ops draw from the global state anyway),
    True for another Generator in PYNATIVE mode. In graph code (the function is compiled,
    not run by Python: its frame is not the caller's) another Generator is a TypeError, as
    anything else is."""
    if generator is None or generator is default_generator:
        return False
    if not isinstance(generator, Generator):
        raise TypeError(f"For '{op}', the generator must be a mindspore.Generator, but got "
                        f"{type(generator).__name__}.")
    # PYNATIVE: called by the random function itself, whose argument is this generator.
    # (ops.constexpr's wrapper, which names the op in a bare error, is a frame of its own)
    frame = sys._getframe(1)
    while frame is not None and \
            getattr(frame.f_code, "co_qualname", "") == "constexpr.<locals>.helper":
        frame = frame.f_back
    if frame is None or frame.f_locals.get("generator", _MISSING) is not generator:
        raise TypeError(f"For '{op}', GRAPH mode draws from the default generator only, so "
                        f"the generator must be None or mindspore.default_generator, but got "
                        f"another Generator: call it in PYNATIVE mode or seed the default one.")
    return True


def draw(generator, fn, *args, **kwargs):
    """fn(*args, **kwargs) drawing from generator's stream instead of the global one: the
    global (seed, offset) is swapped for the generator's around the call and restored after
    (PYNATIVE mode; the generator's offset advances by what the call drew)."""
    saved = default_generator._get()  # pylint: disable=protected-access
    default_generator._set(*generator._get())  # pylint: disable=protected-access
    try:
        out = fn(*args, **kwargs)
    finally:
        generator._set(*default_generator._get())  # pylint: disable=protected-access
        default_generator._set(*saved)  # pylint: disable=protected-access
    return out
