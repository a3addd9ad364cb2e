"""MindSpore's module path ``nn.wrap.grad_reducer``."""
from mycel.nn.grad_reducer import DistributedGradReducer  # noqa: F401
