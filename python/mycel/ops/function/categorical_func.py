"""MindSpore's RandomCategorical with MindSpore's own random stream, so a seed gives the
samples MindSpore's CPU kernel gives.

The stream, as MindSpore's kernel draws it: the op seed is scrambled with Philox4x32-10
(MindSpore's GetSeed(0, seed): counter (0, 0, seed_lo, seed_hi), key (0x3ec8f720,
0x02461e29), the first two words of the result as the 64-bit seed), which seeds the minimal
standard LCG x' = 16807 x mod (2^31 - 1) (C++'s std::default_random_engine: seed mod m, 0
taken as 1). Each sample takes two draws x1, x2 and makes a double in [0, 1) as
std::generate_canonical does, ((x1 - 1) + (x2 - 1) r) / r^2 with r = 2^31 - 2 (1 excluded),
rounded to float32; sample j of every row uses the j-th number. The engine is the instance's
state, kept in Parameters (written with Assign, so GRAPH mode keeps it between steps too): it
is (re)seeded on the first call and whenever the seed changes, and otherwise continues. Seed 0
takes its engine seed from mycel's global generator (UniformReal), where MindSpore takes a
nondeterministic one.

Draw j of the engine started at x0 is x0 * 16807^j mod m (the powers are constants, the
products fit int64), so a call's draws are one Mul and one Mod. A row's sample is the first
class whose running sum of exp(logits - max) (computed in float32, summed in the logits'
dtype) reaches the row total times the number.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, host_bytes
from mycel.ops.primitive import constexpr

M = 2147483647
_R = 2147483646.0
_M32 = 0xFFFFFFFF


def _philox(counter, key):
    c, k = list(counter), list(key)
    for _ in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k[0]) & _M32, p1 & _M32, ((p0 >> 32) ^ c[3] ^ k[1]) & _M32,
             p0 & _M32]
        k = [(k[0] + 0x9E3779B9) & _M32, (k[1] + 0xBB67AE85) & _M32]
    return c


def engine_seed(seed):
    """The LCG's starting state for a non-zero op seed (MindSpore's GetSeed, then seed mod m)."""
    s = int(seed) & 0xFFFFFFFFFFFFFFFF
    r = _philox([0, 0, s & _M32, s >> 32], [0x3EC8F720, 0x02461E29])
    x = ((r[1] << 32) | r[0]) % M
    return x if x else 1


@constexpr
def _start(seed):
    return _C.Tensor(np.array(engine_seed(seed), np.int64))


@constexpr
def _powers(n):
    """16807^j mod m for j = 1..n, int64."""
    host_bytes("random_categorical", 64 * n)  # a Python list of n ints (2**62 draws looped)
    out, a = [], 1
    for _ in range(n):
        a = a * 16807 % M
        out.append(a)
    return _C.Tensor(np.array(out, np.int64))


@constexpr
def _int(v, name):
    if isinstance(v, _C.Tensor):
        if v.dtype not in (_C.int32, _C.int64) or v.size != 1:
            raise TypeError(f"For 'RandomCategorical', '{name}' must be an int, but got a "
                            f"tensor of {v.dtype}, shape {tuple(v.shape)}.")
        return int(v.asnumpy().reshape(-1)[0])
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"For 'RandomCategorical', '{name}' must be an int, but got "
                        f"{type(v).__name__}.")
    return int(v)


def _uniforms(state, seed, num_sample):
    """(float32 numbers [num_sample], the engine's next state) of the instance's stream."""
    fresh, last_seed, x = state
    seeded = prim("LogicalOr")(prim("Greater")(fresh, 0), prim("NotEqual")(last_seed, seed))
    if seed == 0:
        u = prim("UniformReal", dtype=_C.float64)(())
        start = prim("Cast")(prim("Floor")(u * (M - 1.0)), _C.int64) + 1
    else:
        start = _start(seed)
    x0 = prim("Select")(seeded, start, x)
    draws = prim("Mod")(x0 * _powers(2 * num_sample), M)
    pairs = prim("Cast")(prim("Reshape")(draws, (num_sample, 2)) - 1, _C.float64)
    u = (pairs[:, 0] + pairs[:, 1] * _R) / (_R * _R)
    u = prim("Select")(prim("GreaterEqual")(u, 1.0), prim("OnesLike")(u) * (1.0 - 2.0 ** -53),
                       u)
    return prim("Cast")(u, _C.float32), draws[2 * num_sample - 1]


def random_categorical(logits, num_sample, seed, dtype, state):
    """[batch, num_sample] class indices of dtype sampled from softmax(logits) rows with the
    instance's MindSpore stream; state is the (fresh, last_seed, engine) Parameters."""
    num_sample = _int(num_sample, "num_sample")
    seed = _int(seed, "seed")
    if num_sample <= 0:
        raise ValueError(f"For 'RandomCategorical', 'num_sample' must be positive, but got "
                         f"{num_sample}.")
    u, nxt = _uniforms(state, seed, num_sample)
    fresh, last_seed, engine = state
    prim("Assign")(engine, nxt)
    prim("Assign")(last_seed, prim("Cast")(prim("Fill")(_C.int64, (), float(seed)), _C.int64))
    prim("Assign")(fresh, prim("ZerosLike")(fresh))
    top = prim("ReduceMax", keep_dims=True)(logits, (1,))
    e = prim("Cast")(prim("Exp")(prim("Cast")(logits - top, _C.float32)), logits.dtype)
    cdf = prim("CumSum")(e, 1)
    total = cdf[:, -1:]
    target = total * prim("Reshape")(prim("Cast")(u, logits.dtype), (1, num_sample))
    below = prim("Less")(prim("ExpandDims")(cdf, 1), prim("ExpandDims")(target, 2))
    count = prim("ReduceSum", keep_dims=False)(prim("Cast")(below, _C.int32), (2,))
    return prim("Cast")(count, dtype)
