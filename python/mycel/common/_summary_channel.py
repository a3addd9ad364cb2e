"""The one path from the summary operators to SummaryRecord: a SummaryChannel.

The operators (ops.ScalarSummary, TensorSummary, ImageSummary, HistogramSummary) run inside a
step, in PYNATIVE mode as Python and in GRAPH mode as a host call the compiled step makes when
it reaches them (in program order, as print). Neither knows about event files: an operator
only calls ``channel.put("tag[:Kind]", tensor)``; SummaryRecord.record() calls
``channel.drain()`` and writes what it gets. Between two drains a tag keeps its latest value
(MindSpore's semantics: a summary op inside a loop records the last iteration).

A process has one default channel (``default_channel()``), the one MindSpore's programs share
implicitly (``_cache_summary_tensor_data`` / ``_get_summary_tensor_data``); an operator is
bound to a channel when it is built, so tests and embedders can give it another.
"""
import threading

KINDS = ("Scalar", "Tensor", "Image", "Histogram")


class SummaryChannel:
    """Collects summary values by name ("tag[:Kind]") until they are drained; thread-safe."""

    def __init__(self):
        self._lock = threading.Lock()
        self._values = {}

    def put(self, name, value):
        """Stores value under name, replacing a value of the same name not yet drained."""
        with self._lock:
            self._values[name] = value

    def drain(self):
        """Returns {name: value} put since the last drain, in first-put order, and empties."""
        with self._lock:
            values, self._values = self._values, {}
        return values

    def __len__(self):
        with self._lock:
            return len(self._values)


_DEFAULT = SummaryChannel()


def default_channel():
    """The process's channel, which summary operators publish to unless given another."""
    return _DEFAULT


def _check(op, kind, name, value):
    """The summary operators' argument checks (one place for both modes)."""
    from mycel.common.tensor import Tensor
    if not isinstance(name, str):
        raise TypeError(f"For '{op}', the 'name' should be a str, but got "
                        f"{type(name).__name__}.")
    if not name:
        raise ValueError(f"For '{op}', the 'name' should be a non-empty str.")
    if not isinstance(value, Tensor):
        raise TypeError(f"For '{op}', the 'value' should be a Tensor, but got "
                        f"{type(value).__name__}.")
    shape = tuple(value.shape)
    if kind == "Scalar" and shape not in ((), (1,)):
        raise ValueError(f"For '{op}', the 'value' should be a scalar (shape () or (1,)), "
                         f"but got shape {shape}.")
    if kind == "Image" and (len(shape) != 4 or shape[1] not in (1, 3) or 0 in shape):
        raise ValueError(f"For '{op}', the 'value' should be a 4-D NCHW tensor with 1 or 3 "
                         f"channels and no empty dimension, but got shape {shape}.")
    if kind in ("Tensor", "Histogram") and len(shape) == 0:
        raise ValueError(f"For '{op}', the 'value' should have at least one dimension, but "
                         f"got a scalar.")


class _Publish:
    """``publish(kind, name, value)``: checks the arguments of the summary operator of that
    kind and puts value on the channel as "name[:kind]". An object (not a function), so GRAPH
    mode calls it in the interpreter each time the step runs instead of parsing it; its
    class's ``__mycel_host_effect__`` tells the compiler so (never folded at compile time, no
    fallback warning: compiler/specialize_host.cc)."""

    __mycel_host_effect__ = True

    def __init__(self, channel):
        self._channel = channel

    def __call__(self, kind, name, value):
        _check(kind + "Summary", kind, name, value)
        self._channel.put(f"{name}[:{kind}]", value)


def publisher(channel=None):
    """The host callable a summary operator uses to publish to channel (default: the
    process's)."""
    return _Publish(default_channel() if channel is None else channel)
