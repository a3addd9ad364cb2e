"""pytest setup: tests import the mycel package from python/ (make sets PYTHONPATH too)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
# The example models (examples/lenet.py) are imported by tests too.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))

# Every graph compiled by the tests is checked by the IR verifier after every pass.
os.environ.setdefault("MYCEL_VERIFY_IR", "1")

import pytest  # noqa: E402


@pytest.fixture(params=["pynative", "graph"])
def mode(request):
    """Runs the test once in PYNATIVE and once in GRAPH mode (the context restored after);
    the value is the mode constant. Test files that define their own `mode` override it."""
    import mycel as ms
    old = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE if request.param == "pynative" else ms.GRAPH_MODE)
    yield ms.get_context("mode")
    ms.set_context(mode=old)
