"""Graph mode's methods of Python's dicts, lists and tuples, and its run-time ``in``.

In a compiled graph a dict, list or tuple is a value whose keys and length are known at
compile time, but whose items may be tensors known only at run time. ``d.get(k)``,
``t.fromkeys(keys, v)``, ``xs.index(v)`` and the like on such values are these functions,
parsed as graph code with the value as their first argument: the specialiser's attribute
lookup (src/compiler/specialize_builtins.cc) binds ``<type>_<method>`` of this module, as it
binds a Tensor method. A method missing here raises AttributeError naming the type and
method. Methods that change their object in place (``dict.update``, ``list.sort``) are not
here: graph values do not change (``list.append`` and friends used as statements are
rewritten by the parser, common/graph_list.py).

``contains(x, seq)`` is ``x in seq`` when x is known only at run time: true when an item
equals x (tensors: every element equal), as Python's ``in`` asks of each item.
"""
import itertools
from collections.abc import Callable as _Callable
from collections.abc import Iterator as _Iterator

from mycel.ops.primitive import constexpr


def loop_iterable(seq):
    # what a for loop in graph code indexes (src/frontend/parse_stmt.cc): a dict's keys; the
    # items of an iterator a host function made at compile time (itertools.product(m, n) on
    # constants), which a loop consumes once, as Python's would
    if isinstance(seq, dict):
        return dict_keys(seq)
    if isinstance(seq, _Iterator):
        return _iterator_items(seq)
    return seq


# The most items an iterator made at compile time may give a graph loop (itertools.count()
# gives no end): the loop unrolls over them.
_MAX_ITERATOR_ITEMS = 100000


@constexpr
def _iterator_items(it):
    items = tuple(itertools.islice(it, _MAX_ITERATOR_ITEMS + 1))
    if len(items) > _MAX_ITERATOR_ITEMS:
        raise ValueError(f"graph mode iterates a {type(it).__name__} at compile time, but it "
                         f"gives more than {_MAX_ITERATOR_ITEMS} items (is it endless?)")
    return items


def select_item(seq, index):
    """``seq[index]`` with an index known only at run time (a 0-d integer tensor, or an int
    when the items are of several kinds, as the cells of a CellList: MindSpore's
    switch_layer): the item is chosen by run-time conditions, so the result is a value (or a
    function, called through its run-time value) of the items' joined type; an index out of
    range raises IndexError when it runs."""
    n = len(seq)
    if index < -n or index >= n:
        raise IndexError(f"a run-time index is out of range for a sequence of length {n}")
    if index < 0:
        index = index + n
    if isinstance(seq[0], _Callable):
        # cells, functions, primitives (constants that a run-time choice would not join): a
        # function that binds its arguments to each of them and calls the chosen closure
        return lambda *args: _choose(tuple(_bound(seq[k], args) for k in range(n)), index)()
    return _choose(seq, index)


def _choose(seq, index):
    out = seq[0]
    for k in range(1, len(seq)):
        if index == k:
            out = seq[k]
    return out


def _bound(f, args):
    return lambda: f(*args)


def dict_get(d, key, default=None):
    if key in d:
        return d[key]
    return default


def dict_keys(d):
    return tuple(d)  # tuple() of a dict: its keys (the specialiser's unpack)


def dict_values(d):
    return tuple(map(lambda k: d[k], tuple(d)))


def dict_items(d):
    return tuple(map(lambda k: (k, d[k]), tuple(d)))


def dict_fromkeys(d, keys, value=None):  # pylint: disable=unused-argument
    # a class method: the dict it is read from does not matter, as in Python
    r = {}
    for k in tuple(keys):
        r[k] = value
    return r


def dict_copy(d):
    return d


def list_index(xs, value, start=0, stop=None):
    i = _index(xs, value, start, len(xs) if stop is None else stop)
    if i < 0:
        raise ValueError("list.index(x): x not in list")
    return i


def tuple_index(xs, value, start=0, stop=None):
    i = _index(xs, value, start, len(xs) if stop is None else stop)
    if i < 0:
        raise ValueError("tuple.index(x): x not in tuple")
    return i


def list_count(xs, value):
    return _count(xs, value)


def tuple_count(xs, value):
    return _count(xs, value)


# The items of a sequence may differ in type (a tensor beside numbers): map() calls the test
# on each item in turn (unrolled at compile time); the loops then walk the booleans.
def _hits(xs, value, start, stop):
    return tuple(map(lambda p: start <= p[0] < stop and _eq(p[1], value), enumerate(xs)))


def _index(xs, value, start, stop):
    hits = _hits(xs, value, start, stop)
    r = -1
    for j in range(len(hits) - 1, -1, -1):
        if hits[j]:
            r = j
    return r


def _count(xs, value):
    n = 0
    for h in _hits(xs, value, 0, len(xs)):
        if h:
            n = n + 1
    return n


def list_copy(xs):
    return xs


def _eq(a, b):
    # Python's == between items; a tensor on either side compares every element
    if isinstance(a, tuple) and isinstance(b, tuple) or isinstance(a, list) and isinstance(b, list):
        return a == b
    if isinstance(a, str) or isinstance(b, str) or a is None or b is None:
        return isinstance(a, str) and isinstance(b, str) and a == b or a is None and b is None
    r = a == b
    if isinstance(r, bool):
        return r
    return bool(r.all())


def contains(x, seq):
    found = False
    for h in _hits(tuple(seq), x, 0, len(seq)):
        found = found or h
    return found


class PercentFormat:
    """``fmt % value`` of a value known only at run time: Python formats it then (the JIT
    fallback). Its repr is the format, which compile-time messages (a raise) show."""

    def __init__(self, fmt):
        self.fmt = fmt

    def __call__(self, value):
        return self.fmt % value

    def __repr__(self):
        return self.fmt
