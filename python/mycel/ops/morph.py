"""ops.Morph: a Python function used as one operation of graph code (MindSpore's Morph).

    mul = ops.Morph(fn, infer_shape, infer_dtype)
    y = mul(x, ...)          # inside construct, GRAPH mode: fn(x, ...) compiled in place

In a compiled graph the call is fn's body, so its output's shape and dtype come from
compiling fn and its gradient from differentiating it; `infer_shape` and `infer_dtype` are
kept (MindSpore uses them to type the call) but mycel does not need them. Outside graph code
(PYNATIVE mode) calling it raises RuntimeError, as MindSpore's does. A custom backward
(`bprop_fn`) is not supported yet: a Cell with a bprop method gives one.
"""


class Morph:
    """Morph(fn, infer_shape, infer_dtype, bprop_fn=None): fn as an operation of graph code."""

    # graph code calls _graph_call (frontend/py_host.cc); Python calls __call__
    __mycel_graph_call__ = "_graph_call"

    def __init__(self, fn, infer_shape, infer_dtype, bprop_fn=None):
        if not callable(fn):
            raise TypeError(f"For 'Morph', 'fn' must be callable, but got {type(fn).__name__}.")
        for name, f in (("infer_shape", infer_shape), ("infer_dtype", infer_dtype)):
            if not callable(f):
                raise TypeError(f"For 'Morph', '{name}' must be callable, but got "
                                f"{type(f).__name__}.")
        if bprop_fn is not None:
            raise NotImplementedError("For 'Morph', a custom bprop_fn is not supported in mycel "
                                      "yet; wrap fn in a Cell with a bprop method instead.")
        self.fn = fn
        self.infer_shape = infer_shape
        self.infer_dtype = infer_dtype

    def _graph_call(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Morph is only supported in GRAPH_MODE.")
