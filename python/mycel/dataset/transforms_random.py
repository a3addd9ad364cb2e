"""Random compositions of ``mindspore.dataset.transforms`` (part of ``mycel.dataset.transforms``):
RandomApply, RandomChoice and RandomOrder.

Each takes a list of transforms. When every one of them is built in (a C++ transform, a
Compose of them), the choice runs in C++ (src/data/transforms_vision_policy.cc) on the row's
random stream, like the random vision ops: the same ``ds.config.set_seed`` gives the same
results in a pipeline and, call by call, in eager use. With a Python callable among them (or a
PIL image as input) the choice is made in Python from the same dataset seed, and the
transforms are called one by one; a transform's tuple result feeds the next one's arguments,
as in Compose.
"""
import numpy as np

from mycel import _mycel
from mycel.dataset import _vision_checks as chk
from mycel.dataset.transforms import TensorOperation, _is_pil, check_not_class

_data = _mycel._data


def _check_transforms(transforms):
    """A non-empty list of transforms or callables (MindSpore's messages)."""
    chk.type_check(transforms, (list,), "transforms list")
    if not transforms:
        raise ValueError("transforms list can not be empty.")
    for i, op in enumerate(transforms):
        check_not_class("transforms", "transforms", i, op)
        if not callable(op):
            raise TypeError(f"transforms[{i}] is neither a transforms op (TensorOperation) nor a "
                            f"callable pyfunc. Got {type(op)}.")
    return list(transforms)


def _chain(op):
    """The C++ transforms of a built-in operation, or None for a Python callable."""
    return op._c_ops() if isinstance(op, TensorOperation) else None


def _py_seed(op):
    """A seed for a transform drawing in Python: the dataset seed, the transform's stream and
    its call count (as TensorOperation._run seeds the C++ ones)."""
    from mycel.dataset import config
    if not hasattr(op, "_stream"):
        op._stream = config._next_stream()
    op._calls = getattr(op, "_calls", 0) + 1
    entropy = config._entropy(op._calls) + [op._stream]
    return int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0])


def _run_all(ops, inputs):
    """Apply ops in order; a tuple result feeds the next op's arguments."""
    out = tuple(inputs)
    for op in ops:
        res = op(*out)
        out = res if isinstance(res, tuple) else (res,)
    return out[0] if len(out) == 1 else out


class _RandomComposition(TensorOperation):
    """The shared parts: the C++ transform when every part is built in, PIL pass-through."""

    def _init_ops(self, transforms, make):
        self.transforms = _check_transforms(transforms)
        chains = [_chain(op) for op in self.transforms]
        self._op = None if any(c is None for c in chains) else make(chains)
        self._makes_pil = any(getattr(op, "_makes_pil", False) for op in self.transforms)

    @property
    def _random(self):
        return True

    def _c_ops(self):
        return None if self._op is None else [self._op]

    def __call__(self, *inputs):
        if self._op is not None and not any(_is_pil(x) for x in inputs):
            return super().__call__(*inputs)
        return self._py_apply(np.random.default_rng(_py_seed(self)), inputs)


class RandomApply(_RandomComposition):
    """RandomApply(transforms, prob=0.5): with probability prob apply every transform of the
    list in order, else pass the input through unchanged."""

    def __init__(self, transforms, prob=0.5):
        chk.type_check(prob, (float, int), "prob")
        chk.check_value(prob, 0.0, 1.0, "prob")
        self.prob = float(prob)
        self._init_ops(transforms, lambda chains: _data.RandomApplyChain(
            [t for c in chains for t in c], self.prob))

    def _py_apply(self, rng, inputs):
        if rng.random() < self.prob:
            return _run_all(self.transforms, inputs)
        return inputs[0] if len(inputs) == 1 else tuple(inputs)


class RandomChoice(_RandomComposition):
    """RandomChoice(transforms): apply one transform of the list, chosen uniformly."""

    def __init__(self, transforms):
        self._init_ops(transforms, _data.RandomChoice)

    def _py_apply(self, rng, inputs):
        return _run_all([self.transforms[int(rng.integers(len(self.transforms)))]], inputs)


class RandomOrder(_RandomComposition):
    """RandomOrder(transforms): apply every transform of the list, in a random order."""

    def __init__(self, transforms):
        self._init_ops(transforms, _data.RandomOrder)

    def _py_apply(self, rng, inputs):
        return _run_all([self.transforms[i] for i in rng.permutation(len(self.transforms))],
                        inputs)


__all__ = ["RandomApply", "RandomChoice", "RandomOrder"]
