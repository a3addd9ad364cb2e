"""MindSpore's MultitypeFuncGraph and HyperMap (``ops.composite`` / ``ops``), in Python over
what graph mode already compiles.

- ``MultitypeFuncGraph(name)``: a function with one implementation per argument types,
  registered with ``@f.register("Tensor", "Number", ...)``. A call picks the registration
  whose type names match the arguments (an exact name beats "Number" for an int, a float or
  a bool; among equals, the first registered); none matching is a TypeError naming the
  types. The choice is made from the arguments' types: in GRAPH mode at compile time (the
  types are known there), so the chosen function compiles as if called directly.
- ``HyperMap(ops=None, reverse=False)``: applies a function to the elements of tuples and
  lists, nested: ``hyper_map(f, (a, b), (c, d))`` is ``(f(a, c), f(b, d))``. Arguments that
  are all tuples (all lists) are mapped element by element, recursively; arguments that are
  none are passed to the function. A MultitypeFuncGraph with a registration matching the
  arguments as they are takes them without mapping (MindSpore's rule), so one can take a
  tuple whole. Mixing tuples, lists and other values at one level, or sequences of different
  lengths, is a TypeError / ValueError. ``reverse`` maps the elements last to first (the
  results keep their positions).
"""
from mycel import _mycel as _C
from mycel.ops.primitive import constexpr

# MindSpore's type names -> the Python types they match (Number: any number).
_EXACT = ("Tensor", "Tuple", "List", "Dict", "String", "Bool", "Int", "Float", "None",
          "Function", "Slice")


def _type_name(x):
    """MindSpore's type name of x (graph mode folds the isinstance tests)."""
    if isinstance(x, _C.Tensor):
        return "Tensor"
    if isinstance(x, bool):
        return "Bool"
    if isinstance(x, int):
        return "Int"
    if isinstance(x, float):
        return "Float"
    if isinstance(x, str):
        return "String"
    if isinstance(x, tuple):
        return "Tuple"
    if isinstance(x, list):
        return "List"
    if isinstance(x, dict):
        return "Dict"
    if x is None:
        return "None"
    if isinstance(x, slice):
        return "Slice"
    return "Function"


# (loops, not generators: graph code compiles these)
def _names(args):
    out = ()
    for a in args:
        out = out + (_type_name(a),)
    return out


def _lengths(args):
    out = ()
    for a in args:
        out = out + (len(a) if isinstance(a, (tuple, list)) else -1,)
    return out


def _cost(want, got):
    """0: the same name; 1: "Number" for a number; None: no match."""
    if want == got:
        return 0
    if want == "Number" and got in ("Bool", "Int", "Float"):
        return 1
    if want in ("Sequence",) and got in ("Tuple", "List"):
        return 1
    return None


@constexpr
def _pick(mtfg, names, must):
    """The registered function for argument type names `names` (None when none matches and
    not `must`)."""
    best, best_cost = None, None
    for types, fn in mtfg.entries:
        if len(types) != len(names):
            continue
        costs = [_cost(w, g) for w, g in zip(types, names)]  # (constexpr: runs in Python)
        if any(c is None for c in costs):
            continue
        if best_cost is None or sum(costs) < best_cost:
            best, best_cost = fn, sum(costs)
    if best is None and must:
        raise TypeError(f"For MultitypeFuncGraph '{mtfg.name}', no registration matches the "
                        f"argument types {list(names)}; registered: "
                        f"{[list(t) for t, _ in mtfg.entries]}.")
    return best


class MultitypeFuncGraph:
    """A function with one implementation per argument types (module docstring)."""

    __mycel_graph_call__ = True  # graph code compiles __call__ (frontend/py_host.cc)

    def __init__(self, name, read_value=False, doc_url=""):
        self.name = name
        self.read_value = read_value
        self.entries = []

    def register(self, *type_names):
        """Decorator: registers the function for arguments of these MindSpore type names
        ("Tensor", "Number", "Int", "Float", "Bool", "String", "Tuple", "List", "Dict",
        "None", "Function", "Slice")."""
        for t in type_names:
            if not isinstance(t, str) or (t not in _EXACT and t not in ("Number", "Sequence")):
                raise TypeError(f"For MultitypeFuncGraph '{self.name}'.register, each type must "
                                f"be one of {list(_EXACT) + ['Number']}, but got {t!r}.")

        def deco(fn):
            self.entries.append((tuple(type_names), fn))
            return fn
        return deco

    def __call__(self, *args):
        fn = _pick(self, _names(args), True)
        return fn(*args)


@constexpr
def _check_level(names, lengths):
    kinds = set(names)
    seq = kinds & {"Tuple", "List"}
    if seq and len(kinds) > 1:
        raise TypeError(f"For 'HyperMap', the types of arguments in HyperMap must be "
                        f"consistent, but got {list(names)}.")
    if seq and len(set(lengths)) > 1:
        what = "tuples" if "Tuple" in seq else "lists"
        raise ValueError(f"For 'HyperMap', the {what} in HyperMap should have the same length, "
                         f"but got lengths {list(lengths)}.")
    return ("Tuple" if "Tuple" in seq else "List") if seq else ""


def _hyper(fn, reverse, args):
    if isinstance(fn, MultitypeFuncGraph):
        direct = _pick(fn, _names(args), False)
        if direct is not None:
            return direct(*args)
    kind = _check_level(_names(args), _lengths(args))
    if not kind:
        return fn(*args)
    n = len(args[0])
    out = ()
    if reverse:  # evaluated last to first, the results kept in their positions
        for i in range(n - 1, -1, -1):
            out = (_hyper(fn, reverse, _column(args, i)),) + out
    else:
        for i in range(n):
            out = out + (_hyper(fn, reverse, _column(args, i)),)
    return out if kind == "Tuple" else list(out)


def _column(args, i):
    out = ()
    for a in args:
        out = out + (a[i],)
    return out


class HyperMap:
    """hyper_map(f, *seqs) (or HyperMap(f)(*seqs)): f over the elements of nested tuples and
    lists (module docstring)."""

    __mycel_graph_call__ = True

    def __init__(self, ops=None, reverse=False):
        self.ops = ops
        self.reverse = reverse

    def __call__(self, *args):
        if self.ops is None:
            if not args:
                raise TypeError("For 'HyperMap', give the function and the sequences.")
            return _hyper(args[0], self.reverse, args[1:])
        return _hyper(self.ops, self.reverse, args)


class Map:
    """Map(f)(*seqs) or Map()(f, *seqs): f over the elements of tuples or lists, one level
    (HyperMap maps nested ones)."""

    __mycel_graph_call__ = True

    def __init__(self, ops=None, reverse=False):
        self.ops = ops
        self.reverse = reverse

    def __call__(self, *args):
        fn, seqs = (args[0], args[1:]) if self.ops is None else (self.ops, args)
        kind = _check_level(_names(seqs), _lengths(seqs))
        if not kind:
            raise TypeError("For 'Map', the arguments must be tuples or lists.")
        n = len(seqs[0])
        out = ()
        if self.reverse:
            for i in range(n - 1, -1, -1):
                out = (fn(*_column(seqs, i)),) + out
        else:
            for i in range(n):
                out = out + (fn(*_column(seqs, i)),)
        return out if kind == "Tuple" else list(out)
