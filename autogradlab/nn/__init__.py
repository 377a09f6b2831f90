"""Neural-network building blocks with PyTorch's names: ``Module``, ``Parameter``, layers,
losses, ``nn.init`` and ``nn.functional``.

    import autogradlab.nn as nn
    model = nn.MLP([2, 32, 32, 2])          # = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), ...)
    loss = nn.functional.cross_entropy(model(X), y)
"""
from . import functional, init, utils  # noqa: F401
from .layers import (CELU, ELU, GELU, MLP, SELU, AdaptiveAvgPool1d, AdaptiveAvgPool2d, GroupNorm, Hardsigmoid, Hardswish, Hardtanh, LogSigmoid, Mish, ReLU6,
                     Softmin, Softsign, Tanhshrink, AvgPool1d, AvgPool2d, BatchNorm1d, BatchNorm2d, BCELoss, BCEWithLogitsLoss,
                     Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, CrossEntropyLoss, Dropout, Embedding, Flatten, HuberLoss, Identity, L1Loss,
                     LayerNorm, LeakyReLU, Linear, LogSoftmax, MaxPool1d, MaxPool2d, ModuleDict, ModuleList, MSELoss,
                     NLLLoss, ParameterDict, ParameterList, ReLU, Sequential, Sigmoid, SiLU, SmoothL1Loss, Softmax,
                     Softplus, Tanh)
from .layers import (GLU, ConstantPad1d, ConstantPad2d, Dropout2d, Hardshrink, PReLU, Softshrink, Threshold, Unflatten,
                     ZeroPad1d, ZeroPad2d)
from .layers import (AdaptiveMaxPool1d, AdaptiveMaxPool2d, Bilinear, CircularPad1d, CircularPad2d, InstanceNorm1d,
                     InstanceNorm2d, ReflectionPad1d, ReflectionPad2d, ReplicationPad1d, ReplicationPad2d)
from .layers import CosineEmbeddingLoss, HingeEmbeddingLoss, KLDivLoss, MarginRankingLoss, TripletMarginLoss
from .layers import GaussianNLLLoss, MultiLabelSoftMarginLoss, MultiMarginLoss, PoissonNLLLoss, SoftMarginLoss
from .layers import CTCLoss
from .layers import Fold, Unfold
from .layers import MaxUnpool1d, MaxUnpool2d
from .layers import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, BatchNorm3d, Conv3d, InstanceNorm3d, MaxPool3d,
                     MaxUnpool3d)
from .distance import CosineSimilarity, PairwiseDistance
from .attention import (MultiheadAttention, Transformer, TransformerDecoder, TransformerDecoderLayer,
                        TransformerEncoder, TransformerEncoderLayer)
from .lazy import (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d, LazyConv3d,
                   LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d, LazyLinear, LazyModuleMixin, UninitializedBuffer,
                   UninitializedParameter)
from .module import Module
from .parameter import Parameter
from . import more_functional as _more_functional
for _name in _more_functional.__all__:   # (F.rms_norm, ...: functional itself does not import them)
    setattr(functional, _name, getattr(_more_functional, _name))
functional.__all__ += _more_functional.__all__
from .grid_sampling import affine_grid, grid_sample  # noqa: E402
from .embedding_bag import EmbeddingBag, embedding_bag  # noqa: E402
functional.affine_grid, functional.grid_sample, functional.embedding_bag = affine_grid, grid_sample, embedding_bag
functional.__all__ += ["affine_grid", "grid_sample", "embedding_bag"]
from .fractional_pooling import (FractionalMaxPool2d, FractionalMaxPool3d, fractional_max_pool2d,  # noqa: E402
                                 fractional_max_pool2d_with_indices, fractional_max_pool3d,
                                 fractional_max_pool3d_with_indices)
for _fn in (fractional_max_pool2d, fractional_max_pool3d, fractional_max_pool2d_with_indices,
            fractional_max_pool3d_with_indices):
    setattr(functional, _fn.__name__, _fn)
    functional.__all__.append(_fn.__name__)
from .adaptive_softmax import AdaptiveLogSoftmaxWithLoss  # noqa: E402
from .more_layers import (AlphaDropout, Buffer, ChannelShuffle, CircularPad3d, ConstantPad3d, Dropout1d,  # noqa: E402
                          Dropout3d, FeatureAlphaDropout, LocalResponseNorm, LPPool1d, LPPool2d, LPPool3d,
                          MultiLabelMarginLoss, ReflectionPad3d, ReplicationPad3d, RMSNorm, RReLU, Softmax2d,
                          TripletMarginWithDistanceLoss, ZeroPad3d, LinearCrossEntropyLoss)
from .lazy import LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d  # noqa: E402
from .recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sampling import PixelShuffle, PixelUnshuffle, Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = ["Module", "Parameter", "CosineSimilarity", "PairwiseDistance", "KLDivLoss", "MarginRankingLoss",
           "HingeEmbeddingLoss", "CosineEmbeddingLoss", "TripletMarginLoss", "GaussianNLLLoss",
           "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss", "SoftMarginLoss", "CTCLoss", "Fold",
           "Unfold",
           "Linear", "ReLU", "ReLU6", "Hardtanh", "Hardsigmoid", "Hardswish", "Mish", "SELU",
           "CELU", "Softsign", "LogSigmoid", "Tanhshrink", "Softmin", "GroupNorm", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "SiLU", "GELU", "Softplus",
           "Identity", "Softmax", "LogSoftmax", "Dropout", "LayerNorm", "BatchNorm1d", "BatchNorm2d", "Conv1d",
           "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Embedding", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "Flatten", "Sequential",
           "ModuleList", "MLP", "MSELoss", "L1Loss", "HuberLoss", "SmoothL1Loss", "NLLLoss", "CrossEntropyLoss",
           "BCELoss", "BCEWithLogitsLoss", "RNNCell", "LSTMCell", "GRUCell", "RNN", "LSTM", "GRU", "MultiheadAttention", "TransformerEncoderLayer",
           "TransformerEncoder", "TransformerDecoderLayer", "TransformerDecoder", "Transformer",
           "ModuleDict", "ParameterList", "ParameterDict",
           "PReLU", "GLU", "Hardshrink", "Softshrink", "Threshold", "Unflatten", "ZeroPad1d", "ZeroPad2d",
           "ConstantPad1d", "ConstantPad2d", "Dropout2d",
           "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle",
           "ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d",
           "CircularPad2d", "InstanceNorm1d", "InstanceNorm2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "Bilinear",
           "MaxUnpool1d", "MaxUnpool2d", "Conv3d", "MaxPool3d", "AvgPool3d", "BatchNorm3d", "InstanceNorm3d",
           "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "MaxUnpool3d",
           "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyConv3d", "LazyBatchNorm3d",
           "LazyModuleMixin", "UninitializedParameter",
           "UninitializedBuffer", "functional", "init", "utils", "AlphaDropout", "Buffer", "ChannelShuffle",
           "CircularPad3d", "ConstantPad3d", "Dropout1d", "Dropout3d", "FeatureAlphaDropout", "LocalResponseNorm",
           "LPPool1d", "LPPool2d", "LPPool3d", "MultiLabelMarginLoss", "ReflectionPad3d", "ReplicationPad3d",
           "RMSNorm", "RReLU", "Softmax2d", "TripletMarginWithDistanceLoss", "ZeroPad3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d", "EmbeddingBag", "FractionalMaxPool2d", "FractionalMaxPool3d",
           "AdaptiveLogSoftmaxWithLoss", "RNNBase", "RNNCellBase",
           "LinearCrossEntropyLoss"]
