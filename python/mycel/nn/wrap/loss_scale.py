"""MindSpore's module path ``nn.wrap.loss_scale``: the loss-scaling step and update cells."""
from mycel.nn.wrap import (TrainOneStepWithLossScaleCell, DynamicLossScaleUpdateCell,  # noqa: F401
                           FixedLossScaleUpdateCell)
