"""mycel.boost: MindSpore's ``mindspore.boost`` training accelerations, as far as built here:
gradient accumulation over successive steps (``GradientAccumulation``,
``BoostTrainOneStepCell``), chosen for ``Model`` by ``boost_config_dict`` (``AutoBoost``).
The other algorithms of MindSpore's boost (LessBN, gradient freezing, Adasum, dimension
reduction) are not built: asking for one is a ValueError."""
from mycel.boost.grad_accumulation import (AutoBoost, BoostTrainOneStepCell,  # noqa: F401
                                           GradientAccumulation)

__all__ = ["AutoBoost", "BoostTrainOneStepCell", "GradientAccumulation"]
