// Function multiversioning for the data engine's per-pixel loops (resize, Rescale, Normalize,
// HWC2CHW): compiled for AVX2 too and picked at load time, as src/kernels/cpu does. Not for
// FMA: without contraction the results are bit-identical on every machine (Rescale and
// Normalize round as numpy's float32 ops do). Helpers called from a clone are always inlined:
// GCC does not inline a plain function into a clone with another target.
#pragma once

#if defined(__x86_64__)
#define MC_DATA_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MC_DATA_CLONES
#endif
#define MC_DATA_INLINE [[gnu::always_inline]] inline
