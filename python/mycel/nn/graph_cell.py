"""GraphCell: a Cell that runs a graph loaded from a MINDIR file (``mycel.load``), as
MindSpore's ``nn.GraphCell``. The graph is already compiled: calling the cell runs it in
PYNATIVE and GRAPH mode alike, without the Python source of the exported network. The
stored weights become the cell's Parameters (``parameters_and_names()`` lists them by their
exported names); the graph reads their current values on every call."""
from mycel import _mycel as _C
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell

Tensor = _C.Tensor


class GraphCell(Cell):
    """GraphCell(graph, params_init=None, obf_random_seed=None): runs `graph`, what
    ``mycel.load`` returns. `params_init` ({name: Tensor}) replaces the values of stored
    weights (same shape, else a ValueError; cast to the weight's dtype). The weights are
    trainable Parameters (as MindSpore's): gradients reach them through the graph. Inputs must have the dtypes and shapes
    given to ``export`` (TypeError / ValueError naming the expected and the given ones)."""

    def __init__(self, graph, params_init=None, obf_random_seed=None):
        super().__init__(auto_prefix=False)
        if not isinstance(graph, _C.MindIRGraph):
            raise TypeError(f"For 'GraphCell', the graph must be what mycel.load returns, but "
                            f"got {type(graph).__name__}.")
        if obf_random_seed is not None:
            raise ValueError("For 'GraphCell', obfuscated models are not supported "
                             "(obf_random_seed must be None).")
        object.__setattr__(self, "graph", graph)
        for name, value in zip(graph.weight_names, graph.weights):
            self._params[name] = Parameter(value, name=name)
        for name, value in (params_init or {}).items():
            if name not in self._params:
                raise ValueError(f"For 'GraphCell', params_init names '{name}', which is not a "
                                 f"weight of the graph (it has {list(self._params)}).")
            want = tuple(self._params[name].shape)
            if not isinstance(value, Tensor) or tuple(value.shape) != want:
                got = tuple(value.shape) if isinstance(value, Tensor) else type(value).__name__
                raise ValueError(f"For 'GraphCell', params_init['{name}'] must be a Tensor of "
                                 f"the weight's shape {want} (the graph was exported with it), "
                                 f"but got {got}.")
            self._params[name].set_data(value)
        object.__setattr__(self, "_weights", tuple(self._params.values()))

    def construct(self, *inputs):
        """The graph's outputs for `inputs` (Tensors)."""
        return self.graph.run(inputs, self._weights)

    def __call__(self, *inputs):
        return self.construct(*inputs)
