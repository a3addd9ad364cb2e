"""A seeded sweep of hostile arguments over every public ``mycel.ops`` function and every
``mycel.ops.operations`` primitive: wrong dtypes (bool, int8, uint64, float16, complex64),
0-d, empty and non-contiguous (transposed, sliced) tensors, NaN/inf, None, Python lists,
mismatched broadcast shapes, axes far out of range, shapes whose element count overflows
int64, each call in PYNATIVE mode and a sample again under ``ms.jit`` (GRAPH).

Acceptable: a result, or a TypeError / ValueError / IndexError / RuntimeError /
NotImplementedError whose message names the op. A finding is a crash (segfault, abort), a
call running past CALL_BOUND seconds, a MemoryError (an allocation sized by a bad shape), an
exception of another type, a message that names no op (a bare C++ or numpy text), or GRAPH
and PYNATIVE disagreeing (one raises and the other returns, or different values).

The calls run in worker processes (this file run as a script with --worker) so that a crash
ends only the worker: the parent records the call it died in and starts a new worker after
it. The cases are drawn from random.Random(SEED): PER_OP cases per op in CI,
MYCEL_SWEEP_SCALE times as many for longer runs:
    MYCEL_SWEEP_SCALE=20 PYTHONPATH=python /usr/bin/python3 -m pytest -q -s \\
        tests/python/test_bad_input_sweep.py
(-s prints the counts and every finding; MYCEL_SWEEP_SEED changes the draw).
"""
import inspect
import json
import os
import random
import re
import subprocess
import sys
import time
import warnings

import numpy as np

SCALE = float(os.environ.get("MYCEL_SWEEP_SCALE", "1"))
SEED = int(os.environ.get("MYCEL_SWEEP_SEED", "0"))
PER_OP = 4  # cases per function or primitive at scale 1
GRAPH_SHARE = 0.1  # the share of cases also run under ms.jit
CALL_BOUND = 30.0  # seconds without progress: the call hangs
ALLOWED = (TypeError, ValueError, IndexError, RuntimeError, NotImplementedError)

# Ops not called, with the reason (counted and printed). Only ops whose call cannot be made
# here: nothing is skipped for failing.
SKIP = {
    "fn:print_": "prints to the screen (covered by test_print_file.py)",
    "prim:Print": "prints to the screen (covered by test_print_file.py)",
    "prim:Receive": "waits for a peer process",
    "fn:receive": "waits for a peer process",
}
# (and the helpers of ops/function/_util.py that leak into the mycel.ops namespace: not ops)
_HELPERS = "mycel.ops.function._util"

# Open gaps, printed on every run and left to fix (docs/fuzzing.md, "Left"):
# GRAPH mode cannot compile ops whose output shape depends on the input's values (it raises
# a typed error naming the op where PYNATIVE returns).
KNOWN_GRAPH_GAPS = {"prim:UniqueConsecutive", "fn:unique_consecutive", "fn:sequence_mask"}
# Function transforms given a tensor where the function goes: Python's own "'Tensor' object
# is not callable" names no op (a callable() check would not compile in graph code, where
# vjp, jvp and derivative run). Found at seed 0, scale 1; a new op must not join them.
KNOWN_UNNAMED = {"fn:derivative", "fn:jvp", "fn:vjp", "prim:Partial", "prim:Scan",
                 "prim:WhileLoop"}
_COMM = "mycel.ops.operations.comm_ops"  # the communication primitives' module
# Ops whose values are random: GRAPH and PYNATIVE are compared by shapes and dtypes only.
_RANDOM = re.compile(r"rand|uniform|normal|dropout|shuffle|multinomial|gamma|poisson|"
                     r"bernoulli|sample|choice|laplace|binomial|cauchy|exponential|"
                     r"geometric|log_normal|truncated|parameterized|noise|random|rrelu", re.I)

# Argument tokens (made into values in the worker by _value): tensors first.
TENSORS = ["f32", "bool", "i8", "u64", "f16", "c64", "i32", "scalar", "empty", "nanf", "T",
           "slice", "b45", "f32_4d"]
OTHERS = ["None", "list", "int0", "int1", "neg", "bigint", "huge_shape", "ovf_shape",
          "neg_shape", "float", "nanfloat", "str", "dup_axes", "dtype", "tensors"]
_KIND_TOKENS = {  # the op-table attribute kinds and hostile values of each
    "int": ["int1", "int0", "neg", "bigint"],
    "tuple of int": ["tup11", "huge_shape", "ovf_shape", "neg_shape", "dup_axes"],
    "bool": ["true", "int1"],
    "float": ["float", "nanfloat", "neg"],
    "str": ["str"],
    "dtype": ["dtype", "int1"],
}


def _value(tok):
    """The argument that token tok stands for (fresh each call: ops may write inputs)."""
    import mycel as ms  # pylint: disable=import-outside-toplevel
    r = np.arange(6, dtype=np.float64).reshape(2, 3) - 2.5
    table = {
        "f32": lambda: ms.Tensor(r.astype(np.float32)),
        "bool": lambda: ms.Tensor(r > 0),
        "i8": lambda: ms.Tensor(r.astype(np.int8)),
        "u64": lambda: ms.Tensor(np.abs(r).astype(np.uint64)),
        "f16": lambda: ms.Tensor(r.astype(np.float16)),
        "c64": lambda: ms.Tensor((r + 1j * r[::-1]).astype(np.complex64)),
        "i32": lambda: ms.Tensor(np.array([[0, 1, 2], [1, 0, 1]], np.int32)),
        "scalar": lambda: ms.Tensor(np.float32(1.5)),
        "empty": lambda: ms.Tensor(np.zeros((0, 3), np.float32)),
        "nanf": lambda: ms.Tensor(np.array([[np.nan, np.inf, -np.inf], [0, -0.0, 1e38]],
                                           np.float32)),
        "T": lambda: ms.Tensor(r.astype(np.float32).reshape(3, 2)).T,
        "slice": lambda: ms.Tensor(np.arange(12, dtype=np.float32).reshape(2, 6))[:, ::2],
        "b45": lambda: ms.Tensor(np.ones((4, 5), np.float32)),
        "f32_4d": lambda: ms.Tensor(np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)),
        "None": lambda: None,
        "list": lambda: [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
        "int0": lambda: 0,
        "int1": lambda: 1,
        "neg": lambda: -100,
        "bigint": lambda: 2 ** 62,
        "tup11": lambda: (1, 1),
        "huge_shape": lambda: (2 ** 40, 2 ** 40),
        "ovf_shape": lambda: (2 ** 62, 2 ** 62, 4),
        "neg_shape": lambda: (-3, 2),
        "float": lambda: 0.5,
        "nanfloat": lambda: float("nan"),
        "str": lambda: "abc",
        "true": lambda: True,
        "dup_axes": lambda: (0, 0),
        "dtype": lambda: ms.float32,
        "tensors": lambda: (ms.Tensor(r.astype(np.float32)), ms.Tensor(np.ones((4, 5)))),
    }
    return table[tok]()


# ----- the ops and their cases (in the parent) -----

def _targets():
    """[(key, required positional count or None, the function or None)] of every public ops
    function ("fn:name") and operations primitive ("prim:Name"), sorted."""
    from mycel import ops  # pylint: disable=import-outside-toplevel
    from mycel.ops import operations as P  # pylint: disable=import-outside-toplevel
    from mycel.ops.primitive import Primitive  # pylint: disable=import-outside-toplevel
    out = []
    for name in sorted(dir(ops)):
        f = getattr(ops, name)
        if name.startswith("_") or inspect.isclass(f) or not callable(f) or \
                inspect.ismodule(f):
            continue
        out.append(("fn:" + name, _required(f), f))
    for name in sorted(dir(P)):
        c = getattr(P, name)
        if name.startswith("_") or not inspect.isclass(c) or not issubclass(c, Primitive):
            continue
        out.append(("prim:" + name, None, c))
    return out


# Hostile values for an optional parameter, by its name (given as a keyword).
_NAMED = [
    (re.compile(r"^(axis|axes|dim|dims|dim[0-9]|start_dim|end_dim|source|destination)$"),
     ["neg", "bigint", "dup_axes", "f32", "nanfloat", "int1"]),
    (re.compile(r"^(shape|size|sizes|output_size|new_shape|num|steps|n|length|num_samples|"
                r"window_length|num_segments|repeats|k|diagonal|offset|num_classes|depth|"
                r"max_length|n_fft|sections|chunks|indices_or_sections)$"),
     ["huge_shape", "ovf_shape", "neg_shape", "bigint", "neg", "nanfloat"]),
    (re.compile(r"dtype"), ["str", "int1", "dtype", "None"]),
]


def _keyword(f, rng):
    """{name: token} for one optional parameter of f, or {} (also when f has none)."""
    try:
        params = [p for p in inspect.signature(f).parameters.values()
                  if p.default is not p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD,
                                                              p.KEYWORD_ONLY)]
    except (TypeError, ValueError):
        return {}
    if not params:
        return {}
    p = rng.choice(params)
    for pattern, toks in _NAMED:
        if pattern.search(p.name):
            return {p.name: rng.choice(toks)}
    return {p.name: rng.choice(OTHERS + TENSORS)}


def _required(f):
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return None
    return sum(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
               for p in params)


def _hostile(rng, companion=0.5):
    if rng.random() < companion:
        return "f32"
    return rng.choice(TENSORS + OTHERS)


def _prim_case(name, rng):
    """(init args, init kwargs, call args) tokens of a primitive case, from its op-table
    schema when it has one, else from its signatures."""
    from mycel.ops import operations as P  # pylint: disable=import-outside-toplevel
    from mycel.ops.primitive import Primitive, op_schema  # noqa: E501 pylint: disable=import-outside-toplevel
    cls = getattr(P, name)
    op = getattr(cls, "_op", None)
    if op is not None and cls.__init__ is Primitive.__init__:
        schema = op_schema(op)
        init = {a["name"]: rng.choice(_KIND_TOKENS.get(a["kind"], ["int1"]))
                for a in schema["attrs"] if not a["call"] and
                (a["required"] or rng.random() < 0.2)}
        n = schema["num_inputs"] if schema["num_inputs"] >= 0 else 2
        call = [rng.choice(TENSORS)] + [_hostile(rng) for _ in range(max(0, n - 1))]
        call += [rng.choice(_KIND_TOKENS.get(a["kind"], ["int1"])) for a in schema["attrs"]
                 if a["call"] and a["required"]]
        return [], init, call
    init_n = _required(cls.__init__)
    init_n = max(0, (init_n or 1) - 1)  # self
    init = [rng.choice(["int1", "int1", "neg", "tup11", "float", "huge_shape"])
            for _ in range(init_n)]
    call_n = _required(cls.__call__)
    call_n = max(1, (call_n or 2) - 1)
    call = [rng.choice(TENSORS)] + [_hostile(rng) for _ in range(call_n - 1)]
    return init, {}, call


def _cases():
    cases, skipped = [], {}
    for key, required, f in _targets():
        rng = random.Random(f"{SEED}:{key}")  # per op: a new op leaves the others' cases alone
        kind, name = key.split(":")
        if key in SKIP or (kind == "prim" and f.__module__ == _COMM):
            skipped[key] = SKIP.get(key, "needs a communication group")
            continue
        if getattr(f, "__module__", None) == _HELPERS:
            skipped[key] = "an internal helper of ops/function/_util.py, not an op"
            continue
        for _ in range(max(1, round(PER_OP * SCALE))):
            graph = rng.random() < GRAPH_SHARE
            if kind == "fn":
                n = required if required is not None else rng.choice((1, 2))
                n += rng.random() < 0.3
                call = [rng.choice(TENSORS)] + [_hostile(rng) for _ in range(max(0, n - 1))]
                kw = _keyword(f, rng) if rng.random() < 0.5 else {}
                cases.append([key, [], kw, call, graph and not kw])
            else:
                cases.append([key, *_prim_case(name, rng), graph])
    return cases, skipped


# ----- the worker: runs cases, one JSON line of outcome each -----

def _names_op(msg, key):
    """Whether an error message names its op: "For 'Op'", "Op: ..." or the function's or
    primitive's name."""
    name = key.split(":")[1].lower().replace("_", "")
    flat = msg.lower().replace("_", "")
    return bool(re.search(r"for '\w", msg, re.I) or re.match(r"\s*[\w.]+[:(]", msg) or
                name in flat)


def _outcome(call, key):
    """('ok', summary) | ('typed', msg) | a finding (kind, msg)."""
    try:
        out = call()
        return "ok", _summary(out)
    except MemoryError as e:
        return "memory", str(e)[:300]
    except ALLOWED as e:
        msg = str(e)
        if not _names_op(msg, key):
            return "unnamed", f"{type(e).__name__}: {msg[:300]}"
        return "typed", f"{type(e).__name__}: {msg[:120]}"
    except Exception as e:  # noqa: BLE001 - any other type is the finding
        return "untyped", f"{type(e).__name__}: {str(e)[:300]}"


def _summary(out):
    """The values of a result as nested lists of (shape, dtype, values) (forces evaluation)."""
    import mycel as ms  # pylint: disable=import-outside-toplevel
    if isinstance(out, ms.Tensor):
        a = out.asnumpy()
        flat = a.ravel()[:64]
        if a.dtype.kind == "c":  # JSON has no complex numbers: (real, imag) pairs
            flat = np.stack([flat.real, flat.imag], -1)
        return [list(a.shape), str(a.dtype), flat.tolist()]
    if isinstance(out, (tuple, list)):
        return [_summary(o) for o in out]
    if isinstance(out, (int, float, bool, str)) or out is None:
        return repr(out)
    if callable(out):  # ops.grad, jacrev, ...: a function (GRAPH mode cannot return one)
        return "<callable>"
    return type(out).__name__


def _run_case(case):
    key, init_args, init_kwargs, call_toks, graph = case
    import mycel as ms  # pylint: disable=import-outside-toplevel
    from mycel import ops  # pylint: disable=import-outside-toplevel
    from mycel.ops import operations as P  # pylint: disable=import-outside-toplevel
    kind, name = key.split(":")

    def make():
        if kind == "fn":  # init_kwargs are the call's keywords
            f = getattr(ops, name)
            kw = {k: _value(t) for k, t in init_kwargs.items()}
            return (lambda *a: f(*a, **kw)) if kw else f
        return getattr(P, name)(*[_value(t) for t in init_args],
                                **{k: _value(t) for k, t in init_kwargs.items()})

    try:
        fn = make()
    except MemoryError as e:
        return [["memory", f"__init__: {e}"[:300]]]
    except ALLOWED as e:
        if not _names_op(str(e), key):
            return [["unnamed", f"__init__: {type(e).__name__}: {str(e)[:300]}"]]
        return [["init", ""]]  # a typed refusal of the attributes: nothing to call
    except Exception as e:  # noqa: BLE001
        return [["untyped", f"__init__: {type(e).__name__}: {str(e)[:300]}"]]
    native = _outcome(lambda: fn(*[_value(t) for t in call_toks]), key)
    results = [list(native)]
    if graph:
        @ms.jit
        def run(*args):
            return fn(*args)
        jit = _outcome(lambda: run(*[_value(t) for t in call_toks]), key)
        results.append(["graph"] + _compare(native, jit, key))
    return results


def _compare(native, jit, key):
    """['same', ''] or ['mismatch', why] (the graph outcome against PYNATIVE's)."""
    failed = ("typed", "unnamed", "untyped", "memory")
    if native[0] in failed and jit[0] in failed:
        return ["same", ""]
    if native[1] == "<callable>":
        return ["callable", ""]
    if native[0] != jit[0]:
        return ["mismatch", f"PYNATIVE {native[0]} ({str(native[1])[:150]}), GRAPH {jit[0]} "
                            f"({str(jit[1])[:150]})"]
    if _RANDOM.search(key):
        same = _shapes(native[1]) == _shapes(jit[1])
    else:
        same = _close(native[1], jit[1])
    return ["same", ""] if same else ["mismatch", f"values: {str(native[1])[:150]} vs "
                                                  f"{str(jit[1])[:150]}"]


def _shapes(s):
    if isinstance(s, list) and len(s) == 3 and isinstance(s[1], str):
        return s[:2]
    return [_shapes(x) for x in s] if isinstance(s, list) else s


def _close(a, b):
    if isinstance(a, list) and len(a) == 3 and isinstance(a[1], str) and isinstance(b, list) \
            and len(b) == 3 and isinstance(b[1], str):
        if a[:2] != b[:2]:
            return False
        x, y = np.array(a[2]), np.array(b[2])
        if x.dtype.kind in "fc" or y.dtype.kind in "fc":
            return x.shape == y.shape and bool(np.allclose(x, y, rtol=1e-4, atol=1e-5,
                                                           equal_nan=True))
        return a[2] == b[2]
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    return a == b


def _worker(cases_path, start, progress_path, results_path):
    warnings.simplefilter("ignore")
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)
    with open(progress_path, "a", encoding="utf-8") as prog, \
            open(results_path, "a", encoding="utf-8") as res:
        for i in range(start, len(cases)):
            prog.write(f"{i}\n")
            prog.flush()
            for r in _run_case(cases[i]):
                res.write(json.dumps([i] + r) + "\n")
            res.flush()


# ----- the parent: workers in turn, crashes and hangs recorded -----

def _last_line(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split()
    return int(lines[-1]) if lines else None


def _sweep(cases, folder):
    cases_path = os.path.join(folder, "cases.json")
    with open(cases_path, "w", encoding="utf-8") as f:
        json.dump(cases, f)
    progress = os.path.join(folder, "progress")
    results = os.path.join(folder, "results")
    open(progress, "w", encoding="utf-8").close()
    open(results, "w", encoding="utf-8").close()
    extra = []  # crashes and hangs
    start = 0
    import mycel  # pylint: disable=import-outside-toplevel
    env = dict(os.environ, OMP_NUM_THREADS="1",
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(mycel.__file__))))
    while start < len(cases):
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker",
                                 cases_path, str(start), progress, results], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        seen, since = None, time.monotonic()
        while proc.poll() is None:
            time.sleep(0.1)
            now = _last_line(progress)
            if now != seen:
                seen, since = now, time.monotonic()
            elif time.monotonic() - since > CALL_BOUND:
                proc.kill()
                break
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        if proc.returncode == 0:
            break
        last = _last_line(progress)
        if last is None or last < start:  # the worker died before its first case
            raise AssertionError(f"sweep worker failed: {err.decode(errors='replace')[-2000:]}")
        kind = "hang" if time.monotonic() - since > CALL_BOUND else "crash"
        extra.append([last, kind, f"exit {proc.returncode}: "
                                  f"{err.decode(errors='replace')[-300:]}"])
        start = last + 1
    with open(results, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return rows + extra


FINDINGS = ("crash", "hang", "memory", "untyped", "unnamed", "mismatch")


def test_bad_input_sweep(tmp_path):
    cases, skipped = _cases()
    rows = _sweep(cases, str(tmp_path))
    counts, findings, known = {}, [], []
    for row in rows:
        i, kind, msg = row[0], row[1], row[2]
        if kind == "graph":
            kind, msg = ("graph-" + row[2], row[3])
        key, init_args, init_kwargs, call, _ = cases[i]
        if (kind == "graph-mismatch" and key in KNOWN_GRAPH_GAPS) or \
                (kind == "unnamed" and key in KNOWN_UNNAMED):
            kind = "known-" + kind
        counts[kind] = counts.get(kind, 0) + 1
        line = f"{kind}: {key}(init={init_args or init_kwargs}, call={call}): {msg}"
        if kind.removeprefix("graph-") in FINDINGS:
            findings.append(line)
        elif kind.startswith("known-"):
            known.append(line)
    ops_called = len({c[0] for c in cases})
    print(f"\nbad-input sweep (seed {SEED}, scale {SCALE}): {ops_called} ops called in "
          f"{len(cases)} cases, {len(skipped)} skipped; outcomes {sorted(counts.items())}")
    for key, why in sorted(skipped.items()):
        print(f"  skipped {key}: {why}")
    for f in known + findings:
        print("  " + f)
    assert not findings, f"{len(findings)} findings:\n" + "\n".join(findings[:40])


if __name__ == "__main__" and len(sys.argv) == 6 and sys.argv[1] == "--worker":
    _worker(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
