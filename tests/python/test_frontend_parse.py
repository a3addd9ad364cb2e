"""The front end (src/frontend/parse*.cc): Python source -> generic ANF IR.

Checks the printed IR (_mycel._parse_ir) and the parse as data (_mycel._parse_info): graph
structure (switches, loop headers, phis, free variables), spans, signatures, JIT fallback
nodes, and the errors for unknown names and unsupported statements.
"""
import inspect
import math
import re

import pytest

from mycel import _mycel as C

HERE = __file__
K = 3


def ir(fn):
    return C._parse_ir(fn)


def info(fn):
    return C._parse_info(fn)


def graphs(fn):
    return {g["name"]: g for g in info(fn)["graphs"]}


def line_of(fn, text):
    """The absolute line of the first source line of fn containing text."""
    lines, start = inspect.getsourcelines(fn)
    for k, l in enumerate(lines):
        if text in l:
            return start + k
    raise AssertionError(text)


def count(text, what):
    return len(re.findall(what, text))


# ---------------------------------------------------------------- straight line, exact text

def add_mul(x, y):
    z = x + y * 2
    return z - 1.5


def test_exact_straight_line():
    assert ir(add_mul) == (
        "graph @add_mul(%x, %y) {\n"
        "  %1 = mul(%y, 2)\n"
        "  %z = add(%x, %1)\n"
        "  %2 = sub(%z, 1.5)\n"
        "  return %2\n"
        "}\n")


def branch(x):
    if x > 0:
        y = x
    else:
        y = -x
    return y


def test_exact_if_join_phi():
    assert ir(branch) == (
        "graph @branch(%x) {\n"
        "  %1 = gt(%x, 0)\n"
        "  %2 = truth(%1)\n"
        "  %3 = switch(%2, @branch.then, @branch.else)\n"
        "  %4 = %3()\n"
        "  return %4\n"
        "}\n\n"
        "graph @branch.then() {\n"
        "  %5 = @branch.join(%x)\n"
        "  return %5\n"
        "}\n\n"
        "graph @branch.else() {\n"
        "  %y = neg(%x)\n"
        "  %6 = @branch.join(%y)\n"
        "  return %6\n"
        "}\n\n"
        "graph @branch.join(%y.1) {\n"
        "  return %y.1\n"
        "}\n")


def count_down(n):
    s = 0
    while n > 0:
        s = s + n
        n = n - 1
    return s


def test_exact_while_loop():
    assert ir(count_down) == (
        "graph @count_down(%n) {\n"
        "  %1 = @count_down.while(%n, 0)\n"
        "  return %1\n"
        "}\n\n"
        "graph @count_down.while(%n.1, %s) {\n"
        "  %2 = gt(%n.1, 0)\n"
        "  %3 = truth(%2)\n"
        "  %4 = switch(%3, @count_down.body, @count_down.exit)\n"
        "  %5 = %4()\n"
        "  return %5\n"
        "}\n\n"
        "graph @count_down.body() {\n"
        "  %n.2 = sub(%n.1, 1)\n"
        "  %s.1 = add(%s, %n.1)\n"
        "  %6 = @count_down.while(%n.2, %s.1)\n"
        "  return %6\n"
        "}\n\n"
        "graph @count_down.exit() {\n"
        "  return %s\n"
        "}\n")
    g = graphs(count_down)
    assert g["count_down.while"]["is_loop"] and not g["count_down.body"]["is_loop"]


def subscripts(x, i):
    y = x[1:3, ..., i]
    a, *r, z = x
    x[0] = 5
    return y, r, x.shape, {"k": i}, [a, z]


def test_exact_subscripts_unpacking_literals():
    assert ir(subscripts) == (
        "graph @subscripts(%x, %i) {\n"
        "  %1 = make_slice(1, 3, None)\n"
        "  %2 = make_tuple(%1, ..., %i)\n"
        "  %y = getitem(%x, %2)\n"
        "  %3 = make_slice(1, -1, None)\n"
        "  %r = getitem(%x, %3)\n"
        "  %x.1 = setitem(%x, 0, 5)\n"
        "  %4 = getattr(%x.1, \"shape\")\n"
        "  %5 = make_dict(\"k\", %i)\n"
        "  %a = getitem(%x, 0)\n"
        "  %z = getitem(%x, -1)\n"
        "  %6 = make_list(%a, %z)\n"
        "  %7 = make_tuple(%y, %r, %4, %5, %6)\n"
        "  return %7\n"
        "}\n")


# ---------------------------------------------------------------- control flow structure

def for_range(n, xs):
    t = 0
    for k in range(1, n):
        if k == 3:
            continue
        if k == 7:
            break
        t = t + k
    for v in xs:
        t = t + v
    for j in range(10, 0, -2):
        t = t - j
    return t


def test_for_loops():
    text = ir(for_range)
    g = graphs(for_range)
    loops = [name for name, d in g.items() if d["is_loop"]]
    assert len(loops) == 3
    # counter loops over range: lt for the default step, gt for a negative constant step
    assert count(text, r"= lt\(%i\d+, %n\)") == 1
    assert count(text, r"= gt\(%i\d+, 0\)") == 1
    # the loop over xs: over loop_iterable(xs) (a dict's keys, else xs itself), len once
    # before the loop, getitem in the body
    m = re.search(r"%(\d+) = <<function loop_iterable at 0x[0-9a-f]+>>\(%xs\)", text)
    assert m, text
    it = m.group(1)
    assert count(text, rf"len\(%{it}\)") == 1 and count(text, rf"getitem\(%{it}, %i\d+\)") == 1
    # break: a join after the first loop; continue: a jump back to the header
    assert "for_range.after" in g and len(g["for_range.after"]["params"]) == 0
    assert count(text, r"@for_range\.for\(") >= 4   # entry, continue, back edge, ...
    # phis: counter and t in each loop header; n and xs are loop-invariant (no phi)
    for name in loops:
        pnames = [p[0] for p in g[name]["params"]]
        assert len(pnames) == 2 and "t" in pnames, pnames


def var_step(n, s):
    t = 0
    for i in range(0, n, s):
        t += i
    return t


def test_for_range_unknown_step():
    text = ir(var_step)
    assert re.search(r"%(\d+) = sub\(%i\d+, %n\)\n  %(\d+) = mul\(%\1, %s\)\n  %\d+ = lt\(%\2, 0\)",
                     text), text


def loop_return(xs):
    for x in xs:
        if x > 2:
            return x
    return None


def both_return(x):
    if x:
        return 1
    else:
        return 2


def test_returns_end_blocks():
    g = graphs(loop_return)
    assert g["loop_return.then"]["nodes"] == []          # returns x: no jump
    assert any(n[0] == "@loop_return.for" for n in g["loop_return.else"]["nodes"])
    text = ir(both_return)
    assert "join" not in text and count(text, "switch") == 1


def while_else(n):
    i = 0
    while i < n:
        i = i + 1
        if i == 5:
            break
    else:
        i = -1
    return i


def test_while_else_break_join():
    g = graphs(while_else)
    after = g["while_else.after"]
    assert [p[0] for p in after["params"]] == ["i"]     # from the break and from the else
    assert any(n[0] == "@while_else.after" for n in g["while_else.exit"]["nodes"])


def invariant(x, n):
    y = x * 2
    i = 0
    while i < n:
        i = i + 1
    return y + i


def test_trivial_phis_removed():
    g = graphs(invariant)
    assert [p[0] for p in g["invariant.while"]["params"]] == ["i"]
    assert "y" in g["invariant.exit"]["free_vars"]      # y read through the loop: the entry's
    assert "n" in g["invariant.while"]["free_vars"]


# ---------------------------------------------------------------- nested functions, closures

def outer(x):
    c = x * 2

    def inner(y, s=1):
        return y + c * s

    g = lambda t: t - c  # noqa: E731
    return inner(x) + g(x)


def fact(n):
    def rec(k):
        if k <= 1:
            return 1
        return k * rec(k - 1)
    return rec(n)


def test_nested_defs_and_lambdas():
    g = graphs(outer)
    assert g["inner"]["free_vars"] == ["c"] and g["outer.lambda"]["free_vars"] == ["c"]
    assert [p[0] for p in g["inner"]["params"]] == ["y", "s"]
    text = ir(outer)
    assert "@inner(%x)" in text and "@outer.lambda(%x)" in text
    text = ir(fact)
    assert "@rec(%n)" in text and re.search(r"= @rec\(%\d+\)", text)   # recursion by name


def make_closure():
    scale = 4.0

    def f(x):
        return x * scale + K
    return f


def test_closure_cells_and_globals_are_host_values():
    text = ir(make_closure())
    assert "mul(%x, <4.0>)" in text and "<3>" in text     # host objects print as <repr>
    assert "<<built-in function len>>" in ir(lambda s: len(s))


# ---------------------------------------------------------------- expressions

def logic(a, b, c):
    u = a and b
    v = a or b.f(c)
    w = 0 < a < b
    z = a if a is None else b
    q = a + 1 if c else b * 2
    return u, v, w, z, q, not c


def test_short_circuit_and_compare_chains():
    text = ir(logic)
    assert "%u = switch(%1, %b, %a)" in text               # a and b: value form
    assert re.search(r"switch\(%\d+, @logic\.or_true, @logic\.or\)", text)
    assert re.search(r"switch\(%\d+, @logic\.cmp, @logic\.cmp_false\)", text)
    assert re.search(r"switch\(%\d+, @logic\.ifexp_true, @logic\.ifexp_false\)", text)
    assert "is(%a, None)" in text and "not(%c)" in text
    g = graphs(logic)
    assert g["logic.or_true"]["free_vars"] == ["a"]
    assert [n[0] for n in g["logic.or"]["nodes"]] == ["getattr", "<call>"]
    assert [n[0] for n in g["logic.cmp"]["nodes"]] == ["lt"]   # b compared again, not recomputed


def calls(f, args, kw):
    f(1, 2, k=3)
    return f(1, *args, 2, k=4, **kw)


def test_calls_keywords_and_unpack_call():
    text = ir(calls)
    assert re.search(r"%(\d+) = make_tuple\(1\)\n  %(\d+) = make_tuple\(2\)\n"
                     r"  %(\d+) = make_kwarg\(\"k\", 4\)\n"
                     r"  %\d+ = unpack_call\(%f, %\1, %args, %\2, %\3, %kw\)", text), text
    assert 'effects @calls: %f(1, 2, make_kwarg("k", 3))' in text


def effects(x):
    """A docstring is dropped."""
    print("a", x)
    y = x + 1
    x
    if y > 1:
        print(y)
    return y


def test_effects_kept_in_order():
    text = ir(effects)
    assert 'effects @effects: <<built-in function print>>("a", %x)' in text
    assert "effects @effects.then: <<built-in function print>>(%y)" in text
    g = graphs(effects)
    assert g["effects"]["effects"] == 1 and g["effects.then"]["effects"] == 1


def comprehension(xs, n):
    ys = {v * n for v in xs if v > K}
    return ys, f"{n}!", {n, 1}, math.pi


def test_fallback_nodes():
    text = ir(comprehension)
    assert count(text, "py_execute") == 3
    m = re.search(r"py_execute\(<fallback\(\{v \* n for v in xs if v > K\}\)>, %(\w+), %(\w+)\)",
                  text)
    assert m and sorted(m.groups()) == ["n", "xs"], text
    assert "py_execute(<fallback(f'{n}!')>, %n)" in text
    assert 'getattr(<<module \'math\'' in text


def list_comprehension(xs, n):
    return [v * n for v in xs if v > K], tuple(v + w for v in xs for w in (1, 2))


def test_list_comprehensions_are_nested_functions():
    # [elt for t in it if c] is the nested function Python makes of it, called with the first
    # iterable (evaluated in the enclosing scope); no fallback
    text = ir(list_comprehension)
    assert count(text, "py_execute") == 0, text
    assert "@list_comprehension.listcomp(%xs)" in text, text
    assert "__mycel_comp_out" in text


def test_fallback_object_semantics():
    # The fallback object: .fn compiled from the expression's ast in the function's globals
    # (K comes from this module), over the free local names.
    import ast
    import sys
    ir(comprehension)
    H = sys.modules["mycel._frontend_helper"]
    node = ast.parse("[v * n for v in xs if v > K]", mode="eval").body
    f = H.make_fallback(node, ["n", "xs"], globals(), HERE)
    assert f(10, [1, 5, 7]) == [50, 70] and f.names == ("n", "xs")
    assert repr(f) == "fallback([v * n for v in xs if v > K])"


def assert_raise(x):
    assert x > 0, "negative"
    if x > 10:
        raise ValueError("too big", x)
    return x


def test_assert_and_raise():
    text = ir(assert_raise)
    assert 'raise(<<class \'AssertionError\'>>, "negative")' in text
    assert 'raise(<<class \'ValueError\'>>, "too big", %x)' in text
    assert re.search(r"switch\(%\d+, @assert_raise\.assert_ok, @assert_raise\.assert_fail\)", text)


def aug(x, i):
    x += 1
    x[i] += 2
    return x


def test_augmented_assignment():
    text = ir(aug)
    assert re.search(r"%x\.1 = add\(%x, 1\)", text)
    assert re.search(r"= getitem\(%x\.1, %i\)\n  %(\d+) = add\(%\d+, 2\)\n"
                     r"  %x\.2 = setitem\(%x\.1, %i, %\1\)", text), text


# ---------------------------------------------------------------- signature, methods, spans

def sig(a, b=2, *rest, c, d=(1, "x"), **kw):
    return a


class Net:
    def construct(self, x):
        h = self.dense(x)
        return h * 2


def test_signature():
    names, defaults, vararg, kwarg, kwonly = info(sig)["signature"]
    assert names == ["a", "b", "rest", "c", "d", "kw"]
    assert defaults == [None, "2", None, None, '(1, "x")', None]
    assert (vararg, kwarg, kwonly) == (2, 5, 3)


def test_bound_method_and_spans():
    net = Net()
    text = ir(net.construct)
    assert text.startswith("graph @construct(%self, %x)")
    assert 'getattr(%self, "dense")' in text
    g = info(net.construct)["graphs"][0]
    line = line_of(Net.construct, "h = self.dense(x)")
    spans = {(n[0], n[1]): (n[2], n[3]) for n in g["nodes"]}
    assert spans[("getattr", "")] == (line, 13)            # absolute line and column (1-based)
    assert spans[("<call>", "h")] == (line, 13)
    assert spans[("mul", "")] == (line + 1, 16)
    assert g["line"] == line_of(Net.construct, "def construct")
    assert g["params"][1] == ("x", g["line"], 25)


def test_every_node_has_a_span():
    for fn in (for_range, logic, calls, outer, assert_raise, comprehension, list_comprehension,
               while_else):
        for g in info(fn)["graphs"]:
            assert g["line"] > 0
            for n in g["nodes"]:
                assert n[2] > 0 and n[3] > 0, (fn.__name__, g["name"], n)


# ---------------------------------------------------------------- errors

def unknown_name(x):
    y = x + 1
    return foo_not_defined(y)  # noqa: F821


def maybe_unbound(x):
    if x:
        y = 1
    return y


def uses_try(x):
    try:
        x = x + 1
    except ValueError:
        pass
    return x


def uses_with(x):
    with open("f"):
        pass
    return x


def uses_global(x):
    global K
    return x


def nested_decorated(x):
    @staticmethod
    def f(y):
        return y
    return f(x)


@pytest.mark.parametrize("fn,msg,marker", [
    (unknown_name, "NameError: name 'foo_not_defined' is not defined",
     "return foo_not_defined(y)"),
    (maybe_unbound, "UnboundLocalError: local variable 'y'", "return y"),
    (uses_try, "'try' is not supported in graph mode; move it out of construct or use "
               "PYNATIVE mode", "try:"),
    (uses_with, "'with' is not supported in graph mode", "with open(\"f\"):"),
    (uses_global, "'global' is not supported in graph mode", "global K"),
    (nested_decorated, "decorators on nested functions are not supported", "def f(y):"),
])
def test_errors_name_file_line_and_source(fn, msg, marker):
    with pytest.raises(ValueError) as e:
        ir(fn)
    text = str(e.value)
    assert text.startswith(msg), text
    line = line_of(fn, marker)
    assert f'File "{HERE}", line {line}\n    {marker}' in text, text


def test_no_source():
    ns = {}
    exec("def f(x):\n    return x\n", ns)
    with pytest.raises(ValueError, match="needs the source code of 'f'"):
        ir(ns["f"])
    with pytest.raises(TypeError, match="Python functions"):
        ir(len)
