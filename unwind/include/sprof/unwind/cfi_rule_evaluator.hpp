// sprof/unwind/cfi_rule_evaluator.hpp
//
// Applies one CFI row (`elf::FrameRule`) to a frame's registers and the sampled stack: computes
// the CFA and recovers the caller's return address, stack pointer and callee-saved registers
// (DWARF 5 section 6.4). Pure: no file access, no caches; all memory comes from `StackMemory`.
#pragma once

#include "sprof/elf/cfi_rule.hpp"
#include "sprof/unwind/frame_registers.hpp"

namespace sprof::unwind {

// Fills `caller` from `callee` (the frame at PC `callee.pc()`) using `rule`. On kOk, `caller` has
// the caller's PC (the return address, column 16), its rsp (the CFA unless a rule says otherwise)
// and every callee-saved register that could be recovered; call-clobbered registers are invalid.
StepStatus apply_frame_rule(const elf::FrameRule& rule, const FrameRegisters& callee,
                            const StackMemory& stack, FrameRegisters& caller);

// Evaluates a CFI expression (DWARF 5 section 2.5) over `regs` and `stack`. `cfa`, when given,
// is pushed first (register rules) and is what DW_OP_call_frame_cfa yields.
StepStatus evaluate_cfi_expression(const elf::FrameRule& rule, elf::CfiExprRef expr,
                                   const FrameRegisters& regs, const StackMemory& stack,
                                   const uint64_t* cfa, uint64_t& result);

}  // namespace sprof::unwind
