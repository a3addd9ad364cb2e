"""mycel.nn layers: the cells of MindSpore 2.x's ``mindspore.nn`` that mycel provides."""
from mycel.nn.layer.activation import ReLU, Sigmoid, Tanh, Softmax, get_activation  # noqa
from mycel.nn.layer.basic import Dense, Flatten, Dropout  # noqa: F401
from mycel.nn.layer.container import SequentialCell, CellList  # noqa: F401
from mycel.nn.layer.conv import Conv2d  # noqa: F401
from mycel.nn.layer.pooling import MaxPool2d, AvgPool2d  # noqa: F401

__all__ = ["ReLU", "Sigmoid", "Tanh", "Softmax", "get_activation", "Dense", "Flatten",
           "Dropout", "SequentialCell", "CellList", "Conv2d", "MaxPool2d", "AvgPool2d"]
