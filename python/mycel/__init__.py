"""mycel: a deep-learning framework with MindSpore's design and a C++ core."""
from mycel._mycel import Tensor, from_numpy, set_seed, get_seed  # noqa: F401
