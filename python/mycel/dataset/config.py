"""Dataset settings, MindSpore's ``mindspore.dataset.config``: the seed of the pipelines' random
draws, the default number of worker threads per op, and the prefetch depth.

The randomness of a pipeline (sampler shuffles, ``Dataset.shuffle``) comes from the seed set
here; without one, from ``mycel.get_seed()`` when the program called ``mycel.set_seed``. As in
MindSpore, a seed still equal to the default (5489, ``std::mt19937``'s, which is also mycel's
global default) counts as "not set" unless it was given to this module's ``set_seed``:
then every pipeline run draws fresh entropy, and orders differ from run to run.
"""
import os

import numpy as np

import mycel
from mycel.dataset._validate import check_int

_DEFAULT_SEED = 5489
_seed = None
_workers = None
_prefetch = 16
_streams = 0  # random transforms called eagerly since the last set_seed


def set_seed(seed):
    """Seed the dataset pipelines: shuffles become reproducible (0 <= seed < 2**32)."""
    global _seed, _streams
    _seed = check_int("set_seed", "seed", seed, 0, 2**32 - 1)
    _streams = 0


def _next_stream():
    """A number for a random transform's eager random stream: transforms get 0, 1, ... in the
    order of their first call since set_seed, so two transforms never share a stream and a
    program that repeats its calls after set_seed repeats their results."""
    global _streams
    _streams += 1
    return _streams - 1


def get_seed():
    """The dataset seed: set_seed's, else mycel.get_seed() (5489 when neither was set)."""
    return _seed if _seed is not None else mycel.get_seed()


def _entropy(pass_number):
    """The entropy of one pipeline run: the seed and the run's number, or fresh randomness."""
    seed = get_seed()
    if _seed is None and seed == _DEFAULT_SEED:
        # Unseeded: fresh randomness, shared by the ranks of a job (their shards must be
        # cut from one permutation).
        from mycel.communication.management import job_entropy
        job = job_entropy()
        return [np.random.SeedSequence().entropy] if job is None else [job, pass_number]
    return [seed, pass_number]


def set_num_parallel_workers(num):
    """The worker threads of each op that is not given num_parallel_workers (>= 1)."""
    global _workers
    _workers = check_int("set_num_parallel_workers", "num", num, 1, 1024)


def get_num_parallel_workers():
    """The default worker threads per op: set_num_parallel_workers's, else min(8, CPUs)."""
    return _workers if _workers is not None else min(8, os.cpu_count() or 1)


def set_prefetch_size(size):
    """How many rows (batches after batch) each op may hold ready ahead of its consumer."""
    global _prefetch
    _prefetch = check_int("set_prefetch_size", "size", size, 1, 2**20)


def get_prefetch_size():
    """The prefetch depth of each op's output queue (default 16)."""
    return _prefetch
