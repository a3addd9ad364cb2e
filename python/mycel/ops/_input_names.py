"""MindSpore's names of primitives' inputs, so that a primitive takes its inputs by keyword as
in MindSpore: ``P.MatMul()(x=a, y=b)``, ``P.ReduceSum()(x=t, axis=1)``,
``P.BatchNorm()(input_x=x, scale=s, bias=b, mean=m, variance=v)``.

``INPUT_NAMES[op]`` lists the op's tensor inputs in order, then (optionally) MindSpore's names
of its call-time arguments, which map onto the op's call-time attributes in order (Reshape's
``input_shape`` is the attribute ``shape``). An entry "x|input" accepts either spelling
(MindSpore's versions name some inputs differently). The op's own call-time attribute names
are always accepted. An op without an entry takes its inputs by position only; a keyword it
does not know is a TypeError naming the op and the names it takes, in PYNATIVE
(ops/primitive.py) and GRAPH mode (compiler/specialize_prims.cc, which reads this table
through the host, frontend/py_host.cc).
"""

_BINARY = ("x|input|x1", "y|other|x2")
_UNARY = ("x|input|input_x",)
_REDUCE = ("x|input|input_x", "axis")

INPUT_NAMES = {}
for _op in ("Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "Pow", "FloorDiv", "FloorMod",
            "Equal", "NotEqual", "Greater", "GreaterEqual", "Less", "LessEqual", "LogicalAnd",
            "LogicalOr"):
    INPUT_NAMES[_op] = _BINARY
for _op in ("Abs", "Neg", "Exp", "Log", "Sqrt", "Rsqrt", "Sin", "Cos", "Tanh", "Sigmoid",
            "ReLU", "ReLU6", "Square", "Reciprocal", "Floor", "Ceil", "Sign", "Erf",
            "LogicalNot", "ZerosLike", "OnesLike", "Softplus", "GeLU", "Argmax", "Argmin",
            "Squeeze", "AvgPool", "MaxPool"):
    INPUT_NAMES[_op] = _UNARY
for _op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"):
    INPUT_NAMES[_op] = _REDUCE
INPUT_NAMES.update({
    "MatMul": ("x|a|input|x1", "y|b|mat2|x2"),
    "BatchMatMul": ("x|a|input|x1", "y|b|mat2|x2"),
    # MindSpore 2.x's Softmax names its input `input` (older: `logits`); not `x`
    "Softmax": ("input|logits",),
    "LogSoftmax": ("input|logits",),
    "Reshape": ("input_x|input", "input_shape|shape"),
    "Transpose": ("input_x|input", "input_perm|perm"),
    "Cast": ("input_x|x|input", "type|dtype"),
    "ExpandDims": ("input_x|input", "axis"),
    "Tile": ("input_x|input", "multiples|dims"),
    "Concat": ("tensors|input_x",),
    "Stack": ("input_x|tensors",),
    "BiasAdd": ("input_x|input", "bias"),
    "BatchNorm": ("input_x", "scale", "bias", "mean", "variance"),
    "LayerNorm": ("input_x", "gamma", "beta"),
    "Conv2D": ("x|input", "weight"),
    "Gather": ("input_params|input", "input_indices", "axis"),
    "Select": ("cond|condition", "x|input", "y|other"),
})
del _op


def bind(op, num_inputs, call_attrs, args, kwargs):
    """(args, kwargs) of a call of op-table primitive `op` with its tensor inputs given by
    keyword moved to their positions (the eager twin of the graph rule, module docstring).
    `num_inputs` is the op's tensor input count (-1: one list of tensors), `call_attrs` the
    names of its call-time attributes."""
    names = INPUT_NAMES.get(op, ())
    n = 1 if num_inputs < 0 else num_inputs
    slots = list(args) + [None] * max(0, n - len(args))
    rest, moved = {}, False
    for k, v in kwargs.items():
        i = next((j for j, s in enumerate(names) if k in s.split("|")), None)
        if i is not None and i >= n:
            if i - n >= len(call_attrs):
                raise TypeError(f"For '{op}', input name '{k}' has no attribute.")
            rest[call_attrs[i - n]] = v
            continue
        if i is None:
            if k not in call_attrs:
                valid = [s.replace("|", "/") for s in names] + list(call_attrs)
                raise TypeError(f"For '{op}', got an unexpected keyword argument '{k}'; its "
                                f"call takes " + (", ".join(f"'{s}'" for s in valid)
                                                  or "no keyword arguments") + ".")
            rest[k] = v
            continue
        if slots[i] is not None:
            raise TypeError(f"For '{op}', got multiple values for input '{k}'.")
        slots[i] = v
        moved = True
    if not moved:
        return tuple(args), rest
    for i in range(n):
        if slots[i] is None:
            raise TypeError(f"For '{op}', missing input "
                            f"'{names[i] if i < len(names) else i}'.")
    return tuple(slots), rest
