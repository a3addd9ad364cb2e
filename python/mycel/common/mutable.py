"""``mindspore.common.mutable``: the module MindSpore programs import ``mutable`` from
(``from mindspore.common.mutable import mutable``). The function is mycel.common.api's;
mycel.common imports this module before binding its own ``mutable`` name to the function,
so ``mycel.common.mutable`` stays the function and this module stays importable."""
from mycel.common.api import mutable  # noqa: F401

__all__ = ["mutable"]
