"""pytest setup: tests import the mycel package from python/ (make sets PYTHONPATH too)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
# The example models (examples/lenet.py) are imported by tests too.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))

# Every graph compiled by the tests is checked by the IR verifier after every pass.
os.environ.setdefault("MYCEL_VERIFY_IR", "1")
