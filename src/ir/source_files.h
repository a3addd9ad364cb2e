// Which registered source files (ir/anf.h, register_source_file) are mycel's own library
// code: the front end marks the files of functions of the `mycel` package as it parses them.
// Inlining gives a node copied from library code the user's call site (ir/clone.cc,
// compiler/passes/inline.cc), so an error found after inlining (a gradient reading a value an
// in-place write overwrote, the K transform) names the user's file:line, the outermost user
// frame of the inlined chain, not a line inside ops.assign_add.
#pragma once

#include <cstdint>

#include "ir/anf.h"

namespace mycel::ir {

void mark_library_file(int32_t file);
// Whether s is a line of a library file (false for an unknown span).
bool is_library_span(const SourceSpan& s);
// The span a node of `callee_span`'s code gets when it is inlined at a call with
// `call_span`: the call's, when the node's is the library's and the call's is not.
inline SourceSpan inlined_span(const SourceSpan& node_span, const SourceSpan& call_span) {
  return call_span.valid() && is_library_span(node_span) && !is_library_span(call_span) ? call_span
                                                                                        : node_span;
}

}  // namespace mycel::ir
