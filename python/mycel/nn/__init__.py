"""mycel.nn: cells: layers, losses, wrappers, optimizers and learning-rate schedules."""
from mycel.nn.cell import Cell  # noqa: F401
from mycel.nn.layer import *  # noqa: F401,F403
from mycel.nn.layer import __all__ as _layers
from mycel.nn.loss import *  # noqa: F401,F403
from mycel.nn.loss import __all__ as _losses
from mycel.nn.wrap import (WithLossCell, TrainOneStepCell,  # noqa: F401
                           TrainOneStepWithLossScaleCell, DynamicLossScaleUpdateCell,
                           FixedLossScaleUpdateCell, GradAccumulationCell)
from mycel.nn.optim import *  # noqa: F401,F403
from mycel.nn.optim import __all__ as _optims
from mycel.nn.learning_rate_schedule import (LearningRateSchedule,  # noqa: F401
                                             ExponentialDecayLR, CosineDecayLR,
                                             PiecewiseConstantLR)
from mycel.nn.dynamic_lr import (piecewise_constant_lr, exponential_decay_lr,  # noqa: F401
                                 cosine_decay_lr)
from mycel.nn.dynamic_lr import (natural_exp_decay_lr, inverse_decay_lr,  # noqa: F401
                                 polynomial_decay_lr, warmup_lr)
from mycel.nn.learning_rate_schedule import (NaturalExpDecayLR, InverseDecayLR,  # noqa: F401
                                             PolynomialDecayLR, WarmUpLR)
from mycel.nn.graph_cell import GraphCell  # noqa: F401
from mycel.nn.grad_reducer import DistributedGradReducer  # noqa: F401
from mycel.nn.pipeline import PipelineCell  # noqa: F401
from mycel.nn.wrap import MicroBatchInterleaved  # noqa: F401

__all__ = (["Cell", "WithLossCell", "TrainOneStepCell", "GraphCell", "DistributedGradReducer",
            "TrainOneStepWithLossScaleCell", "DynamicLossScaleUpdateCell",
            "FixedLossScaleUpdateCell", "GradAccumulationCell", "PipelineCell",
            "LearningRateSchedule",
            "ExponentialDecayLR", "CosineDecayLR", "PiecewiseConstantLR", "piecewise_constant_lr",
            "exponential_decay_lr", "cosine_decay_lr"] + _layers + _losses + _optims)
__all__ += ["MicroBatchInterleaved"]
from mycel.nn.loss_seg import DiceLoss, MultiClassDiceLoss, FocalLoss  # noqa: F401,E402
__all__ += ["DiceLoss", "MultiClassDiceLoss", "FocalLoss", "NaturalExpDecayLR", "InverseDecayLR",
            "PolynomialDecayLR", "WarmUpLR", "natural_exp_decay_lr", "inverse_decay_lr",
            "polynomial_decay_lr", "warmup_lr"]
from mycel.nn.wrap import ParameterUpdate  # noqa: F401,E402
__all__ += ["ParameterUpdate"]
from mycel.nn.layer.tril import Tril, Triu  # noqa: F401,E402
__all__ += ["Tril", "Triu"]

# MindSpore keeps its metrics importable from nn too (`from mindspore.nn import Accuracy`):
# they are mycel.train.metrics's, loaded on first use (mycel.train imports this package).
_METRICS = ("Metric", "Accuracy", "Loss", "MAE", "MSE", "Top1CategoricalAccuracy",
            "Top5CategoricalAccuracy", "TopKCategoricalAccuracy")


def __getattr__(name):
    if name in _METRICS:
        from mycel.train import metrics
        return getattr(metrics, name)
    raise AttributeError(f"module 'mycel.nn' has no attribute '{name}'")
from mycel.nn.wrap import WithEvalCell, ForwardValueAndGrad  # noqa: F401,E402
__all__ += ["WithEvalCell", "ForwardValueAndGrad"]
