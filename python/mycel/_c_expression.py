"""The part of MindSpore's C extension module ``mindspore._c_expression`` that its programs and
tests reach for directly: ``security.enable_security()``, which tells whether MindSpore was
built in its security mode (a build option that removes graph dumps, summaries and profiling).
mycel has no such build mode, so it is always False."""
import types


def _enable_security():
    """False: mycel has no security build mode (dumps, summaries and profiling stay)."""
    return False


security = types.SimpleNamespace(enable_security=_enable_security)
