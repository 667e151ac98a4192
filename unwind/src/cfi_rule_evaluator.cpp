// unwind/src/cfi_rule_evaluator.cpp
#include "sprof/unwind/cfi_rule_evaluator.hpp"

#include <array>

namespace sprof::unwind {
namespace {

using elf::CfiOp;
using elf::CfiOpcode;
using elf::FrameRule;
using elf::RegisterRule;

// CFI expressions in practice use two or three stack slots (ld's PLT rule uses four).
constexpr size_t kMaxExpressionStack = 16;

class ExpressionStack {
 public:
  bool push(uint64_t v) {
    if (size_ == slots_.size()) return false;
    slots_[size_++] = v;
    return true;
  }
  bool pop(uint64_t& v) {
    if (size_ == 0) return false;
    v = slots_[--size_];
    return true;
  }
  bool peek(size_t depth, uint64_t& v) const {
    if (depth >= size_) return false;
    v = slots_[size_ - 1 - depth];
    return true;
  }
  size_t size() const { return size_; }

 private:
  std::array<uint64_t, kMaxExpressionStack> slots_{};
  size_t size_ = 0;
};

// Binary operators of DWARF 5 section 2.5.1.4; comparisons are signed.
bool apply_binary(CfiOpcode op, uint64_t a, uint64_t b, uint64_t& out) {
  const auto sa = static_cast<int64_t>(a);
  const auto sb = static_cast<int64_t>(b);
  switch (op) {
    case CfiOpcode::kAnd: out = a & b; return true;
    case CfiOpcode::kOr: out = a | b; return true;
    case CfiOpcode::kXor: out = a ^ b; return true;
    case CfiOpcode::kPlus: out = a + b; return true;
    case CfiOpcode::kMinus: out = a - b; return true;
    case CfiOpcode::kMul: out = a * b; return true;
    case CfiOpcode::kShl: out = b >= 64 ? 0 : a << b; return true;
    case CfiOpcode::kShr: out = b >= 64 ? 0 : a >> b; return true;
    case CfiOpcode::kShra: out = static_cast<uint64_t>(sa >> (b >= 64 ? 63 : b)); return true;
    case CfiOpcode::kEq: out = sa == sb; return true;
    case CfiOpcode::kNe: out = sa != sb; return true;
    case CfiOpcode::kGe: out = sa >= sb; return true;
    case CfiOpcode::kGt: out = sa > sb; return true;
    case CfiOpcode::kLe: out = sa <= sb; return true;
    case CfiOpcode::kLt: out = sa < sb; return true;
    default: return false;
  }
}

// Pushes register `reg` + `offset`; fails when the register is unknown in this frame.
bool push_register(const FrameRegisters& regs, uint64_t reg, uint64_t offset,
                   ExpressionStack& stack) {
  if (reg >= arch::x86_64::kDwarfRegCount || !regs.has(static_cast<unsigned>(reg))) return false;
  return stack.push(regs.get(static_cast<unsigned>(reg)) + offset);
}

// Executes one op; StepStatus::kBadRule for anything malformed or unsupported.
StepStatus execute(const CfiOp& op, const FrameRegisters& regs, const StackMemory& memory,
                   const uint64_t* cfa, ExpressionStack& stack) {
  const auto code = static_cast<uint8_t>(op.opcode);
  const auto ok_if = [](bool b) { return b ? StepStatus::kOk : StepStatus::kBadRule; };
  if (code >= static_cast<uint8_t>(CfiOpcode::kLit0) &&
      code <= static_cast<uint8_t>(CfiOpcode::kLit31)) {
    return ok_if(stack.push(code - static_cast<uint8_t>(CfiOpcode::kLit0)));
  }
  if (code >= static_cast<uint8_t>(CfiOpcode::kBreg0) &&
      code <= static_cast<uint8_t>(CfiOpcode::kBreg31)) {
    return ok_if(
        push_register(regs, code - static_cast<uint8_t>(CfiOpcode::kBreg0), op.operand, stack));
  }
  uint64_t a = 0;
  uint64_t b = 0;
  switch (op.opcode) {
    case CfiOpcode::kNop: return StepStatus::kOk;
    // libdw has already decoded every constant form into `operand`, sign-extended if signed.
    case CfiOpcode::kConst1u:
    case CfiOpcode::kConst1s:
    case CfiOpcode::kConst2u:
    case CfiOpcode::kConst2s:
    case CfiOpcode::kConst4u:
    case CfiOpcode::kConst4s:
    case CfiOpcode::kConst8u:
    case CfiOpcode::kConst8s:
    case CfiOpcode::kConstu:
    case CfiOpcode::kConsts: return ok_if(stack.push(op.operand));
    case CfiOpcode::kBregx: return ok_if(push_register(regs, op.operand, op.operand2, stack));
    case CfiOpcode::kCallFrameCfa: return ok_if(cfa != nullptr && stack.push(*cfa));
    case CfiOpcode::kDup: return ok_if(stack.peek(0, a) && stack.push(a));
    case CfiOpcode::kOver: return ok_if(stack.peek(1, a) && stack.push(a));
    case CfiOpcode::kDrop: return ok_if(stack.pop(a));
    case CfiOpcode::kSwap:
      return ok_if(stack.pop(a) && stack.pop(b) && stack.push(a) && stack.push(b));
    case CfiOpcode::kNeg: return ok_if(stack.pop(a) && stack.push(~a + 1));
    case CfiOpcode::kNot: return ok_if(stack.pop(a) && stack.push(~a));
    case CfiOpcode::kPlusUconst: return ok_if(stack.pop(a) && stack.push(a + op.operand));
    case CfiOpcode::kDeref: {
      if (!stack.pop(a)) return StepStatus::kBadRule;
      const StepStatus status = read_stack(memory, a, b);
      if (status != StepStatus::kOk) return status;
      return ok_if(stack.push(b));
    }
    default: {
      // Binary operator: b is the top of the stack, a the entry below it.
      uint64_t result = 0;
      if (!stack.pop(b) || !stack.pop(a) || !apply_binary(op.opcode, a, b, result)) {
        return StepStatus::kBadRule;
      }
      return ok_if(stack.push(result));
    }
  }
}

StepStatus compute_cfa(const FrameRule& rule, const FrameRegisters& callee,
                       const StackMemory& stack, uint64_t& cfa) {
  switch (rule.cfa_kind) {
    case FrameRule::CfaKind::kRegOffset:
      if (!callee.has(unsigned{rule.cfa_reg})) return StepStatus::kBadRule;
      cfa = callee.get(unsigned{rule.cfa_reg}) + static_cast<uint64_t>(rule.cfa_offset);
      return StepStatus::kOk;
    case FrameRule::CfaKind::kExpression:
      return evaluate_cfi_expression(rule, rule.cfa_expr, callee, stack, nullptr, cfa);
    case FrameRule::CfaKind::kUnsupported: break;
  }
  return StepStatus::kBadRule;
}

// Recovers one register. `known` is false (and kOk returned) when the register is simply not
// recoverable (undefined); errors are reserved for reads and rules that fail.
StepStatus recover_register(const FrameRule& rule, const RegisterRule& reg_rule, DwarfReg reg,
                            const FrameRegisters& callee, const StackMemory& stack, uint64_t cfa,
                            uint64_t& value, bool& known) {
  known = false;
  StepStatus status = StepStatus::kOk;
  uint64_t address = 0;
  switch (reg_rule.kind) {
    case RegisterRule::Kind::kUndefined: return StepStatus::kOk;
    case RegisterRule::Kind::kSameValue:
      if (!callee.has(reg)) return StepStatus::kOk;
      value = callee.get(reg);
      break;
    case RegisterRule::Kind::kOffset:
      status = read_stack(stack, cfa + static_cast<uint64_t>(int64_t{reg_rule.offset}), value);
      break;
    case RegisterRule::Kind::kValOffset:
      value = cfa + static_cast<uint64_t>(int64_t{reg_rule.offset});
      break;
    case RegisterRule::Kind::kRegister:
      if (!callee.has(unsigned{reg_rule.reg})) return StepStatus::kOk;
      value = callee.get(unsigned{reg_rule.reg});
      break;
    case RegisterRule::Kind::kExpression:
      status = evaluate_cfi_expression(rule, reg_rule.expr, callee, stack, &cfa, address);
      if (status == StepStatus::kOk) status = read_stack(stack, address, value);
      break;
    case RegisterRule::Kind::kValExpression:
      status = evaluate_cfi_expression(rule, reg_rule.expr, callee, stack, &cfa, value);
      break;
    case RegisterRule::Kind::kUnsupported: return StepStatus::kBadRule;
  }
  known = status == StepStatus::kOk;
  return status;
}

}  // namespace

StepStatus evaluate_cfi_expression(const FrameRule& rule, elf::CfiExprRef expr,
                                   const FrameRegisters& regs, const StackMemory& stack,
                                   const uint64_t* cfa, uint64_t& result) {
  if (size_t{expr.first} + expr.count > rule.ops.size() || expr.count == 0) {
    return StepStatus::kBadRule;
  }
  ExpressionStack values;
  // libdw already starts register expressions with DW_OP_call_frame_cfa (which pushes the CFA,
  // as DWARF 6.4.2.3 requires), so nothing is pushed implicitly here.
  for (size_t i = expr.first; i < size_t{expr.first} + expr.count; ++i) {
    const StepStatus status = execute(rule.ops[i], regs, stack, cfa, values);
    if (status != StepStatus::kOk) return status;
  }
  return values.pop(result) ? StepStatus::kOk : StepStatus::kBadRule;
}

StepStatus apply_frame_rule(const FrameRule& rule, const FrameRegisters& callee,
                            const StackMemory& stack, FrameRegisters& caller) {
  uint64_t cfa = 0;
  StepStatus status = compute_cfa(rule, callee, stack, cfa);
  if (status != StepStatus::kOk) return status;

  caller = FrameRegisters{};
  // The caller's stack pointer is the CFA by definition (DWARF 6.4.1), unless a rule says
  // otherwise; the psABI's initial rule for rsp is val_offset(0), which agrees.
  caller.set(DwarfReg::kRsp, cfa);
  for (size_t i = 0; i < FrameRule::kTrackedRegs.size(); ++i) {
    const DwarfReg reg = FrameRule::kTrackedRegs[i];
    const RegisterRule::Kind kind = rule.regs[i].kind;
    if (reg == DwarfReg::kRsp &&
        (kind == RegisterRule::Kind::kSameValue || kind == RegisterRule::Kind::kUndefined)) {
      continue;  // keep the CFA
    }
    uint64_t value = 0;
    bool known = false;
    status = recover_register(rule, rule.regs[i], reg, callee, stack, cfa, value, known);
    if (status != StepStatus::kOk) {
      // An unreadable callee-saved register only matters if a caller needs it later; the
      // return address always matters.
      if (reg == DwarfReg::kRip) return status;
      if (reg != DwarfReg::kRsp) caller.clear(reg);
      continue;
    }
    if (known) {
      caller.set(reg, value);
    } else if (reg == DwarfReg::kRip) {
      return kind == RegisterRule::Kind::kUndefined ? StepStatus::kNoCaller : StepStatus::kBadRule;
    } else if (reg != DwarfReg::kRsp) {
      caller.clear(reg);
    }
  }
  return StepStatus::kOk;
}

}  // namespace sprof::unwind
