"""mycel.context: execution settings, MindSpore's ``set_context``.

Modes: PYNATIVE_MODE runs every op eagerly from Python. GRAPH_MODE compiles
``Cell.construct`` into a graph (once per call signature) and runs it on the C++ executor;
``@mycel.jit`` does the same for single functions in either mode.
"""
GRAPH_MODE = 0
PYNATIVE_MODE = 1

_context = {"mode": PYNATIVE_MODE, "device_target": "CPU", "device_id": 0}
_KNOWN = {"mode", "device_target", "device_id", "max_call_depth", "save_graphs",
          "save_graphs_path", "jit_config", "pynative_synchronize", "runtime_num_threads"}


def set_context(**kwargs):
    """Sets execution options: mode (GRAPH_MODE or PYNATIVE_MODE), device_target ("CPU"),
    runtime_num_threads (threads for kernels), and MindSpore's other names (accepted and
    recorded)."""
    from mycel import _mycel as _C
    for key, value in kwargs.items():
        if key not in _KNOWN:
            raise ValueError(f"For 'set_context', unknown option '{key}'.")
        if key == "mode":
            if value not in (GRAPH_MODE, PYNATIVE_MODE):
                raise ValueError(f"For 'set_context', mode must be GRAPH_MODE (0) or "
                                 f"PYNATIVE_MODE (1), but got {value!r}.")
        if key == "device_target" and value != "CPU":
            raise ValueError(f"For 'set_context', device_target must be 'CPU' in this build, "
                             f"but got {value!r}.")
        if key == "runtime_num_threads":
            _C.set_num_threads(int(value))
        _context[key] = value


def get_context(attr_key):
    """The value of one option set with set_context."""
    if attr_key not in _KNOWN:
        raise ValueError(f"For 'get_context', unknown option '{attr_key}'.")
    return _context.get(attr_key)
