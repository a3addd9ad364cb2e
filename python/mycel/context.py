"""mycel.context: execution settings, MindSpore's ``set_context``.

Modes: PYNATIVE_MODE runs every op eagerly from Python. GRAPH_MODE compiles
``Cell.construct`` into a graph (once per call signature) and runs it on the C++ executor;
``@mycel.jit`` does the same for single functions in either mode.
"""
import os
import re

GRAPH_MODE = 0
PYNATIVE_MODE = 1

# MindSpore's graph-syntax levels (set_context(jit_syntax_level=...)). mycel's graph mode
# has one syntax, its parser's (docs/architecture.md, "Graph mode"): the level is checked
# and recorded, and changes nothing.
STRICT = 0
COMPATIBLE = 1
LAX = 2

_DEFAULT_JIT_CACHE_LIMIT = 8  # graphs per jit function / GRAPH-mode Cell, as PyTorch's limit

_context = {"mode": PYNATIVE_MODE, "device_target": "CPU", "device_id": 0,
            "enable_graph_kernel": False, "deterministic": "OFF"}
_KNOWN = {"mode", "device_target", "device_id", "max_call_depth", "save_graphs",
          "save_graphs_path", "jit_config", "pynative_synchronize", "runtime_num_threads",
          "jit_cache_limit", "max_device_memory", "enable_graph_kernel", "jit_level",
          "jit_syntax_level", "print_file_path", "deterministic"}


def _check_cache_limit(value, where):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"For {where}, jit_cache_limit must be a positive int, but got "
                         f"{value!r}.")
    return value


def _init_jit_cache_limit():
    """The limit from MYCEL_JIT_CACHE_LIMIT, else the default; run at import."""
    from mycel import _mycel as _C
    env = os.environ.get("MYCEL_JIT_CACHE_LIMIT")
    value = _DEFAULT_JIT_CACHE_LIMIT
    if env:
        try:
            value = int(env)
        except ValueError:
            value = 0
        _check_cache_limit(value, "the environment variable MYCEL_JIT_CACHE_LIMIT")
    _C.set_jit_cache_limit(value)
    _context["jit_cache_limit"] = value


def _check_print_file_path(value):
    if not isinstance(value, str):
        raise TypeError(f"For 'set_context', print_file_path must be a str, but got "
                        f"{type(value).__name__}.")
    folder = os.path.dirname(os.path.abspath(value)) if value else ""
    if value and not os.path.isdir(folder):
        raise ValueError(f"For 'set_context', the folder of print_file_path '{value}' does "
                         f"not exist.")
    if value and os.path.isdir(value):
        raise ValueError(f"For 'set_context', print_file_path '{value}' is a folder.")


def set_context(**kwargs):
    """Sets execution options: mode (GRAPH_MODE or PYNATIVE_MODE), device_target ("CPU", or
    "GPU" in a build with CUDA on a machine with an NVIDIA GPU: ops then run there, and
    tensors made on the host move to the GPU when an op first uses them), device_id (which
    GPU), runtime_num_threads (threads for kernels), max_device_memory ("2GB": the memory
    per device auto_parallel's strategy search plans within), jit_cache_limit (graphs kept
    per jit function or GRAPH-mode Cell, least recently used dropped first; default 8 or
    MYCEL_JIT_CACHE_LIMIT), enable_graph_kernel (bool, default False: programs compiled from
    then on fuse their elementwise and reduction chains into kernels generated with LLVM and
    cached on disk; docs/architecture.md, "Graph kernels"), and MindSpore's other names
    (accepted and recorded; jit_level 'O0'/'O1'/'O2' and jit_syntax_level STRICT/COMPATIBLE/
    LAX are checked first). print_file_path: ops.Print appends its values to that file
instead of printing them (None or "" prints again; mycel.parse_print reads the file).
deterministic "ON"/"OFF": mycel.set_deterministic.
max_call_depth (default 1000): how deeply GRAPH mode's compiler nests function calls, as
mycel.set_recursion_limit sets it (at run time, past 200000 nested calls too).
jit_level "O2" (or jit_config={"jit_level": "O2"}) is MindSpore's
    whole-graph sink: on a GPU, compiled steps (GRAPH-mode Cells, jit functions whose own
    jit_level is not set) are captured once per input signature as a CUDA Graph and replayed
    (see ``mycel.jit``); on the CPU it is "O1"."""
    from mycel import _mycel as _C
    for key, value in kwargs.items():
        if key not in _KNOWN:
            raise ValueError(f"For 'set_context', unknown option '{key}'.")
        if key == "mode":
            if value not in (GRAPH_MODE, PYNATIVE_MODE):
                raise ValueError(f"For 'set_context', mode must be GRAPH_MODE (0) or "
                                 f"PYNATIVE_MODE (1), but got {value!r}.")
        if key == "device_target":
            if value not in ("CPU", "GPU"):
                raise ValueError(f"For 'set_context', device_target must be 'CPU' or 'GPU', "
                                 f"but got {value!r}.")
        if key == "device_id" and (isinstance(value, bool) or not isinstance(value, int)
                                   or value < 0):
            raise ValueError(f"For 'set_context', device_id must be a non-negative int, "
                             f"but got {value!r}.")
        if key == "device_target" or (key == "device_id" and "device_target" not in kwargs):
            # Once per call, with both values: a RuntimeError where there is no such GPU.
            _C._set_device(kwargs.get("device_target", _context["device_target"]),
                           kwargs.get("device_id", _context["device_id"]))
        if key == "jit_cache_limit":
            _C.set_jit_cache_limit(_check_cache_limit(value, "'set_context'"))
        if key == "max_device_memory":  # the strategy search's memory limit
            parse_max_device_memory(value)
        if key == "enable_graph_kernel":
            if not isinstance(value, bool):
                raise TypeError(f"For 'set_context', enable_graph_kernel must be a bool, but got "
                                f"{type(value).__name__}.")
            _C._set_graph_kernel(value)
        if key == "jit_level":
            if value not in ("O0", "O1", "O2"):
                raise ValueError(f"For 'set_context', jit_level must be 'O0', 'O1' or 'O2', "
                                 f"but got {value!r}.")
            _C._set_jit_level(value)
        if key == "jit_config" and isinstance(value, dict) and value.get("jit_level"):
            from mycel.common.api import _config_level
            _C._set_jit_level(_config_level(value, "set_context"))
        if key == "jit_syntax_level" and (isinstance(value, bool)
                                          or value not in (STRICT, COMPATIBLE, LAX)):
            raise ValueError(f"For 'set_context', jit_syntax_level must be STRICT, COMPATIBLE or "
                             f"LAX, but got {value!r}.")
        if key == "print_file_path" and value is not None:
            _check_print_file_path(value)
        if key == "deterministic":
            if value not in ("ON", "OFF"):
                raise ValueError(f"For 'set_context', deterministic must be 'ON' or 'OFF', but "
                                 f"got {value!r}.")
            _C._set_deterministic(value == "ON")
        if key == "runtime_num_threads":
            _C.set_num_threads(int(value))
        if key == "max_call_depth":
            _set_max_call_depth(value)
            continue  # get_context reads the limit itself (set_recursion_limit sets it too)
        _context[key] = value


def _set_max_call_depth(value):
    """set_context(max_call_depth=N): MindSpore's older name of set_recursion_limit(N), the
    limit on function calls GRAPH mode's compiler specialises inside one another (nested
    helper calls, recursion on compile-time constants); default 1000. Past it: a
    RecursionError (a RuntimeError) naming the limit, never a crash (src/ir/depth.h). At run
    time (a recursion on tensor values) nested graph calls are limited to 200000, or to N
    when larger (src/runtime/vm.h)."""
    from mycel import _mycel as _C
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For 'set_context', max_call_depth must be an int, but got "
                        f"{type(value).__name__}.")
    if not 0 < value < 2**31:
        raise ValueError(f"For 'set_context', max_call_depth must be a positive int below "
                         f"2**31, but got {value}.")
    _C._set_recursion_limit(value)


def get_context(attr_key):
    """The value of one option set with set_context."""
    if attr_key not in _KNOWN:
        raise ValueError(f"For 'get_context', unknown option '{attr_key}'.")
    if attr_key == "max_call_depth":
        from mycel import _mycel as _C
        return _C._get_recursion_limit()
    return _context.get(attr_key)


def _watch_sigint():
    """Wraps signal.signal so that a new SIGINT handler tells mycel to chain its own in front
    of it at the next graph run (src/base/interrupt.h: Ctrl-C stops compiled loops). Checking
    the C-level handler on every call would cost a system call per call."""
    import functools
    import signal
    from mycel import _mycel as _C
    original = signal.signal
    if getattr(original, "_mycel_watch", False):
        return

    @functools.wraps(original)
    def watched(signalnum, handler):
        old = original(signalnum, handler)
        if signalnum == signal.SIGINT:
            _C._sigint_handler_changed()
        return old

    watched._mycel_watch = True
    signal.signal = watched


_init_jit_cache_limit()
_watch_sigint()


def parse_max_device_memory(v):
    """set_context(max_device_memory=...) in bytes: MindSpore's "<n>GB"; ValueError otherwise
    (read by the strategy search, mycel.parallel.search)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*GB\s*", str(v))
    if not m or float(m.group(1)) <= 0:
        raise ValueError(f"For 'set_context', max_device_memory must look like '2GB' (a "
                         f"positive number of GB), but got {v!r}.")
    return float(m.group(1)) * (1 << 30)


# MindSpore's context module also carries the parallel context's functions.
from mycel.parallel.context import (ParallelMode, set_auto_parallel_context,  # noqa: E402,F401
                                    get_auto_parallel_context, reset_auto_parallel_context)
