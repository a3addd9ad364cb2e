"""ops.einsum: Einstein summation, composed from Transpose, Reshape, StridedSlice, ReduceSum,
BroadcastTo and BatchMatMul, so both modes and gradients come from those primitives.

The equation is planned at compile time (a @constexpr on the operands' shapes):
  1. parse "ab,bc->ac" (spaces allowed; "..." stands for the dims no letter names, which
     broadcast across operands; without "->" the output is the letters used once, sorted,
     after the ellipsis dims);
  2. per operand: take the diagonal of repeated letters ("ii->i"), sum the letters no other
     operand and not the output uses;
  3. contract the operands left to right, each pair with one BatchMatMul over
     [batch, kept, contracted] layouts (letters both share and still need are the batch);
  4. transpose the result into the output's order.
"""
from mycel.ops.function._util import prim, tensor_arg
from mycel.ops.primitive import constexpr

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _err(msg):
    return ValueError(f"For 'einsum', {msg}")


def _parse_term(term, ndim, n_ell, i):
    """The labels of one operand: its letters, with '...' expanded to ellipsis labels
    (ints, right-aligned across operands: the last ellipsis dim is n_ell - 1)."""
    if term.count("...") > 1 or term.replace("...", "").count(".") > 0:
        raise _err(f"operand {i}'s subscripts {term!r} may hold one '...' and no other '.'.")
    for c in term.replace("...", ""):
        if c not in _LETTERS:
            raise _err(f"subscripts must be letters, but operand {i}'s {term!r} holds {c!r}.")
    if "..." not in term:
        if len(term) != ndim:
            raise _err(f"operand {i} has {ndim} dims but its subscripts {term!r} name "
                       f"{len(term)}.")
        return list(term)
    head, tail = term.split("...")
    e = ndim - len(head) - len(tail)
    if e < 0:
        raise _err(f"operand {i} has {ndim} dims, fewer than its subscripts {term!r} name.")
    return list(head) + list(range(n_ell - e, n_ell)) + list(tail)


def _parse(equation, shapes):
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise _err(f"the equation {equation!r} names {len(terms)} operands, but "
                   f"{len(shapes)} were given.")
    n_ell = 0
    for t, s in zip(terms, shapes):
        if "..." in t:
            n_ell = max(n_ell, len(s) - len(t.replace("...", "")))
    labels = [_parse_term(t, len(s), n_ell, i) for i, (t, s) in enumerate(zip(terms, shapes))]
    if arrow:
        # Without "..." in the output, the ellipsis dims are summed.
        out = _parse_term(rhs, len(rhs.replace("...", "")) + (n_ell if "..." in rhs else 0),
                          n_ell, "out")
        seen = set()
        for c in out:
            if c in seen:
                raise _err(f"the output subscripts {rhs!r} repeat {c!r}.")
            seen.add(c)
        used = {c for ls in labels for c in ls}
        for c in out:
            if c not in used:
                raise _err(f"the output subscript {c!r} is not in any operand.")
    else:
        counts = {}
        for ls in labels:
            for c in ls:
                counts[c] = counts.get(c, 0) + 1
        out = list(range(n_ell)) + sorted(c for c, k in counts.items()
                                          if isinstance(c, str) and k == 1)
    # The size of every label, broadcasting size 1 against n.
    size = {}
    for i, (ls, s) in enumerate(zip(labels, shapes)):
        for c, n in zip(ls, s):
            m = size.get(c, n)
            if m != n and m != 1 and n != 1:
                name = "..." if isinstance(c, int) else repr(c)
                raise _err(f"the dimension {name} has size {m} in one operand and {n} in "
                           f"operand {i} (shapes {[tuple(x) for x in shapes]}).")
            size[c] = max(m, n) if m != n else m
    return labels, out, size


def _diag_steps(ls, shape):
    """Steps that take the diagonal of each repeated label; returns (steps, labels, shape)."""
    steps = []
    ls, shape = list(ls), list(shape)
    while len(set(ls)) < len(ls):
        c = next(c for c in ls if ls.count(c) > 1)
        a = ls.index(c)
        b = ls.index(c, a + 1)
        n = shape[a]
        if shape[b] != n:
            raise _err(f"the repeated subscript {c!r} has sizes {n} and {shape[b]}.")
        rest = [d for d in range(len(ls)) if d not in (a, b)]
        perm = tuple(rest + [a, b])
        new_shape = [shape[d] for d in rest]
        # [..., n, n] -> [..., n * n] -> every (n + 1)-th element -> [..., n]
        steps.append(("diag", perm, tuple(new_shape + [n * n]), len(rest), n))
        ls = [ls[d] for d in rest] + [c]
        shape = new_shape + [n]
    return steps, ls, shape


def _plan(equation, shapes):
    if not isinstance(equation, str):
        raise TypeError(f"For 'einsum', the 'equation' must be a str, but got "
                        f"{type(equation).__name__}.")
    labels, out, size = _parse(equation, shapes)
    prep = []
    cur = []
    for i, (ls, s) in enumerate(zip(labels, shapes)):
        steps, ls, shape = _diag_steps(ls, s)
        others = {c for j, o in enumerate(labels) if j != i for c in o} | set(out)
        red = tuple(d for d, c in enumerate(ls) if c not in others)
        ls = [c for d, c in enumerate(ls) if d not in red]
        shape = [n for d, n in enumerate(shape) if d not in red]
        prep.append((tuple(steps), red))
        cur.append((ls, shape))
    # Pairwise contractions, left to right.
    pairs = []
    acc_l, acc_s = cur[0]
    for j in range(1, len(cur)):
        bl, bs = cur[j]
        later = set(out) | {c for k in range(j + 1, len(cur)) for c in cur[k][0]}
        shared = [c for c in acc_l if c in bl]
        batch = [c for c in shared if c in later]
        contr = [c for c in shared if c not in later]
        a_only = [c for c in acc_l if c not in bl]
        b_only = [c for c in bl if c not in acc_l]
        pa = tuple(acc_l.index(c) for c in batch + a_only + contr)
        pb = tuple(bl.index(c) for c in batch + contr + b_only)
        # Both sides broadcast to the full sizes of the labels they share.
        ta = tuple(size[c] if c in bl else acc_s[acc_l.index(c)] for c in batch + a_only + contr)
        tb = tuple(size[c] if c in acc_l else bs[bl.index(c)] for c in batch + contr + b_only)
        nb, k = _prod(ta[:len(batch)]), _prod(ta[len(batch) + len(a_only):])
        m, n = _prod(ta[len(batch):len(batch) + len(a_only)]), _prod(tb[len(batch) + len(contr):])
        res_l = batch + a_only + b_only
        res_s = list(ta[:len(batch) + len(a_only)]) + list(tb[len(batch) + len(contr):])
        pairs.append((pa, ta, (nb, m, k), pb, tb, (nb, k, n), tuple(res_s)))
        acc_l, acc_s = res_l, res_s
    # The output: sum what is left that the output does not name, then order.
    red = tuple(d for d, c in enumerate(acc_l) if c not in out)
    acc_l = [c for c in acc_l if c in out]
    final_shape = tuple(size[c] for c in out)
    perm = tuple(acc_l.index(c) for c in out)
    return tuple(prep), tuple(pairs), red, perm, final_shape


def _prod(v):
    p = 1
    for x in v:
        p *= x
    return p


@constexpr
def _einsum_plan(equation, shapes):
    return _plan(equation, tuple(tuple(s) for s in shapes))


def _diag(x, step):
    _, perm, flat, lead, n = step
    y = prim("Reshape")(prim("Transpose")(x, perm), flat)
    mask = (1 << lead) - 1
    begin = (0,) * lead + (0,)
    end = (0,) * lead + (n * n,)
    strides = (1,) * lead + (n + 1,)
    return prim("StridedSlice", begin_mask=mask, end_mask=mask)(y, begin, end, strides)


def _prepare(x, steps, red):
    for step in steps:
        x = _diag(x, step)
    if red:
        x = prim("ReduceSum")(x, red)
    return x


def _contract(a, b, pair):
    pa, ta, sa, pb, tb, sb, res = pair
    a = prim("Reshape")(prim("BroadcastTo", shape=ta)(prim("Transpose")(a, pa)), sa)
    b = prim("Reshape")(prim("BroadcastTo", shape=tb)(prim("Transpose")(b, pb)), sb)
    return prim("Reshape")(prim("BatchMatMul")(a, b), res)


def einsum(equation, *operands):
    """Einstein summation over the operands as the equation says, e.g. "ij,jk->ik" (matrix
    product), "bij,bjk->bik", "ii->i" (diagonal), "ii" (trace), "...ij->...ji"; without
    "->" the output is the subscripts used once, in alphabetical order."""
    xs = operands[0] if len(operands) == 1 and isinstance(operands[0], (tuple, list)) \
        else operands
    shapes = ()
    for x in xs:
        tensor_arg(x, "einsum", "each operand")
        shapes = shapes + (x.shape,)
    prep, pairs, red, perm, final_shape = _einsum_plan(equation, shapes)
    y = _prepare(xs[0], prep[0][0], prep[0][1])
    for j in range(1, len(xs)):
        y = _contract(y, _prepare(xs[j], prep[j][0], prep[j][1]), pairs[j - 1])
    if red:
        y = prim("ReduceSum")(y, red)
    y = prim("Transpose")(y, perm)
    return prim("BroadcastTo", shape=final_shape)(y)


__all__ = ["einsum"]
