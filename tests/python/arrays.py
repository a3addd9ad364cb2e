"""Random test arrays of every numpy dtype mycel supports, shared by the test files."""
import numpy as np

NP_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32,
             np.float64]


def make_rand(seed=0):
    """rand(shape, dtype): random data of that dtype (ints in [-100, 100), uint8 from 0)."""
    rng = np.random.default_rng(seed)

    def rand(shape, dtype=np.float32):
        if dtype == np.bool_:
            return rng.random(shape) < 0.5
        if np.issubdtype(dtype, np.integer):
            lo = 0 if dtype == np.uint8 else -100
            return rng.integers(lo, 100, size=shape).astype(dtype)
        return rng.standard_normal(shape).astype(dtype)
    return rand
