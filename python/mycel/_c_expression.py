"""The part of MindSpore's C extension module ``mindspore._c_expression`` that its programs and
tests reach for directly: ``security.enable_security()``, which tells whether MindSpore was
built in its security mode (a build option that removes graph dumps, summaries and profiling).
mycel has no such build mode, so it is always False."""
import types


def _enable_security():
    """False: mycel has no security build mode (dumps, summaries and profiling stay)."""
    return False


security = types.SimpleNamespace(enable_security=_enable_security)


# MindSpore's C++ random fills (``_random_normal(seed, array, mean, sigma)``, ...): they fill
# a float32 numpy array in place from a generator seeded by `seed` (the same seed, the same
# values). mycel draws from numpy's PCG64 generator: the distributions are MindSpore's, the
# values are not bit-identical to MindSpore's Philox streams.
def _rng(seed):
    import numpy as np
    return np.random.Generator(np.random.PCG64(int(seed) & ((1 << 64) - 1)))


def _random_normal(seed, data, mean, sigma):
    """Fills `data` with N(mean, sigma^2) draws."""
    data[...] = _rng(seed).normal(mean, sigma, size=data.shape)


def _random_uniform(seed, data, low, high):
    """Fills `data` with U(low, high) draws."""
    data[...] = _rng(seed).uniform(low, high, size=data.shape)


def _truncated_normal(seed, data, low, high, mean, sigma):
    """Fills `data` with N(mean, sigma^2) draws restricted to [low, high] (redrawn outside)."""
    import numpy as np
    rng = _rng(seed)
    out = rng.normal(mean, sigma, size=data.size)
    for _ in range(1000):
        bad = (out < low) | (out > high)
        if not bad.any():
            break
        out[bad] = rng.normal(mean, sigma, size=int(bad.sum()))
    data[...] = np.clip(out, low, high).reshape(data.shape)


class CommExecOrderChecker:
    """MindSpore's ``_c_expression.CommExecOrderChecker``: the switch of the collective
    execution-order recorder (src/comm/exec_order.h). While collecting, every collective and
    Send/Receive the process runs (either mode, synchronous or queued) is recorded in the order
    it runs; stopping writes ``<save_graphs_path or .>/rank_<world rank>/execute_order/
    comm_execute_order.csv`` (no file when nothing ran). ``mycel.utils.comm_exec_order_check``
    drives it and ``mycel.utils.runtime_execution_order_check`` reads the files."""
    _instance = None

    @classmethod
    def get_instance(cls):
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def start_collect_exec_order(self):
        from mycel import _mycel
        _mycel._comm_exec_order_start()

    def stop_collect_exec_order(self):
        """Stops and writes this rank's file; returns its path ("" when nothing ran)."""
        from mycel import _mycel
        from mycel import context
        folder = context.get_context("save_graphs_path") or "."
        return _mycel._comm_exec_order_stop(str(folder))

    def is_collecting(self):
        from mycel import _mycel
        return _mycel._comm_exec_order_recording()


def get_code_extra(code):
    """MindSpore's record of how its bytecode JIT (PIJit) compiled a function's code object.

    mycel compiles from the source (the AST front end) and has no bytecode JIT, so no code
    object has such a record: always None (MindSpore's answer for code PIJit never ran)."""
    import types as _types
    if not isinstance(code, (_types.CodeType, _types.FunctionType, _types.MethodType)):
        raise TypeError(f"get_code_extra() expects a code object or a function, but got "
                        f"{type(code).__name__}")
    return None
