"""mycel.log (MindSpore's logging functions, level from GLOG_v) and MindSpore's module path
mycel.dataset.engine.iterators with _cleanup/_unset_iterator_cleanup."""
import os
import subprocess
import sys

import numpy as np

import mycel.dataset as ds

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(code, **env):
    full = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"), **env)
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True,
                          text=True, timeout=120)


def test_log_levels_follow_glog_v():
    code = ("from mycel import log as logger\n"
            "logger.debug('d %d', 1); logger.info('i %s', 'x'); logger.warning('w')\n"
            "logger.error('e'); print(logger.get_level(), logger.get_log_config()['GLOG_v'])")
    out = _run(code)  # default: warning
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2", "2"]
    assert "] w" in out.stderr and "] e" in out.stderr and "i x" not in out.stderr
    out = _run(code, GLOG_v="0")
    assert out.stdout.split() == ["0", "0"]
    for msg in ("d 1", "i x", "] w", "] e"):
        assert msg in out.stderr
    assert "[DEBUG]" in out.stderr and "[<string>:2] d 1" in out.stderr  # the caller's line
    out = _run(code, GLOG_v="3")
    assert "] w" not in out.stderr and "] e" in out.stderr
    out = _run(code, GLOG_v="9")
    assert out.returncode != 0 and "GLOG_v" in out.stderr


def test_engine_iterators_path_and_cleanup():
    import mycel.dataset.engine.iterators as its
    from mycel.dataset.engine.iterators import _cleanup, _unset_iterator_cleanup
    assert its is ds.iterators
    data = ds.NumpySlicesDataset({"x": np.arange(8)}, shuffle=False)
    it = data.create_tuple_iterator(num_epochs=1)
    assert int(next(it)[0].asnumpy()) == 0
    _cleanup()  # stops the live iterator, as MindSpore's dataset tests do after each test
    assert its.check_iterator_cleanup()
    _unset_iterator_cleanup()
    assert not its.check_iterator_cleanup()
    # a new iterator works after the cleanup
    assert [int(r[0].asnumpy()) for r in data.create_tuple_iterator(num_epochs=1)] == \
        list(range(8))
