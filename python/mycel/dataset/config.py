"""Dataset settings, MindSpore's ``mindspore.dataset.config``: the seed of the pipelines' random
draws, the default number of worker threads per op, and the prefetch depth.

The randomness of a pipeline (sampler shuffles, ``Dataset.shuffle``) comes from the seed set
here; without one, from ``mycel.get_seed()`` when the program called ``mycel.set_seed``. As in
MindSpore, a seed still equal to the default (5489, ``std::mt19937``'s, which is also mycel's
global default) counts as "not set" unless it was given to this module's ``set_seed``:
then every pipeline run draws fresh entropy, and orders differ from run to run. With a seed,
every run (each new iterator) repeats the same orders and random draws, as MindSpore's do;
the epochs within one run differ (each epoch reshuffles).
"""
import enum
import os

import numpy as np

import mycel
from mycel.dataset._validate import check_int

_DEFAULT_SEED = 5489
_seed = None
_workers = None
_prefetch = 16
_streams = 0  # random transforms called eagerly since the last set_seed


def set_seed(seed):
    """Seed the dataset pipelines: shuffles become reproducible (0 <= seed < 2**32)."""
    global _seed, _streams
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"set_seed: seed isn't of type int, but got {type(seed).__name__} "
                        f"{seed!r}.")
    _seed = check_int("set_seed", "seed", seed, 0, 2**32 - 1)
    _streams = 0


def _next_stream():
    """A number for a random transform's eager random stream: transforms get 0, 1, ... in the
    order of their first call since set_seed, so two transforms never share a stream and a
    program that repeats its calls after set_seed repeats their results."""
    global _streams
    _streams += 1
    return _streams - 1


def get_seed():
    """The dataset seed: set_seed's, else mycel.get_seed() (5489 when neither was set)."""
    return _seed if _seed is not None else mycel.get_seed()


def _entropy(pass_number):
    """The entropy of draw number pass_number (an eager random transform's call): the seed and
    the number, or fresh randomness, shared by the ranks of a job (their shards must be cut
    from one permutation)."""
    seed = get_seed()
    if _seed is None and seed == _DEFAULT_SEED:
        from mycel.communication.management import job_entropy
        job = job_entropy()
        return [np.random.SeedSequence().entropy] if job is None else [job, pass_number]
    return [seed, pass_number]


def _pipeline_entropy(pass_number):
    """The entropy of one pipeline run (an iterator), pass_number the runs made before on its
    dataset. Seeded: the seed alone, so every run repeats the same random orders and draws,
    as in MindSpore (its failover reset and tests compare two iterators); the epochs of one
    run still differ. Unseeded: _entropy's fresh randomness."""
    if _seed is None and get_seed() == _DEFAULT_SEED:
        return _entropy(pass_number)
    return [get_seed()]


def set_num_parallel_workers(num):
    """The worker threads of each op that is not given num_parallel_workers (>= 1)."""
    global _workers
    _workers = check_int("set_num_parallel_workers", "num", num, 1, 1024)


def get_num_parallel_workers():
    """The default worker threads per op: set_num_parallel_workers's, else min(8, CPUs)."""
    return _workers if _workers is not None else min(8, os.cpu_count() or 1)


def set_prefetch_size(size):
    """How many rows (batches after batch) each op may hold ready ahead of its consumer."""
    global _prefetch
    _prefetch = check_int("set_prefetch_size", "size", size, 1, 2**20)


def get_prefetch_size():
    """The prefetch depth of each op's output queue (default 16)."""
    return _prefetch


# ----- MindSpore's other pipeline settings -----
# Debug mode changes how pipelines run (below), and so does autotune (autotune.py). The other
# settings below tune MindSpore's engine: shared memory between Python worker processes, fast
# recovery on reset and the timeouts of its worker processes. mycel's
# engine runs Python callables on its own threads, so it keeps these values for programs that
# set and read them, and they change nothing in how a pipeline runs. The monitor sampling
# interval is the pipeline profiler's (_c_dataengine.GlobalContext.profiling_manager()).
_debug_mode = False
_debug_hooks = []
_settings = {"enable_autotune": False, "autotune_interval": 0, "enable_shared_mem": True,
             "fast_recovery": True, "monitor_sampling_interval": 1000, "callback_timeout": 60,
             "multiprocessing_timeout_interval": 300, "enable_watchdog": True,
             "auto_num_workers": False, "auto_offload": False}


def set_debug_mode(debug_mode_flag, debug_hook_list=None):
    """Debug mode: every op of a pipeline runs on one worker thread with a prefetch depth of
    one, so rows are produced one at a time, in order, and an error surfaces at the row that
    raised it (set_error_samples_mode is ignored meanwhile); the hooks of debug_hook_list (debug.DebugHook instances) run around each
    operation of every map (mycel/dataset/debug.py)."""
    global _debug_mode, _debug_hooks
    from mycel.dataset.debug import DebugHook
    if not isinstance(debug_mode_flag, bool):
        raise TypeError(f"set_debug_mode: debug_mode_flag isn't of type boolean. It must be a "
                        f"bool, but got {debug_mode_flag!r}.")
    if debug_hook_list is not None:
        if not isinstance(debug_hook_list, list):
            raise TypeError(f"set_debug_mode: debug_hook_list is not a list, but "
                            f"{type(debug_hook_list).__name__}.")
        if not all(isinstance(h, DebugHook) for h in debug_hook_list):
            raise TypeError("set_debug_mode: All items in debug_hook_list must be of type "
                            "DebugHook (mycel.dataset.debug).")
    _debug_mode, _debug_hooks = debug_mode_flag, list(debug_hook_list or [])


def _get_debug_hook_list():
    """The hooks debug mode runs around map operations (set_debug_mode's list)."""
    return list(_debug_hooks) if _debug_mode else []


def get_debug_mode():
    """Whether pipelines run in debug mode (set_debug_mode)."""
    return _debug_mode


def _setting(func, name, value, kind, low=None):
    if kind is bool:
        if not isinstance(value, bool):
            raise TypeError(f"{func}: the value must be of type bool ({name} must be a boolean "
                            f"dtype), but got {value!r}.")
    else:
        value = check_int(func, name, value, low, 2**31 - 1)
    _settings[name] = value


def set_enable_autotune(enable, filepath_prefix=None):
    """Turn the dataset AutoTune on or off (mycel/dataset/autotune.py): the next iterator's
    pipeline gets worker threads where its queues show a bottleneck; with filepath_prefix
    (a str) the tuned configuration is written to <filepath_prefix>_<RANK_ID>.json when that
    iterator finishes. TypeError for a non-bool enable or a non-str filepath_prefix;
    RuntimeError (when enabling) for an empty path, a directory, a missing directory, or in
    Dataset Independent mode (MS_INDEPENDENT_DATASET=True)."""
    func = "set_enable_autotune"
    if not isinstance(enable, bool):
        raise TypeError(f"{func}: enable must be of type bool, but got {enable!r}.")
    if filepath_prefix is not None and not isinstance(filepath_prefix, str):
        raise TypeError(f"{func}: json_filepath must be a str, but got "
                        f"{type(filepath_prefix).__name__} {filepath_prefix!r}.")
    path = None
    if enable:
        if os.environ.get("MS_INDEPENDENT_DATASET", "").lower() == "true":
            raise RuntimeError(f"{func}: Dataset AutoTune is not supported in Dataset "
                               "Independent mode (MS_INDEPENDENT_DATASET=True).")
        if filepath_prefix is not None:
            if filepath_prefix == "":
                raise RuntimeError(f"{func}: the json_filepath cannot be the empty string.")
            path = os.path.realpath(filepath_prefix)
            if os.path.isdir(path):
                raise RuntimeError(f"{func}: json_filepath {filepath_prefix!r} is a directory; "
                                   "give a file path prefix.")
            parent = os.path.dirname(path)
            if not os.path.isdir(parent):
                raise RuntimeError(f"{func}: Directory {parent!r} of json_filepath does not "
                                   "exist.")
    _settings["enable_autotune"] = enable
    _settings["autotune_filepath"] = path


def _autotune_filepath():
    """set_enable_autotune's filepath_prefix as a real path (None when not given)."""
    return _settings.get("autotune_filepath")


def get_enable_autotune():
    """set_enable_autotune's value (default False)."""
    return _settings["enable_autotune"]


def set_autotune_interval(interval):
    """AutoTune's tuning interval in rows of the pipeline (0: at each epoch end)."""
    _setting("set_autotune_interval", "autotune_interval", interval, int, 0)


def get_autotune_interval():
    """set_autotune_interval's value (default 0)."""
    return _settings["autotune_interval"]


def set_enable_shared_mem(enable):
    """Kept (module note above): Python runs on engine threads, no worker processes."""
    _setting("set_enable_shared_mem", "enable_shared_mem", enable, bool)


def get_enable_shared_mem():
    """set_enable_shared_mem's value (default True)."""
    return _settings["enable_shared_mem"]


def set_fast_recovery(fast_recovery):
    """Kept (module note above)."""
    _setting("set_fast_recovery", "fast_recovery", fast_recovery, bool)


def get_fast_recovery():
    """set_fast_recovery's value (default True)."""
    return _settings["fast_recovery"]


def set_monitor_sampling_interval(interval):
    """The pipeline profiler's sampling interval in ms (src/data/profiling.h), for the
    pipelines profiled from now on."""
    _setting("set_monitor_sampling_interval", "monitor_sampling_interval", interval, int, 1)


def get_monitor_sampling_interval():
    """set_monitor_sampling_interval's value in ms (default 1000)."""
    return _settings["monitor_sampling_interval"]


def set_callback_timeout(timeout):
    """Kept (module note above)."""
    _setting("set_callback_timeout", "callback_timeout", timeout, int, 1)


def get_callback_timeout():
    """set_callback_timeout's value in seconds (default 60)."""
    return _settings["callback_timeout"]


def set_multiprocessing_timeout_interval(interval):
    """Kept (module note above)."""
    _setting("set_multiprocessing_timeout_interval", "multiprocessing_timeout_interval",
             interval, int, 1)


def get_multiprocessing_timeout_interval():
    """set_multiprocessing_timeout_interval's value in seconds (default 300)."""
    return _settings["multiprocessing_timeout_interval"]


def set_enable_watchdog(enable):
    """Kept (module note above)."""
    _setting("set_enable_watchdog", "enable_watchdog", enable, bool)


def get_enable_watchdog():
    """set_enable_watchdog's value (default True)."""
    return _settings["enable_watchdog"]


def set_auto_num_workers(enable):
    """Kept (module note above): worker counts stay as given."""
    _setting("set_auto_num_workers", "auto_num_workers", enable, bool)


def get_auto_num_workers():
    """set_auto_num_workers's value (default False)."""
    return _settings["auto_num_workers"]


def set_auto_offload(offload):
    """Kept (module note above): every transform runs in the data engine."""
    _setting("set_auto_offload", "auto_offload", offload, bool)


def get_auto_offload():
    """set_auto_offload's value (default False)."""
    return _settings["auto_offload"]


# ----- MindSpore 2.x's remaining settings (mindspore.dataset.core.config) -----

_worker_connector_size = 16


def set_worker_connector_size(size):
    """The depth of the queues between an op's workers (MindSpore's setting); mycel's ops share
    one depth per pipeline, set_prefetch_size's, so this is recorded only (1 <= size)."""
    global _worker_connector_size
    _worker_connector_size = check_int("set_worker_connector_size", "size", size, 1,
                                       2**31 - 1)


def get_worker_connector_size():
    """set_worker_connector_size's value (default 16)."""
    return _worker_connector_size


class ErrorSamplesMode(enum.IntEnum):
    """What a map does with a row whose operations raise: RETURN raises the error (the
    default), REPLACE puts another, good row of the same map in its place, SKIP drops it
    (engine.py, "Erroneous rows")."""
    RETURN = 0
    REPLACE = 1
    SKIP = 2


_error_samples_mode = ErrorSamplesMode.RETURN


def set_error_samples_mode(error_samples_mode):
    """How maps treat rows whose operations raise (an ErrorSamplesMode)."""
    global _error_samples_mode
    if not isinstance(error_samples_mode, ErrorSamplesMode):
        raise TypeError(f"Argument error_samples_mode with value {error_samples_mode!r} is not of "
                        f"type [{ErrorSamplesMode!r}], but got {type(error_samples_mode)}.")
    _error_samples_mode = error_samples_mode


def get_error_samples_mode():
    """set_error_samples_mode's value (default ErrorSamplesMode.RETURN)."""
    return _error_samples_mode


def active_error_samples_mode():
    """The mode maps apply: set_error_samples_mode's, except in debug mode, which ignores it
    (RETURN: an error surfaces at the row that raised it, as MindSpore's debug mode)."""
    return ErrorSamplesMode.RETURN if _debug_mode else _error_samples_mode


# load(): the keys of MindSpore's configuration file and their setters. Keys it knows that
# have no setting here (logFilePath, rowsPerBuffer, opConnectorSize) are accepted and ignored.
_LOAD_KEYS = {
    "numParallelWorkers": lambda v: set_num_parallel_workers(v),
    "workerConnectorSize": lambda v: set_worker_connector_size(v),
    "opConnectorSize": None, "rowsPerBuffer": None, "logFilePath": None,
    "seed": lambda v: set_seed(v),
    "monitorSamplingInterval": lambda v: set_monitor_sampling_interval(v),
    "callbackTimeout": lambda v: set_callback_timeout(v),
    "fast_recovery": lambda v: set_fast_recovery(v),
    "debug_mode_flag": lambda v: set_debug_mode(v),
    "error_samples_mode": lambda v: set_error_samples_mode(ErrorSamplesMode(v)),
    "prefetchSize": lambda v: set_prefetch_size(v),
}


def load(file):
    """Set the settings a MindSpore configuration file (JSON) names, e.g.
    {"numParallelWorkers": 4, "seed": 5489, "monitorSamplingInterval": 30}; an unreadable file,
    invalid JSON or an unknown key is a RuntimeError naming the file."""
    import json
    try:
        with open(file, encoding="utf-8") as f:
            values = json.load(f)
    except (OSError, ValueError) as err:
        raise RuntimeError(f"config.load: cannot read the configuration file {file!r}: "
                           f"{err}") from err
    if not isinstance(values, dict):
        raise RuntimeError(f"config.load: {file!r} must hold a JSON object.")
    unknown = sorted(k for k in values if k not in _LOAD_KEYS)
    if unknown:
        raise RuntimeError(f"config.load: {file!r} has unknown settings {unknown}.")
    for key, value in values.items():
        if _LOAD_KEYS[key] is not None:
            _LOAD_KEYS[key](value)


_iterator_mode = {"do_copy": True, "parallel_convert": False}


def set_iterator_mode(do_copy=True, parallel_convert=False):
    """MindSpore's iterator settings: do_copy (Tensors copied out of the pipeline) and
    parallel_convert (numpy -> Tensor conversion on a separate thread). Kept (module note
    above): mycel's iterators always hand out Tensors that share nothing with the engine, and
    convert each row in C++ as it is popped. TypeError for non-bool values."""
    for name, value in (("do_copy", do_copy), ("parallel_convert", parallel_convert)):
        if not isinstance(value, bool):
            raise TypeError(f"set_iterator_mode: {name} must be of type bool, but got "
                            f"{type(value).__name__} {value!r}.")
    _iterator_mode.update(do_copy=do_copy, parallel_convert=parallel_convert)


def get_iterator_mode():
    """set_iterator_mode's values, as a dict {"do_copy", "parallel_convert"}."""
    return dict(_iterator_mode)
