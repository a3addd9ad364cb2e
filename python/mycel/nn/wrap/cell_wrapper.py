"""MindSpore's module path ``nn.wrap.cell_wrapper``: the training wrappers of mycel.nn.wrap."""
from mycel.nn.wrap import (WithLossCell, TrainOneStepCell, GradAccumulationCell,  # noqa: F401
                           MicroBatchInterleaved, ParameterUpdate)
