"""mycel.nn layers: the cells of MindSpore 2.x's ``mindspore.nn`` that mycel provides."""
from mycel.nn.layer.activation import (ReLU, Sigmoid, Tanh, GELU, Softmax,  # noqa: F401
                                       LogSoftmax, SiLU, Mish, LeakyReLU, ELU, PReLU, HSigmoid,
                                       HSwish, Hardtanh, Softsign, Tanhshrink, Threshold,
                                       get_activation)
from mycel.nn.layer.basic import Dense, Flatten, Dropout  # noqa: F401
from mycel.nn.layer.container import SequentialCell, CellList  # noqa: F401
from mycel.nn.layer.conv import (Conv2d, Conv1d, Conv2dTranspose,  # noqa: F401
                                 Conv1dTranspose)
from mycel.nn.layer.embedding import Embedding  # noqa: F401
from mycel.nn.layer.normalization import (BatchNorm1d, BatchNorm2d, LayerNorm,  # noqa: F401
                                          GroupNorm, InstanceNorm1d, InstanceNorm2d,
                                          InstanceNorm3d)
from mycel.nn.layer.sync_batchnorm import SyncBatchNorm  # noqa: F401
from mycel.nn.layer.pooling import (MaxPool2d, AvgPool2d, MaxPool1d, AvgPool1d,  # noqa: F401
                                    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d,
                                    AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d)
from mycel.nn.layer.upsample import Upsample, PixelShuffle, PixelUnshuffle  # noqa: F401
from mycel.nn.layer.rnn import RNNCell, LSTMCell, GRUCell, RNN, LSTM, GRU  # noqa: F401
from mycel.nn.layer.transformer import (MultiheadAttention,  # noqa: F401
                                        TransformerEncoderLayer, TransformerEncoder,
                                        TransformerDecoderLayer, TransformerDecoder,
                                        Transformer)

__all__ = ["ReLU", "Sigmoid", "Tanh", "GELU", "Softmax", "LogSoftmax", "SiLU", "Mish", "LeakyReLU",
           "ELU", "PReLU", "HSigmoid", "HSwish", "Hardtanh", "Softsign", "Tanhshrink", "Threshold",
           "get_activation", "Dense", "Flatten", "Dropout", "SequentialCell", "CellList", "Conv2d",
           "Conv1d", "Conv2dTranspose", "Conv1dTranspose", "Embedding", "BatchNorm1d",
           "BatchNorm2d", "LayerNorm", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d",
           "InstanceNorm3d", "SyncBatchNorm", "MaxPool2d", "AvgPool2d", "MaxPool1d", "AvgPool1d",
           "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
           "MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer", "Upsample",
           "PixelShuffle", "PixelUnshuffle", "RNNCell", "LSTMCell", "GRUCell", "RNN", "LSTM",
           "GRU"]

from mycel.nn.layer.image import CentralCrop, L1Regularizer, SSIM, MSSSIM  # noqa: F401,E402
__all__ += ["CentralCrop", "L1Regularizer", "SSIM", "MSSSIM"]
from mycel.nn.layer.padding import Pad  # noqa: E402
__all__ += ["Pad"]
from mycel.nn.layer.padding_nd import (ConstantPad1d, ConstantPad2d,  # noqa: F401,E402
                                       ConstantPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d,
                                       ReflectionPad1d, ReflectionPad2d, ReflectionPad3d)
__all__ += ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d",
            "ZeroPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d"]
from mycel.nn.layer.image import PSNR  # noqa: F401,E402
__all__ += ["PSNR"]
from mycel.nn.layer.extra import *  # noqa: F401,F403,E402
from mycel.nn.layer.extra import __all__ as _extra  # noqa: E402
__all__ += _extra
from mycel.nn.layer.embedding_lookup import (EmbeddingLookup,  # noqa: F401,E402
                                             MultiFieldEmbeddingLookup)
__all__ += ["EmbeddingLookup", "MultiFieldEmbeddingLookup"]
from mycel.nn.layer.pooling_ext import (LPPool1d, LPPool2d, MaxUnpool1d,  # noqa: E402,F401
                                        MaxUnpool2d, MaxUnpool3d, MaxPool3d, AvgPool3d)
__all__ += ["LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "MaxPool3d",
            "AvgPool3d"]
from mycel.nn.layer.activation_ext import *  # noqa: F401,F403,E402
from mycel.nn.layer.activation_ext import __all__ as _activation_ext  # noqa: E402
__all__ += _activation_ext
from mycel.nn.layer.basic_ext import *  # noqa: F401,F403,E402
from mycel.nn.layer.basic_ext import __all__ as _basic_ext  # noqa: E402
__all__ += _basic_ext
from mycel.nn.layer.conv import Conv3d, Conv3dTranspose  # noqa: F401,E402
from mycel.nn.layer.normalization import BatchNorm3d  # noqa: F401,E402
from mycel.nn.layer.padding_nd import (ReplicationPad1d, ReplicationPad2d,  # noqa: F401,E402
                                       ReplicationPad3d)
__all__ += ["Conv3d", "Conv3dTranspose", "BatchNorm3d", "ReplicationPad1d", "ReplicationPad2d",
            "ReplicationPad3d"]
from mycel.nn.layer.pooling_fractional import (FractionalMaxPool2d,  # noqa: F401,E402
                                               FractionalMaxPool3d)
__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]
from mycel.nn.layer.sparse import SparseToDense, SparseTensorDenseMatmul  # noqa: F401,E402
__all__ += ["SparseToDense", "SparseTensorDenseMatmul"]
# The math cells (layer/math.py): ReduceLogSumExp, LGamma, ..., MatrixSetDiag.
from mycel.nn.layer.math import *  # noqa: F401,F403,E402
from mycel.nn.layer.math import __all__ as _math_cells  # noqa: E402
__all__ += _math_cells
