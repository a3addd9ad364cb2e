// The front end: Python source -> generic (unspecialised) ANF IR (ir/anf.h).
//
// parse_function() reads a function's source (the whole file is parsed once with Python's
// `ast` and cached; the C++ code walks the ast objects) and builds graphs in on-the-fly SSA
// form (Braun et al. 2013, as MindSpore's FunctionBlock): every straight-line region is a
// graph; a variable read in a region that does not write it is read from the region's
// predecessor: with one predecessor the node is used directly (a free variable: the region's
// graph is nested in the predecessor's), at a join (after an `if`, a loop header) it is a phi
// parameter whose arguments the jumps pass. Trivial phis (one incoming value) are removed.
// Names that are not locals resolve at parse time, in Python's order: enclosing functions'
// locals (SSA), the closure cells of the function, its globals, builtins.
//
// What the front end emits (the specialiser resolves all of it):
//
//   names     global / builtin / closure-cell objects: ValueNode(host object) (wrap_host);
//             literals (None, bool, int, float, str, Ellipsis): plain Value ValueNodes
//             (negative number literals fold: `-1` is the constant -1).
//   operators a + b -> add(a, b) (sub mul truediv floordiv mod pow matmul lshift rshift
//             bitand bitor bitxor); -a neg, +a pos, ~a invert, `not a` -> not(a);
//             comparisons lt le gt ge eq ne is is_not in not_in. `x += v` -> x = add(x, v).
//   a < b < c t = lt(a, b); switch(truth(t), @rest, @ret_t)() where @rest computes
//             lt(b, c) (b evaluated once): Python's `and` of the comparisons.
//   and / or  `a or b`: switch(truth(a), @ret_a, @eval_b)(), each branch a nested graph
//             returning a (a free variable) or computing b; when b is a name, constant or lambda
//             the value form switch(truth(a), a, b) is used instead (no graphs). As a
//             condition (the test of if/while/assert/ifexp) only truth matters: every
//             operand is truth()-ed (`not a` there is not(truth(a))), the result is a bool.
//   x if c else y  switch(truth(c), @then, @else)() (value form for names / constants / lambdas).
//   x.name    getattr(x, "name")
//   x[i]      getitem(x, i); x[a:b:c] -> getitem(x, make_slice(a, b, c)) (None for missing
//             parts); x[i, 1:] -> getitem(x, make_tuple(i, make_slice(1, None, None))).
//   literals  make_tuple(...) / make_list(...) / make_dict(k0, v0, k1, v1, ...)
//   calls     f(a, b, k=v) -> CNode{f, a, b, make_kwarg("k", v)}
//             with *s or **d anywhere: unpack_call(f, part...) where each part is
//               make_tuple(a, b)        a run of plain positional arguments,
//               s                       a starred argument (a sequence, spread),
//               make_kwarg("k", v)      one keyword argument,
//               d                       a ** argument (a dict, spread),
//             in source order. f(*s, k=v, **d) -> unpack_call(f, s, make_kwarg("k", v), d).
//   lambda    ValueNode(@lambda graph); nested def: the name is bound to ValueNode(@graph).
//   fallback  expressions graph mode does not model (comprehensions, f-strings, set
//             literals, starred items in literals, ...) -> py_execute(<fallback>, inputs...):
//             <fallback> is a host object (mycel's _Fallback: `.fn` a lambda over `.names`
//             compiled from the expression's ast in the function's globals, `.source` the
//             expression text; calling it calls .fn) and the inputs are the current values
//             of the expression's free names that are locals or closure cells.
//
//   if        c = truth(test); switch(c, @then, @else)() is the block's output; each
//             branch ends with a tail call @join(phi args...) to the code after the `if`,
//             unless it returns (then no jump); when only one branch reaches the code after
//             the `if`, that code continues in the branch's graph (no join graph).
//   while     the block tail-calls @header(args) (is_loop = true, phis as parameters);
//             the header is `switch(truth(test), @body, @exit)()`; the body tail-calls the
//             header; `continue` tail-calls the header, `break` tail-calls the join after
//             the loop (only created when there are breaks; otherwise the code after the loop
//             continues in @exit). `else:` clauses run in @exit.
//   for       `for t in range(a, b, s)` (range the builtin) -> a counter loop: i = a; header
//             lt(i, b) (gt for a negative constant step; lt(mul(sub(i, b), s), 0) for a
//             step not known at parse time); the body starts with t = i; i = add(i, s).
//             Any other `for t in E`: s = E; n = len(s); i = 0; header lt(i, n); the body
//             starts with t = getitem(s, i); i = add(i, 1). Targets may be tuples.
//   return    the block's output (bare return and falling off the end: None).
//   raise     raise X(a, b) -> raise(X, a, b); raise e -> raise(e); the raise node is the
//             block's output (it never returns). assert c, m -> switch(truth(c), @ok,
//             @fail)() with @fail returning raise(<AssertionError>, m) and the code after
//             the assert continuing in @ok.
//   unpacking a, b = v -> a = getitem(v, 0), b = getitem(v, 1); a, *r, z = v ->
//             r = getitem(v, make_slice(1, -1, None)) (a slice of v: a tuple for a tuple).
//   x[i] = v  x = setitem(x, i, v) (x a name or itself a subscript target)
//   effects   an expression statement (print(x), f(x), a fallback, `a or g(b)`) is
//             appended to its block's FuncGraph::effects, in source order: effects run in
//             that order before the graph's output is evaluated. Constants (docstrings) and
//             bare names as statements are dropped. An assignment's value that nothing
//             reads by the end of the parse joins the effects where its statement stood
//             (`z = ops.assign(p, v)` with z unused still writes, as in Python).
//
// Every node carries the span (file, line, column) of the code it came from; the function's
// file is registered once with ir::register_source_file. Graph names: the function's
// __name__, blocks `name.then`, `name.else`, `name.join`, `name.while`, `name.body`,
// `name.exit`, `name.for`, ... (the printer makes them unique).
//
// Errors (mycel ValueError, with ir::span_excerpt of the offending code appended):
//   NameError for unknown names; UnboundLocalError for locals read before assignment or
//   not assigned on every path; unsupported statements (try, with, class, global, del,
//   import, yield, async, ...) name the construct and what to do instead; attribute
//   assignment (self.x = ...), decorators on nested functions, := and non-constant
//   defaults of nested functions are rejected the same way.
#pragma once

#include <pybind11/pybind11.h>

#include "ir/anf.h"

namespace mycel::frontend {

namespace py = pybind11;

// Parses a Python function (or a bound method: its __func__, so parameter 0 is self) into
// graphs of `m`, returning the function's graph. Its signature() holds the parameter names
// in the order [positional..., *args, keyword-only..., **kwargs], the defaults (the
// function's __defaults__/__kwdefaults__, converted with to_value), vararg, kwarg and
// kwonly_begin. Nested defs and lambdas become nested graphs. Needs the GIL.
ir::FuncGraph* parse_function(ir::Module& m, py::handle fn);

}  // namespace mycel::frontend
