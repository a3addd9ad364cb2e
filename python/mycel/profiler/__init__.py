"""mycel.profiler: MindSpore's ``mindspore.Profiler`` over mycel's op profiler
(src/runtime/op_profile.h), which times every op run eagerly or by the graph executor
(generated kernels as "GraphKernel") with wall and process CPU time, and keeps a timeline.

    prof = Profiler(output_path="./data")     # starts recording (start_profile=True)
    ... train ...
    prof.analyse()                            # stops and writes output_path/profiler/

The files: ``op_statistic.csv`` (per op type: count, total, average and CPU time, share of
the total), ``op_detail.csv`` (per op and result dtype/shape), ``trace_view.json`` (the
timeline in Chrome's trace-event format, for chrome://tracing or Perfetto) and
``profiler_info.json`` (the run's metadata). With a ``schedule``, ``step()`` moves through its
wait / warmup / active cycles and only the active steps are recorded; ``on_trace_ready`` is
called with the profiler at the end of each active cycle. mycel runs on the host CPU (and
copies to a GPU when one is used): the times are host times of each op's launch and kernel.
"""
import csv
import enum
import json
import os
import time

from mycel import _mycel as _C

__all__ = ["Profiler", "ProfilerLevel", "ProfilerActivity", "schedule",
           "tensorboard_trace_handler"]


class ProfilerLevel(enum.Enum):
    """How much is collected: mycel's profiler records the same op times at every level."""
    LevelNone = "LevelNone"
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"


class ProfilerActivity(enum.Enum):
    """Where time is measured: mycel times ops on the host (CPU) for every device."""
    CPU = "CPU"
    NPU = "NPU"
    GPU = "GPU"


class schedule:  # noqa: N801 (MindSpore's name)
    """The step schedule: skip_first steps, then cycles of `wait` idle, `warmup` idle (the
    warmup of a device profiler; nothing to warm here) and `active` recorded steps, `repeat`
    cycles (0: until the end)."""

    def __init__(self, *, wait, active, warmup=0, repeat=0, skip_first=0):
        for name, v in (("wait", wait), ("active", active), ("warmup", warmup),
                        ("repeat", repeat), ("skip_first", skip_first)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"For 'schedule', '{name}' must be a non-negative int, but "
                                 f"got {v!r}.")
        if active < 1:
            raise ValueError(f"For 'schedule', 'active' must be at least 1, but got {active}.")
        self.wait, self.active, self.warmup = wait, active, warmup
        self.repeat, self.skip_first = repeat, skip_first

    def __call__(self, step):
        """Whether step (counted from 0) is recorded, and whether it ends a cycle."""
        if step < self.skip_first:
            return False, False
        k = step - self.skip_first
        cycle = self.wait + self.warmup + self.active
        if self.repeat and k >= cycle * self.repeat:
            return False, False
        pos = k % cycle
        recorded = pos >= self.wait + self.warmup
        return recorded, recorded and pos == cycle - 1


def tensorboard_trace_handler(dir_name=None, worker_name=None, analyse_flag=True,
                              async_mode=False):
    """An on_trace_ready callback writing each cycle's files under dir_name (default
    "./data") in a folder per worker and cycle."""
    base = dir_name or "./data"
    worker = worker_name or f"{os.uname().nodename}_{os.getpid()}"

    def handler(prof):
        if analyse_flag:
            prof._write(os.path.join(base, f"{worker}_{prof._cycle}"))
    return handler


def _write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


class Profiler:
    """Profiler(start_profile=True, output_path="./data", profiler_level=None,
    activities=None, schedule=None, on_trace_ready=None, **kwargs): records op times from
    creation (or from start()) to stop(); analyse() writes the files (module docstring).
    Other MindSpore options (profile_memory, with_stack, data_simplification, ...) are
    accepted and do not change what is recorded."""

    def __init__(self, start_profile=True, output_path="./data", profiler_level=None,
                 activities=None, schedule=None, on_trace_ready=None, **kwargs):
        if not isinstance(start_profile, bool):
            raise TypeError(f"For 'Profiler', 'start_profile' must be a bool, but got "
                            f"{type(start_profile).__name__}.")
        if not isinstance(output_path, (str, os.PathLike)):
            raise TypeError(f"For 'Profiler', 'output_path' must be a str, but got "
                            f"{type(output_path).__name__}.")
        if profiler_level is not None and not isinstance(profiler_level, ProfilerLevel):
            raise TypeError(f"For 'Profiler', 'profiler_level' must be a ProfilerLevel, but "
                            f"got {type(profiler_level).__name__}.")
        if on_trace_ready is not None and not callable(on_trace_ready):
            raise TypeError("For 'Profiler', 'on_trace_ready' must be callable.")
        self.output_path = os.path.abspath(os.fspath(output_path))
        self.profiler_level = profiler_level or ProfilerLevel.Level0
        self.activities = list(activities or [ProfilerActivity.CPU])
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.options = dict(kwargs)
        self._metadata = {}
        self._step = 0
        self._cycle = 0
        self._running = False
        self._started_at = None
        if start_profile:
            self.start()

    def start(self):
        """Starts (or resumes) recording; a new profile unless one is being kept."""
        if self.schedule is not None and not self.schedule(self._step)[0]:
            self._running = True  # steps will switch the recorder on at the active ones
            return
        _C._profiler_start(keep=self._started_at is not None)
        self._running = True
        if self._started_at is None:
            self._started_at = time.time()

    def stop(self):
        """Stops recording (the results stay for analyse())."""
        _C._profiler_stop()
        self._running = False

    def step(self):
        """Ends a training step under a schedule: records the next step only when the schedule
        marks it active, and calls on_trace_ready at the end of each active cycle."""
        if self.schedule is None:
            return
        _, ends = self.schedule(self._step)
        self._step += 1
        if ends:
            _C._profiler_stop()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
            self._cycle += 1
            self._started_at = None
        if self._running and self.schedule(self._step)[0]:
            _C._profiler_start(keep=self._started_at is not None)
            if self._started_at is None:
                self._started_at = time.time()
        elif not ends:
            _C._profiler_stop()

    def add_metadata(self, key, value):
        """Adds a str entry to profiler_info.json."""
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("For 'Profiler.add_metadata', the key and value must be str.")
        self._metadata[key] = value

    def add_metadata_json(self, key, value):
        """Adds an entry whose value is a JSON string to profiler_info.json."""
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("For 'Profiler.add_metadata_json', the key and value must be str.")
        self._metadata[key] = json.loads(value)

    def analyse(self, offline_path=None, pretty=False, step_list=None, mode="sync"):
        """Stops recording and writes the files to output_path/profiler (or offline_path)."""
        if self._running:
            self.stop()
        return self._write(os.fspath(offline_path) if offline_path else self.output_path,
                           pretty)

    def op_analyse(self, op_name, device_id=None):
        """The recorded totals of one op type (or a list of them) as a JSON string."""
        names = [op_name] if isinstance(op_name, str) else list(op_name)
        rows = {r[0]: r for r in _C._profiler_rows(False)}
        out = {n: {"calls": rows[n][1], "total_us": rows[n][2] * 1e6,
                   "cpu_us": rows[n][3] * 1e6} for n in names if n in rows}
        return json.dumps(out)

    def _write(self, base, pretty=False):
        folder = os.path.join(base, "profiler")
        os.makedirs(folder, exist_ok=True)
        ops = _C._profiler_rows(False)
        total = sum(r[2] for r in ops) or 1e-12
        _write_csv(os.path.join(folder, "op_statistic.csv"),
                   ["Op Type", "Count", "Total Time(us)", "Avg Time(us)", "CPU Time(us)",
                    "Ratio(%)"],
                   [[n, c, f"{w * 1e6:.3f}", f"{w * 1e6 / max(c, 1):.3f}", f"{cpu * 1e6:.3f}",
                     f"{100 * w / total:.2f}"] for n, c, w, cpu in ops])
        _write_csv(os.path.join(folder, "op_detail.csv"),
                   ["Op", "Count", "Total Time(us)", "Avg Time(us)", "CPU Time(us)"],
                   [[n, c, f"{w * 1e6:.3f}", f"{w * 1e6 / max(c, 1):.3f}", f"{cpu * 1e6:.3f}"]
                    for n, c, w, cpu in _C._profiler_rows(True)])
        events, dropped = _C._profiler_events()
        trace = {"traceEvents": [{"name": n, "ph": "X", "ts": s, "dur": d, "pid": os.getpid(),
                                  "tid": t, "cat": "op"} for n, s, d, t in events],
                 "displayTimeUnit": "ms"}
        with open(os.path.join(folder, "trace_view.json"), "w") as f:
            json.dump(trace, f, indent=1 if pretty else None)
        from mycel.context import get_context
        from mycel.version import __version__
        info = {"mycel_version": __version__, "device_target": get_context("device_target"),
                "start_time": self._started_at, "profiler_level": self.profiler_level.value,
                "op_calls": sum(r[1] for r in ops), "timeline_dropped_calls": dropped,
                "metadata": self._metadata}
        with open(os.path.join(folder, "profiler_info.json"), "w") as f:
            json.dump(info, f, indent=1 if pretty else None)
        return folder

    def __enter__(self):
        if not self._running:
            self.start()
        return self

    def __exit__(self, *exc):
        if self._running:
            self.stop()
