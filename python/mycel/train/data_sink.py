"""Data sink: a step function run many times on a Dataset's batches without returning to
Python between steps (MindSpore's ``mindspore.data_sink`` and ``Model.train``'s
``dataset_sink_mode``).

A compiled step (a Cell in GRAPH mode, a ``@jit`` function, or any function given a
``jit_config``) sinks in C++: ``GraphFunction.sink`` (src/python/py_graph.cc) pops each batch
from the data engine's pipeline as Tensors, runs the compiled graph with the GIL released and
keeps only the last output. Otherwise (PYNATIVE mode, as MindSpore falls back there; a Cell
with hooks or a to_float dtype of its own, whose inputs Python casts) the same steps run in a
Python loop over the same iterator, so both give the same batches, weights and outputs.
"""
from mycel import context
from mycel.common.api import JitConfig, _JitFunction
from mycel.nn.cell import Cell
from mycel.nn.wrap import TrainOneStepCell


def _check_sink_size(who, sink_size, allow_all):
    """sink_size must be a positive int (or -1, the whole epoch, where allow_all)."""
    ok = isinstance(sink_size, int) and not isinstance(sink_size, bool) and \
        (sink_size > 0 or (allow_all and sink_size == -1))
    if not ok:
        want = "-1 or a positive int" if allow_all else "a positive int"
        raise ValueError(f"For '{who}', the 'sink_size' must be {want}, but got {sink_size!r}.")


def _check_dataset(who, dataset):
    """A mycel.dataset Dataset with at least one batch per epoch (the sink pulls from its
    C++ pipeline; an empty epoch would never fill a sink). Returns its size (-1: infinite)."""
    if not hasattr(dataset, "_start_pipeline"):
        raise TypeError(f"For '{who}', the dataset must be a mycel.dataset Dataset (the sink "
                        f"reads the data engine's pipeline), but got {type(dataset).__name__}.")
    size = dataset.get_dataset_size()
    if size == 0:
        raise ValueError(f"For '{who}', the dataset has no batches.")
    return size


def _compiled_target(fn, compile_fn):
    """A function () -> (C++ GraphFunction, cache key) that runs `fn` compiled, or None when
    `fn` runs as Python (then the sink loops in Python)."""
    if isinstance(fn, Cell):
        hooked = "_forward_pre_hooks" in fn.__dict__ or "_forward_hooks" in fn.__dict__
        if not compile_fn or hooked or fn._mixed_precision_type is not None or \
                not _calls_construct(fn):
            return None

        def cell_target():
            graph = fn._compiled_construct()
            return graph._graph, graph._phase
        return cell_target
    if not isinstance(fn, _JitFunction):
        if not compile_fn:
            return None
        fn = _JitFunction(fn)
    return lambda: (fn._graph, None)


def _calls_construct(cell):
    """Whether calling `cell` runs its construct: no Python __call__ of its own (a THOR step,
    a pipeline or sharded-optimizer TrainOneStepCell's stepper)."""
    call = type(cell).__call__
    if call is TrainOneStepCell.__call__:
        return cell.__dict__.get("_stepper") is None
    return call is Cell.__call__


class _Sink:
    """Runs `fn` on the batches of one iterator over `dataset` (num_epochs of them, -1:
    unlimited), `steps` calls at a time."""

    def __init__(self, fn, dataset, num_epochs, compile_fn):
        self._fn = fn
        self._target = _compiled_target(fn, compile_fn)
        self._it = dataset.create_tuple_iterator(num_epochs=num_epochs)
        self._columns = self._it.get_col_names()
        self.ended = False

    @property
    def compiled(self):
        """Whether the steps loop in C++."""
        return self._target is not None

    def run(self, steps, cross_epochs):
        """Up to `steps` calls of fn, each on the next batch; an epoch's end goes on into the
        next epoch with cross_epochs, else it ends the sink. Returns (last output or None,
        calls made); `ended` is set once the iterator's last epoch is done."""
        if self.ended:
            return None, 0
        if self._target is not None:
            graph, key = self._target()
            out, n, self.ended = graph.sink(key, self._it._pipe, self._columns, steps,
                                            cross_epochs)
            return out, n
        out, n = None, 0
        empty = False  # two epoch ends with no batch between: nothing more will come
        pipe = self._it._pipe  # read as GraphFunction.sink reads it
        while n < steps:
            row = pipe.next(False)
            if row is None:
                # (an epoch end before this call's first batch closes an earlier call's epoch)
                self.ended = pipe.ended
                if self.ended or empty or not (cross_epochs or n == 0):
                    break
                empty = True
                continue
            empty = False
            out = self._fn(*row)
            n += 1
        return out, n

    def stop(self):
        """Stops the iterator's engine threads."""
        self._it.stop()


class _IterSink:
    """_Sink's Python loop for a dataset that is not a mycel Dataset (Model.train's sink mode
    on a user's iterable of batches, as MindSpore sinks any dataset): `fn` runs on each
    batch; each pass iterates the dataset afresh (after its reset(), where it has one);
    num_epochs passes (-1: unlimited)."""
    compiled = False

    def __init__(self, fn, dataset, num_epochs):
        self._fn, self._data, self._left = fn, dataset, num_epochs
        self._it = None
        self.ended = False

    def _next(self):
        """The next batch, or None at the end of a pass."""
        if self._it is None:
            self._it = iter(self._data)
        try:
            return next(self._it)
        except StopIteration:
            self._it = None
            reset = getattr(self._data, "reset", None)
            if callable(reset):
                reset()
            if self._left > 0:
                self._left -= 1
                self.ended = self._left == 0
            return None

    def run(self, steps, cross_epochs):
        """As _Sink.run."""
        out, n, empty = None, 0, False
        while n < steps and not self.ended:
            row = self._next()
            if row is None:
                if self.ended or empty or not (cross_epochs or n == 0):
                    break
                empty = True
                continue
            empty = False
            out = self._fn(*(row if isinstance(row, (tuple, list)) else (row,)))
            n += 1
        return out, n

    def stop(self):
        """Nothing runs in the background."""


def data_sink(fn, dataset, sink_size=1, jit_config=None, input_signature=None):
    """Returns a function that, on each call, runs ``fn(*batch)`` on the next `sink_size`
    batches of `dataset` and returns the last call's output (MindSpore's
    ``mindspore.data_sink``). The batches come from one iterator over the repeated dataset:
    the calls go on across epoch boundaries, as step-by-step training over the same dataset.

    Args:
        fn (Callable): the step, e.g. a ``TrainOneStepCell`` or a function of the dataset's
            columns returning the loss.
        dataset (Dataset): a mycel.dataset Dataset; its columns are fn's arguments.
        sink_size (int): steps per call, positive. Default: 1.
        jit_config (JitConfig): compile `fn` (the steps then loop in C++, batches fed from
            the data engine without returning to Python); its jit_level "O2" captures each
            step as a CUDA graph on a GPU (see ``mycel.jit``). Default: None, in which case `fn`
            is compiled in GRAPH mode (and when it is a ``@jit`` function) and runs in a
            Python loop in PYNATIVE mode.
        input_signature (Union[Tensor, tuple[Tensor]]): expected dtype and shape of each
            column, checked against the dataset's first batch. Default: None.

    Returns:
        Function, taking no arguments, that runs one sink and returns fn's last output.
    """
    if not callable(fn):
        raise TypeError(f"For 'data_sink', the 'fn' must be callable, but got "
                        f"{type(fn).__name__}.")
    _check_sink_size("data_sink", sink_size, allow_all=False)
    if jit_config is not None and not isinstance(jit_config, JitConfig):
        raise TypeError(f"For 'data_sink', the 'jit_config' must be a JitConfig or None, but "
                        f"got {type(jit_config).__name__}.")
    _check_dataset("data_sink", dataset)
    if input_signature is not None:
        _check_signature(dataset, input_signature)
    compile_fn = jit_config is not None or context.get_context("mode") == context.GRAPH_MODE
    if jit_config is not None and not isinstance(fn, (Cell, _JitFunction)):
        # The config's jit_level ("O2": captured steps on a GPU) applies to this function; a
        # Cell's compiled construct follows set_context(jit_level=...).
        from mycel.common.api import jit
        fn = jit(fn, jit_config=jit_config)
    state = {}

    def sink_fun():
        sink = state.get("sink")
        if sink is None:
            sink = state["sink"] = _Sink(fn, dataset, -1, compile_fn)
        out, _ = sink.run(sink_size, cross_epochs=True)
        return out

    sink_fun.__doc__ = f"Runs {sink_size} steps of the data sink; returns the last output."
    return sink_fun


def _check_signature(dataset, signature):
    """Each column's dtype and shape against the Tensors of `signature` (ValueError)."""
    from mycel import _mycel as _C
    sig = signature if isinstance(signature, (tuple, list)) else (signature,)
    if not all(isinstance(s, _C.Tensor) for s in sig):
        raise TypeError("For 'data_sink', the 'input_signature' must be a Tensor or a tuple "
                        "of Tensors.")
    shapes, types = dataset.output_shapes(), dataset.output_types()
    if len(sig) != len(shapes):
        raise ValueError(f"For 'data_sink', the 'input_signature' has {len(sig)} Tensors but "
                         f"the dataset has {len(shapes)} columns.")
    for i, (s, shape, dtype) in enumerate(zip(sig, shapes, types)):
        if list(s.shape) != list(shape) or s.asnumpy().dtype != dtype:
            raise ValueError(f"For 'data_sink', column {i} of the dataset is {dtype} "
                             f"{list(shape)}, but the input_signature says "
                             f"{s.asnumpy().dtype} {list(s.shape)}.")
