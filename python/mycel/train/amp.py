"""MindSpore's ``mindspore.train.amp``, where its mixed-precision API first lived (programs
still import ``from mindspore.train.amp import build_train_network`` or
``from mindspore.train import amp``): the objects of ``mycel.amp`` itself."""
from mycel.amp import *  # noqa: F401,F403
from mycel.amp import __all__  # noqa: F401
from mycel.amp import _OutputTo32  # noqa: F401  (MindSpore's tests and tools import it here)
