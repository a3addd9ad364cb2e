"""mycel.log: MindSpore's ``mindspore.log`` logging functions (``from mindspore import log as
logger; logger.info(...)``) over Python's ``logging``, logger name ``mycel``.

The level comes from the environment as MindSpore's does: ``GLOG_v`` 0 debug, 1 info,
2 warning (the default), 3 error, 4 critical; ``GLOG_logtostderr`` (default 1) sends the
records to stderr, otherwise to ``GLOG_log_dir``/mycel.log. ``get_level()`` gives the level
as MindSpore's string digit."""
import logging
import os
import sys

_LEVELS = {"0": logging.DEBUG, "1": logging.INFO, "2": logging.WARNING, "3": logging.ERROR,
           "4": logging.CRITICAL}
_FORMAT = "[%(levelname)s] %(name)s(%(process)d,%(threadName)s):%(asctime)s " \
          "[%(filename)s:%(lineno)d] %(message)s"
_logger = None


def _config():
    level = os.environ.get("GLOG_v", "2")
    if level not in _LEVELS:
        raise ValueError(f"For 'mycel.log', GLOG_v must be one of 0, 1, 2, 3, 4, but got "
                         f"{level!r}.")
    to_stderr = os.environ.get("GLOG_logtostderr", "1") == "1"
    return level, to_stderr, os.environ.get("GLOG_log_dir")


def _get_logger():
    """The 'mycel' logger, configured from the environment on first use."""
    global _logger
    if _logger is not None:
        return _logger
    level, to_stderr, log_dir = _config()
    logger = logging.getLogger("mycel")
    logger.setLevel(_LEVELS[level])
    logger.propagate = False
    if to_stderr or not log_dir:
        handler = logging.StreamHandler(sys.stderr)
    else:
        os.makedirs(log_dir, exist_ok=True)
        handler = logging.FileHandler(os.path.join(log_dir, "mycel.log"))
    handler.setFormatter(logging.Formatter(_FORMAT))
    logger.addHandler(handler)
    _logger = logger
    return logger


def debug(msg, *args, **kwargs):
    """Logs msg % args at level DEBUG (GLOG_v=0)."""
    _get_logger().debug(msg, *args, stacklevel=2, **kwargs)


def info(msg, *args, **kwargs):
    """Logs msg % args at level INFO (GLOG_v <= 1)."""
    _get_logger().info(msg, *args, stacklevel=2, **kwargs)


def warning(msg, *args, **kwargs):
    """Logs msg % args at level WARNING (GLOG_v <= 2, the default)."""
    _get_logger().warning(msg, *args, stacklevel=2, **kwargs)


def error(msg, *args, **kwargs):
    """Logs msg % args at level ERROR."""
    _get_logger().error(msg, *args, stacklevel=2, **kwargs)


def critical(msg, *args, **kwargs):
    """Logs msg % args at level CRITICAL."""
    _get_logger().critical(msg, *args, stacklevel=2, **kwargs)


def exception(msg, *args, **kwargs):
    """Logs msg % args at level ERROR with the exception being handled."""
    _get_logger().exception(msg, *args, stacklevel=2, **kwargs)


def get_level():
    """The level as MindSpore's digit string: '0' debug ... '4' critical."""
    lvl = _get_logger().level
    return next(k for k, v in _LEVELS.items() if v == lvl)


def get_log_config():
    """The logging configuration: {'GLOG_v': level, 'GLOG_logtostderr': '1' or '0', and
    'GLOG_log_dir' when logging to a file}."""
    level, to_stderr, log_dir = _config()
    cfg = {"GLOG_v": level, "GLOG_logtostderr": "1" if to_stderr else "0"}
    if not to_stderr and log_dir:
        cfg["GLOG_log_dir"] = log_dir
    return cfg
