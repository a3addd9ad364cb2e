"""Optimizers: Cells called with the gradients that update their parameters in place."""
from mycel.nn.optim.optimizer import Optimizer  # noqa: F401
from mycel.nn.optim.momentum import Momentum, SGD  # noqa: F401
from mycel.nn.optim.adam import Adam, AdamWeightDecay, AdamW  # noqa: F401
from mycel.nn.optim.adaptive import Adagrad, RMSProp, AdaMax, Adadelta  # noqa: F401
from mycel.nn.optim.ftrl import FTRL  # noqa: F401
from mycel.nn.optim.composed import ASGD, Rprop, Lamb  # noqa: F401
from mycel.nn.optim.lars import LARS  # noqa: F401
from mycel.nn.optim.thor import thor, DenseThor, Conv2dThor  # noqa: F401
from mycel.nn.optim.adasum import (AdaSumByGradWrapCell,  # noqa: F401
                                   AdaSumByDeltaWeightWrapCell)

__all__ = ["Optimizer", "Momentum", "SGD", "Adam", "AdamWeightDecay", "AdamW", "Adagrad",
           "RMSProp", "AdaMax", "Adadelta", "FTRL", "ASGD", "Rprop", "Lamb", "LARS",
           "thor", "DenseThor", "Conv2dThor", "AdaSumByGradWrapCell",
           "AdaSumByDeltaWeightWrapCell"]
from mycel.nn.optim.proximal import ProximalAdagrad  # noqa: F401,E402
__all__ += ["ProximalAdagrad"]
from mycel.nn.optim.adafactor import AdaFactor  # noqa: F401,E402
__all__ += ["AdaFactor"]
from mycel.nn.optim.adam import AdamOffload  # noqa: F401,E402
__all__ += ["AdamOffload"]
from mycel.nn.optim.adam import LazyAdam  # noqa: F401,E402
__all__ += ["LazyAdam"]
