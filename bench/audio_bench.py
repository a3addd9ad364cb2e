"""mycel.dataset.audio's Spectrogram / MelSpectrogram against torch.stft on 10 s of 16 kHz
audio (one channel, float32), eagerly, one thread each: process CPU time per call, best of 5
interleaved rounds of 5 calls. Standalone: `python3 bench/audio_bench.py` (PYTHONPATH=python).
"""
import time

import numpy as np
import torch

from mycel.dataset import audio


def main():
    torch.set_num_threads(1)
    x = np.random.default_rng(0).standard_normal((1, 160000)).astype(np.float32)
    tx = torch.from_numpy(x)
    ops = {}
    for n in (400, 512):
        w = torch.hann_window(n)
        ops[f"mycel Spectrogram n_fft={n}"] = (lambda op=audio.Spectrogram(n_fft=n): op(x))
        ops[f"torch.stft |X|^2 n_fft={n}"] = (lambda n=n, w=w: torch.stft(
            tx, n, n // 2, n, w, center=True, pad_mode="reflect",
            return_complex=True).abs().pow(2))
    ops["mycel MelSpectrogram n_fft=400"] = (lambda op=audio.MelSpectrogram(n_fft=400): op(x))
    best = {}
    for _ in range(5):
        for name, fn in ops.items():
            start = time.process_time()
            for _ in range(5):
                fn()
            best[name] = min(best.get(name, float("inf")), (time.process_time() - start) / 5)
    for name, sec in best.items():
        print(f"{name}: {sec * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
