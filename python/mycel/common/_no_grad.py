"""``mycel._no_grad`` (MindSpore's ``mindspore._no_grad``): a context manager and decorator
under which PYNATIVE grad records nothing, as torch's ``no_grad``: the values computed inside
are constants to a gradient taken around them. Taking a gradient inside is a RuntimeError
(MindSpore's words). Recording is per thread (``_C._RecordingPause``); blocks nest."""
import contextlib
import threading

from mycel import _mycel as _C

__all__ = ["_no_grad", "in_no_grad"]

_state = threading.local()


def in_no_grad():
    """Whether this thread is inside a ``_no_grad`` block."""
    return getattr(_state, "depth", 0) > 0


class _no_grad(contextlib.ContextDecorator):  # noqa: N801 (MindSpore's name)
    """``with mycel._no_grad(): ...`` or ``@mycel._no_grad()``: what runs inside is not
    recorded by a PYNATIVE grad (its results take no gradient)."""

    def __enter__(self):
        pause = _C._RecordingPause()
        pause.enter()
        stack = getattr(_state, "pauses", None)
        if stack is None:
            stack = _state.pauses = []
        stack.append(pause)
        _state.depth = getattr(_state, "depth", 0) + 1
        return self

    def __exit__(self, *exc):
        _state.depth -= 1
        _state.pauses.pop().exit()
        return False
