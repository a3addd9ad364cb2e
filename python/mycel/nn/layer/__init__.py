"""mycel.nn layers: the cells of MindSpore 2.x's ``mindspore.nn`` that mycel provides."""
from mycel.nn.layer.activation import ReLU, Sigmoid, Tanh, GELU, Softmax, get_activation  # noqa
from mycel.nn.layer.basic import Dense, Flatten, Dropout  # noqa: F401
from mycel.nn.layer.container import SequentialCell, CellList  # noqa: F401
from mycel.nn.layer.conv import Conv2d  # noqa: F401
from mycel.nn.layer.embedding import Embedding  # noqa: F401
from mycel.nn.layer.normalization import BatchNorm1d, BatchNorm2d, LayerNorm  # noqa: F401
from mycel.nn.layer.pooling import MaxPool2d, AvgPool2d  # noqa: F401

__all__ = ["ReLU", "Sigmoid", "Tanh", "GELU", "Softmax", "get_activation", "Dense", "Flatten",
           "Dropout", "SequentialCell", "CellList", "Conv2d", "Embedding", "BatchNorm1d",
           "BatchNorm2d", "LayerNorm", "MaxPool2d", "AvgPool2d"]
