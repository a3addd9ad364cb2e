"""mycel.models: preset networks in mycel style (MindSpore model-zoo architectures), the
workloads for training-speed work: ResNet-18/50 (resnet.py) and a small BERT-style Transformer
encoder classifier (transformer.py). ``import mycel`` does not load this package."""
from mycel.models.resnet import ResNet, resnet18, resnet50  # noqa: F401
from mycel.models.transformer import TransformerEncoderClassifier  # noqa: F401

__all__ = ["ResNet", "resnet18", "resnet50", "TransformerEncoderClassifier"]
