// Specialisation: type-and-shape inference by abstract interpretation, emitting a typed copy
// of the program for one call signature (MindSpore's AbstractSpecialize + ProgramSpecializer,
// done in one walk).
//
// Input: the generic IR of the front end (a Module of graphs whose names are resolved to
// host objects) and the abstracts of the entry's arguments. Output: a new graph in another
// Module, in which every node has an abstract and
//   - host objects are gone: functions became graphs, primitives prims, attributes of
//     cells constants or weights, Python builtins (len, isinstance, range...) folded;
//   - polymorphic operators became op-table prims (tensors; Python scalars join as weak
//     scalars, and Casts are inserted where the op promotes its inputs) or scalar builtins;
//   - call-time attributes and keyword arguments are folded into prim attributes; graph
//     calls are positional, defaults and *args/**kwargs bound;
//   - conditions known at compile time chose their branch; graphs are specialised per
//     context (the graph, its enclosing context, the argument abstracts), so a function
//     called with two signatures becomes two graphs; so does a closure passed down to a
//     function and called there with two signatures, while the frame that made it is live
//     (see "Function values passed down" in specialize_impl.h);
//   - loops whose condition depends on tensors became recursive graphs whose
//     loop-carried scalars were broadened (the first iteration is peeled); a loop with a
//     constant condition is unrolled, up to kMaxUnroll iterations, then broadened too,
//     unless its carried types have not settled (a growing tuple), it carries a sequence
//     of mixed types (cells, functions), or its broadened body fails to compile because it
//     needs a carried scalar as a constant (the broadening is a trial, Specializer::
//     unroll_on): such a loop unrolls on, up to kMaxUnrolledLoop iterations (a
//     SequentialCell of 100 layers, a tuple built item by item, matrix_solve's elimination);
//     an unrolled loop's next iteration is specialised after the last returns, not inside it
//     ("Unrolled loops" in specialize_impl.h), so compile-time depth follows loop nesting;
//   - recursion through a run-time condition reaches a fixed point on the return abstract;
//   - Parameters (trainable weights) read from cells became parameters of the entry graph,
//     after the arguments, used by inner graphs as free variables.
//   - effects keep program order (MindSpore's auto-monad, done by data edges): the walk
//     evaluates each region's statements in source order, and each context carries a
//     state, the last effect so far (an update prim, print, or a call of a graph with
//     effects). A read of a Parameter after an effect is depend(w, state); an update's
//     written inputs and print's first argument are ordered after the state too, and the
//     node becomes the new state. A graph called where the caller has a state (a branch of
//     an `if`, a loop body or header, the code after an `if`, a function or method) gets
//     one more parameter, the token (an int 0 that depends on the state, never read), so
//     its reads and effects run after the caller's; after a call of a graph with effects,
//     the call is the caller's state. Loops carry the token like any value. What does not
//     depend on an update came before it in the source; order_updates runs it first.
// User errors (bad shapes, unsupported calls) name the user's file:line and source line.
// Expressions that only the host can run and whose inputs are not constants become
// py_execute nodes (JIT fallback), with a warning naming file:line.
#pragma once

#include <string>
#include <vector>

#include "compiler/host.h"

namespace mycel::ir {

inline constexpr int kMaxUnroll = 64;
// A constant-trip loop that cannot be broadened (see above) unrolls at most this many
// iterations; past it, compile time would grow without bound: a clear error instead.
inline constexpr int kMaxUnrolledLoop = 256;

struct Specialized {
  FuncGraph* entry = nullptr;         // params: one per argument, then one per weight
  std::vector<Value> weights;         // the host Parameter objects, in parameter order
  AbsPtr output;                      // the abstract of the result
  std::vector<std::string> warnings;  // JIT fallback notes ("file:line: ...")
};

// Specialises `fn` (a Graph, a Closure over one, or a host callable such as a Cell) of
// module `src` for arguments with abstracts `args` (constant abstracts for non-tensor
// arguments); the result lives in `out`.
Specialized specialize(Module& src, Module& out, Host& host, const Value& fn,
                       const std::vector<AbsPtr>& args);

}  // namespace mycel::ir
