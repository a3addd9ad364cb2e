"""``Symbol`` (MindSpore 2.x's ``mindspore.Symbol``): what is known of a dynamic dimension of a
placeholder ``Tensor(shape=[...], dtype=...)`` given to ``Cell.set_inputs`` or
``jit(input_signature=...)``: its range ``[min, max]`` (max 0: unbounded), that it is
``divisor * N + remainder`` for some N >= 1, and, with ``unique``, that every dimension the
same Symbol object stands for has one length.

mycel compiles such a dimension as dynamic (as ``None``) and checks each call's inputs
against the Symbols in GRAPH mode, before the compiled graph runs: an input that breaks one is
a ValueError naming the input, the dimension and the rule (MindSpore uses Symbols as promises
to optimise with; a broken promise is an error here rather than a wrong result)."""

__all__ = ["Symbol"]


def _int_arg(name, v):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"For 'Symbol', '{name}' must be an int, but got {type(v).__name__}.")
    return v


class Symbol:
    """Symbol(max=0, min=1, divisor=1, remainder=0, unique=False): the symbolic information of
    one dynamic dimension (module docstring)."""

    def __init__(self, max=0, min=1, divisor=1, remainder=0, unique=False,  # noqa: A002
                 **kwargs):
        self.max = _int_arg("max", max)
        self.min = _int_arg("min", min)
        self.divisor = _int_arg("divisor", divisor)
        self.remainder = _int_arg("remainder", remainder)
        if not isinstance(unique, bool):
            raise TypeError(f"For 'Symbol', 'unique' must be a bool, but got "
                            f"{type(unique).__name__}.")
        self.unique = unique
        if self.min <= 0:
            raise ValueError(f"For 'Symbol', 'min' must be positive, but got {self.min}.")
        if self.divisor <= 0:
            raise ValueError(f"For 'Symbol', 'divisor' must be positive, but got "
                             f"{self.divisor}.")
        if not 0 <= self.remainder < self.divisor:
            raise ValueError(f"For 'Symbol', 'remainder' must be in [0, divisor={self.divisor}), "
                             f"but got {self.remainder}.")

    def violation(self, n):
        """Why length n does not fit this Symbol, or None when it does."""
        if n < self.min:
            return f"is below min={self.min}"
        if self.max > self.min and n > self.max:
            return f"is above max={self.max}"
        k, r = divmod(n - self.remainder, self.divisor)
        if r != 0 or k < 1:
            return f"is not {self.divisor} * N + {self.remainder} for an N >= 1"
        return None

    def __repr__(self):
        return (f"Symbol(max={self.max}, min={self.min}, divisor={self.divisor}, "
                f"remainder={self.remainder}, unique={self.unique})")


def input_checker(inputs):
    """A function checking call arguments against the Symbols of the placeholders in
    `inputs` (set_inputs / input_signature), or None when they hold no Symbol."""
    rules = []  # (input index, dim index, symbol)
    for i, t in enumerate(inputs):
        for d, s in enumerate(getattr(t, "_mycel_symbols", ()) or ()):
            if s is not None:
                rules.append((i, d, s))
    if not rules:
        return None

    def check(args):
        seen = {}
        for i, d, s in rules:
            if i >= len(args) or not hasattr(args[i], "shape"):
                continue
            shape = tuple(args[i].shape)
            if d >= len(shape):
                continue  # a rank mismatch: the input signature's own check names it
            n = shape[d]
            why = s.violation(n)
            if why is None and s.unique:
                first = seen.setdefault(id(s), (i, d, n))
                if first[2] != n:
                    why = (f"differs from input {first[0]}'s dimension {first[1]} ({first[2]}), "
                           f"which has the same unique Symbol")
            if why is not None:
                raise ValueError(f"For 'set_inputs', dimension {d} of input {i} (shape "
                                 f"{shape}) is {n}, which {why} of its {s!r}.")
    return check
