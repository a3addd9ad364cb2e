"""The part of MindSpore's C extension module ``mindspore._c_expression`` that its programs and
tests reach for directly: ``security.enable_security()``, which tells whether MindSpore was
built in its security mode (a build option that removes graph dumps, summaries and profiling).
mycel has no such build mode, so it is always False."""
import types


def _enable_security():
    """False: mycel has no security build mode (dumps, summaries and profiling stay)."""
    return False


security = types.SimpleNamespace(enable_security=_enable_security)


# MindSpore's C++ random fills (``_random_normal(seed, array, mean, sigma)``, ...): they fill
# a float32 numpy array in place from a generator seeded by `seed` (the same seed, the same
# values). mycel draws from numpy's PCG64 generator: the distributions are MindSpore's, the
# values are not bit-identical to MindSpore's Philox streams.
def _rng(seed):
    import numpy as np
    return np.random.Generator(np.random.PCG64(int(seed) & ((1 << 64) - 1)))


def _random_normal(seed, data, mean, sigma):
    """Fills `data` with N(mean, sigma^2) draws."""
    data[...] = _rng(seed).normal(mean, sigma, size=data.shape)


def _random_uniform(seed, data, low, high):
    """Fills `data` with U(low, high) draws."""
    data[...] = _rng(seed).uniform(low, high, size=data.shape)


def _truncated_normal(seed, data, low, high, mean, sigma):
    """Fills `data` with N(mean, sigma^2) draws restricted to [low, high] (redrawn outside)."""
    import numpy as np
    rng = _rng(seed)
    out = rng.normal(mean, sigma, size=data.size)
    for _ in range(1000):
        bad = (out < low) | (out > high)
        if not bad.any():
            break
        out[bad] = rng.normal(mean, sigma, size=int(bad.sum()))
    data[...] = np.clip(out, low, high).reshape(data.shape)
