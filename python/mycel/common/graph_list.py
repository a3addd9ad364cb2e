"""Graph mode's in-place list methods used as statements.

In a compiled graph a list is a value, so the parser rewrites a statement ``out.append(v)``
on a local name into ``out = graph_list.append(out, v)`` (src/frontend/parse_stmt.cc),
MindSpore's treatment of ``list.append`` and friends in GRAPH mode. On a list each function
returns the list the method would leave; on anything else it calls the method itself (the
object decides, as in Python) and returns the object.
"""


def append(seq, value):
    if isinstance(seq, list):
        return seq + [value]
    seq.append(value)
    return seq


def extend(seq, values):
    if isinstance(seq, list):
        return seq + list(values)
    seq.extend(values)
    return seq


def insert(seq, index, value):
    if isinstance(seq, list):
        return seq[:index] + [value] + seq[index:]
    seq.insert(index, value)
    return seq


def pop(seq, index=-1):
    if isinstance(seq, list):
        if index < 0:
            index = len(seq) + index
        if index < 0 or index >= len(seq):
            raise IndexError("pop index out of range")
        return seq[:index] + seq[index + 1:]
    seq.pop(index)
    return seq


def pop_item(seq, index=-1):
    """(the list without its item at index, the item): ``y = xs.pop(i)`` on a local list
    name (parse_stmt.cc rebinds xs to the first); on anything else the object's own pop."""
    if isinstance(seq, list):
        if not isinstance(index, int):
            raise TypeError("list.pop() index must be an integer")
        if index < 0:
            index = len(seq) + index
        if index < 0 or index >= len(seq):
            raise IndexError("pop index out of range")
        return seq[:index] + seq[index + 1:], seq[index]
    item = seq.pop(index)
    return seq, item


def reverse(seq):
    if isinstance(seq, list):
        return seq[::-1]
    seq.reverse()
    return seq


def clear(seq):
    if isinstance(seq, list):
        return []
    seq.clear()
    return seq
