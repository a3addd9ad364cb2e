"""FFT against torch.fft: `fft_bench.py` prints one JSON object of measurements.

Both frameworks run in this one process on one compute thread each (mycel's pool and torch's
intra-op threads set to 1), interleaved: each round times mycel then PyTorch on the same
input, and the result is the median over rounds of the process CPU time per call (the
machine may be shared; CPU time and interleaving keep the two comparable), with the range of
the rounds' own ratios as a measure of the noise. A call includes reading the result back as a
numpy array (`asnumpy()` / `.numpy()`)."""
import json
import os
import statistics
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = int(os.environ.get("FFT_BENCH_ROUNDS", "7"))


def cpu_per_call(fn, reps):
    t = time.process_time()
    for _ in range(reps):
        fn()
    return (time.process_time() - t) / reps


def cases():
    rng = np.random.default_rng(0)

    def cplx(shape, dt):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)

    return [  # (key, label, input, mycel function name, torch function name)
        ("fft_c64_64x1024", "fft complex64 [64, 1024]", cplx((64, 1024), np.complex64), "fft"),
        ("fft_c64_64x1000", "fft complex64 [64, 1000]", cplx((64, 1000), np.complex64), "fft"),
        ("fft_c64_64x997", "fft complex64 [64, 997] (prime)", cplx((64, 997), np.complex64), "fft"),
        ("rfft_f32_64x4096", "rfft float32 [64, 4096]",
         rng.standard_normal((64, 4096)).astype(np.float32), "rfft"),
        ("irfft_c64_64x2049", "irfft complex64 [64, 2049] -> 4096",
         cplx((64, 2049), np.complex64), "irfft"),
        ("fft2_c128_8x128x128", "fft2 complex128 [8, 128, 128]",
         cplx((8, 128, 128), np.complex128), "fft2"),
    ]


def main():
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import torch
    import mycel as ms
    from mycel import ops
    torch.set_num_threads(1)
    ms._mycel.set_num_threads(1)
    out = {}
    for key, label, x, fn in cases():
        fm, ft = getattr(ops, fn), getattr(torch.fft, fn)
        xm, xt = ms.Tensor(x), torch.from_numpy(x)
        ym, yt = fm(xm).asnumpy(), ft(xt).numpy()  # warm-up, and the two agree
        scale = max(1.0, float(np.abs(yt).max()))
        err = float(np.abs(ym - yt).max()) / scale
        mine, ref = [], []
        for _ in range(ROUNDS):
            mine.append(cpu_per_call(lambda: fm(xm).asnumpy(), 10))
            ref.append(cpu_per_call(lambda: ft(xt).numpy(), 10))
        ratios = [r / m for m, r in zip(mine, ref)]  # each round's own ratio: the noise
        out[key] = {"label": label, "mycel_ms": statistics.median(mine) * 1e3,
                    "torch_ms": statistics.median(ref) * 1e3, "max_rel_diff": err,
                    "ratio_min": min(ratios), "ratio_max": max(ratios)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
