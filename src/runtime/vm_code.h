// Internal to the executor (vm_compile.cc, vm_run.cc, vm_builtins.cc): the compiled form of
// one graph. See vm.h for the instruction set and the liveness plan.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/eager.h"
#include "runtime/vm.h"

namespace mycel::vm {

// An operand: a register of the frame (>= 0) or an entry of the constant table (~index < 0).
using Operand = int32_t;
inline bool is_const_operand(Operand o) { return o < 0; }
inline uint32_t const_index(Operand o) { return static_cast<uint32_t>(~o); }

enum class OpCode : uint8_t { Prim, Builtin, Fused, Call, TailCall, Return };

struct Instr {
  OpCode code = OpCode::Return;
  ir::Builtin builtin = ir::Builtin::MakeTuple;  // Builtin
  bool tuple_out = false;   // Prim, Fused: the result is a tuple of tensors (multi-output)
  bool infer = false;       // Prim: the node has no tensor abstract; infer at run time
  bool check = false;       // Prim: infer at run time (a dynamic shape), check against metas
  int8_t reuse = -1;        // Prim: the input whose buffer may become the output (vm.h)
  int32_t out = -1;         // the result register (-1 for TailCall and Return)
  Operand callee = 0;       // Call/TailCall: the function; Return: the returned operand
  int32_t target = -1;      // Call/TailCall: the callee's code index when it is a constant graph
  uint32_t args_begin = 0;  // operands in GraphCode::operands / moves
  uint32_t nargs = 0;
  uint32_t kill_begin = 0;  // registers whose last use is this instruction, in GraphCode::kills
  uint32_t nkill = 0;
  const OpDef* op = nullptr;     // Prim
  const Attrs* attrs = nullptr;  // Prim: points into a Prim value of the constant table
  MetaList metas;                // Prim: output dtypes and shapes
  ir::SourceSpan span;           // of the node, for error messages
  // Fused: the generated kernel (owned by GraphCode::fused)
  const FusedKernel* fused = nullptr;
};

struct GraphCode {
  std::string name;
  const ir::FuncGraph* graph = nullptr;
  uint32_t nparams = 0;
  uint32_t nregs = 0;                 // parameters included
  std::vector<ir::AbsPtr> param_abs;  // checked against the entry's arguments
  std::vector<ir::Value> consts;
  std::vector<Instr> code;
  std::vector<Operand> operands;
  std::vector<uint8_t> moves;  // per operand: its register dies here, move it
  // Per operand of a Fused instruction: its register dies here and a kernel of this graph
  // allocated it, so the kernel may store an output into it (FusedKernel::run's `donated`,
  // given when the register holds the only reference at run time).
  std::vector<uint8_t> donates;
  std::vector<int32_t> kills;
  // The kernels the Fused instructions run.
  std::vector<std::shared_ptr<const FusedKernel>> fused;
  std::vector<int32_t> entry_kills;  // parameters nothing reads
  // The entry graph's result items (Executable::run's ResultObserver): when the graph
  // returns a tuple it builds itself, the register of each item computed in this graph and
  // the item's position; is_item flags those registers. Empty for other graphs.
  std::vector<std::pair<int32_t, uint32_t>> result_items;
  std::vector<uint8_t> is_item;
};

}  // namespace mycel::vm
