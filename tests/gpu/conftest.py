"""pytest setup for the GPU checks (scripts/gpu_check.sh runs them on a machine with an NVIDIA
GPU; make test does not collect this folder). Every test here needs a GPU: without one the
session fails at once rather than skipping."""
import os
import sys

import pytest

here = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(here, "..", "..", "python"))
sys.path.insert(0, os.path.join(here, "..", "python"))  # the corpora of tests/python
sys.path.insert(0, os.path.join(here, "..", "..", "examples"))


def pytest_sessionstart(session):
    from mycel import _mycel
    # scripts/gpu_check.sh --dry-run collects (only) on a machine without a GPU.
    dry = os.environ.get("MYCEL_GPU_CHECK_DRYRUN") == "1" and session.config.option.collectonly
    if _mycel._gpu_count() == 0 and not dry:
        raise pytest.UsageError("tests/gpu needs a GPU and a CUDA build of mycel; none found")


@pytest.fixture(autouse=True)
def _cpu_after():
    import mycel as ms
    yield
    ms.set_context(device_target="CPU", mode=ms.PYNATIVE_MODE)
