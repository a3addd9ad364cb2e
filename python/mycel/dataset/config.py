"""Dataset settings, MindSpore's ``mindspore.dataset.config``: the seed of the shuffles.

The randomness of a pipeline (sampler shuffles, ``Dataset.shuffle``) comes from the seed set
here; without one, from ``mycel.get_seed()`` when the program called ``mycel.set_seed``. As in
MindSpore, a seed still equal to the default (5489, ``std::mt19937``'s, which is also mycel's
global default) counts as "not set" unless it was given to this module's ``set_seed``:
then every pipeline run draws fresh entropy, and orders differ from run to run.
"""
import numpy as np

import mycel
from mycel.dataset._validate import check_int

_DEFAULT_SEED = 5489
_seed = None


def set_seed(seed):
    """Seed the dataset pipelines: shuffles become reproducible (0 <= seed < 2**32)."""
    global _seed
    _seed = check_int("set_seed", "seed", seed, 0, 2**32 - 1)


def get_seed():
    """The dataset seed: set_seed's, else mycel.get_seed() (5489 when neither was set)."""
    return _seed if _seed is not None else mycel.get_seed()


def _entropy(pass_number):
    """The entropy of one pipeline run: the seed and the run's number, or fresh randomness."""
    seed = get_seed()
    if _seed is None and seed == _DEFAULT_SEED:
        return [np.random.SeedSequence().entropy]
    return [seed, pass_number]
