// elf/src/cfi_frame_translate.cpp
//
// libdw hands CFI rows back as DWARF expressions (libdw.h, dwarf_frame_cfa and
// dwarf_frame_register), even for the simple rules. Its encodings (elfutils 0.188):
//   CFA reg+offset        one op: DW_OP_bregx(reg, offset)
//   CFA expression        the expression's ops
//   undefined             nops 0, ops == ops_mem (also a register the CFI never mentions)
//   same value            nops 0, ops == nullptr
//   offset(N)             DW_OP_call_frame_cfa [DW_OP_plus_uconst N]
//   val_offset(N)         the same, then DW_OP_stack_value
//   register(R)           DW_OP_regx(R)
//   expression(E)         DW_OP_call_frame_cfa, E          (the CFA is pushed first, DWARF 6.4.2.3)
//   val_expression(E)     DW_OP_call_frame_cfa, E, DW_OP_stack_value
// Offsets are signed values carried in the unsigned `number` field.
#include "cfi_frame_translate.hpp"

#include <dwarf.h>

#include <limits>
#include <span>

namespace sprof::elf::detail {
namespace {

bool fits_int32(int64_t v) {
  return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
}

// The sprof opcode for a libdw atom, or nullopt for one sprof does not evaluate.
std::optional<CfiOpcode> translate_opcode(uint8_t atom) {
  if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) return static_cast<CfiOpcode>(atom);
  if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) return static_cast<CfiOpcode>(atom);
  switch (atom) {
    case DW_OP_deref:
    case DW_OP_const1u:
    case DW_OP_const1s:
    case DW_OP_const2u:
    case DW_OP_const2s:
    case DW_OP_const4u:
    case DW_OP_const4s:
    case DW_OP_const8u:
    case DW_OP_const8s:
    case DW_OP_constu:
    case DW_OP_consts:
    case DW_OP_dup:
    case DW_OP_drop:
    case DW_OP_over:
    case DW_OP_swap:
    case DW_OP_and:
    case DW_OP_minus:
    case DW_OP_mul:
    case DW_OP_neg:
    case DW_OP_not:
    case DW_OP_or:
    case DW_OP_plus:
    case DW_OP_plus_uconst:
    case DW_OP_shl:
    case DW_OP_shr:
    case DW_OP_shra:
    case DW_OP_xor:
    case DW_OP_eq:
    case DW_OP_ge:
    case DW_OP_gt:
    case DW_OP_le:
    case DW_OP_lt:
    case DW_OP_ne:
    case DW_OP_bregx:
    case DW_OP_nop:
    case DW_OP_call_frame_cfa: return static_cast<CfiOpcode>(atom);
    default: return std::nullopt;
  }
}

// Appends `ops` to `rule.ops`; false when an op is not supported or the storage overflows.
bool append_expression(std::span<const Dwarf_Op> ops, FrameRule& rule, CfiExprRef& ref) {
  if (rule.ops.size() + ops.size() > std::numeric_limits<uint16_t>::max()) return false;
  ref.first = static_cast<uint16_t>(rule.ops.size());
  ref.count = static_cast<uint16_t>(ops.size());
  for (const Dwarf_Op& op : ops) {
    auto opcode = translate_opcode(op.atom);
    if (!opcode) return false;
    rule.ops.push_back(CfiOp{*opcode, op.number, op.number2});
  }
  return true;
}

bool is_breg(uint8_t atom) {
  return (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) || atom == DW_OP_bregx;
}

void translate_cfa(Dwarf_Frame* frame, FrameRule& rule) {
  Dwarf_Op* ops = nullptr;
  size_t nops = 0;
  rule.cfa_kind = FrameRule::CfaKind::kUnsupported;
  if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops == 0 || ops == nullptr) return;
  if (nops == 1 && is_breg(ops[0].atom)) {
    const bool bregx = ops[0].atom == DW_OP_bregx;
    const uint64_t reg = bregx ? ops[0].number : uint64_t{ops[0].atom} - DW_OP_breg0;
    if (reg >= kDwarfRegCount) return;
    rule.cfa_kind = FrameRule::CfaKind::kRegOffset;
    rule.cfa_reg = static_cast<uint8_t>(reg);
    rule.cfa_offset = static_cast<int64_t>(bregx ? ops[0].number2 : ops[0].number);
    return;
  }
  if (append_expression({ops, nops}, rule, rule.cfa_expr)) {
    rule.cfa_kind = FrameRule::CfaKind::kExpression;
  }
}

// Matches libdw's encodings of offset(N) and val_offset(N) (see the file comment).
bool match_cfa_offset(std::span<const Dwarf_Op> ops, RegisterRule& out) {
  if (ops.empty() || ops[0].atom != DW_OP_call_frame_cfa) return false;
  size_t i = 1;
  int64_t offset = 0;
  if (i < ops.size() && ops[i].atom == DW_OP_plus_uconst) {
    offset = static_cast<int64_t>(ops[i].number);
    ++i;
  }
  bool value = false;
  if (i < ops.size() && ops[i].atom == DW_OP_stack_value) {
    value = true;
    ++i;
  }
  if (i != ops.size() || !fits_int32(offset)) return false;
  out.kind = value ? RegisterRule::Kind::kValOffset : RegisterRule::Kind::kOffset;
  out.offset = static_cast<int32_t>(offset);
  return true;
}

// libdw answers "undefined" both for DW_CFA_undefined and for a register the CFI never mentions
// (0.188 applies no same-value default for x86-64). For callee-saved registers the psABI
// (section 3.2.1) says the callee preserves them, so "never mentioned" means "same value"; the
// explicit form is not emitted for them by GCC, LLVM or glibc's hand-written CFI.
bool is_callee_saved(int regno) {
  switch (static_cast<DwarfReg>(regno)) {
    case DwarfReg::kRbx:
    case DwarfReg::kRbp:
    case DwarfReg::kR12:
    case DwarfReg::kR13:
    case DwarfReg::kR14:
    case DwarfReg::kR15: return true;
    default: return false;
  }
}

RegisterRule translate_register(Dwarf_Frame* frame, int regno, FrameRule& rule) {
  Dwarf_Op ops_mem[3];
  Dwarf_Op* ops = nullptr;
  size_t nops = 0;
  RegisterRule out;
  if (dwarf_frame_register(frame, regno, ops_mem, &ops, &nops) != 0) {
    out.kind = RegisterRule::Kind::kUnsupported;
    return out;
  }
  if (nops == 0) {
    const bool same_value = ops == nullptr || is_callee_saved(regno);
    out.kind = same_value ? RegisterRule::Kind::kSameValue : RegisterRule::Kind::kUndefined;
    return out;
  }
  std::span<const Dwarf_Op> span(ops, nops);
  if (match_cfa_offset(span, out)) return out;
  if (nops == 1 && span[0].atom == DW_OP_regx && span[0].number < kDwarfRegCount) {
    out.kind = RegisterRule::Kind::kRegister;
    out.reg = static_cast<uint8_t>(span[0].number);
    return out;
  }
  const bool value = span.back().atom == DW_OP_stack_value;
  if (value) span = span.first(span.size() - 1);
  if (!append_expression(span, rule, out.expr)) {
    out.kind = RegisterRule::Kind::kUnsupported;
    return out;
  }
  out.kind = value ? RegisterRule::Kind::kValExpression : RegisterRule::Kind::kExpression;
  return out;
}

}  // namespace

std::optional<FrameRule> translate_frame(Dwarf_Frame* frame) {
  Dwarf_Addr start = 0;
  Dwarf_Addr end = 0;
  bool signal_frame = false;
  const int ra_regno = dwarf_frame_info(frame, &start, &end, &signal_frame);
  if (ra_regno < 0) return std::nullopt;

  FrameRule rule;
  rule.pc_start = start;
  rule.pc_end = end;
  rule.signal_frame = signal_frame;
  translate_cfa(frame, rule);
  for (size_t i = 0; i < FrameRule::kTrackedRegs.size(); ++i) {
    const DwarfReg reg = FrameRule::kTrackedRegs[i];
    // The CIE names the return-address column; on x86-64 it is always 16 (RIP).
    const int regno = reg == DwarfReg::kRip ? ra_regno : static_cast<int>(reg);
    rule.regs[i] = translate_register(frame, regno, rule);
  }
  return rule;
}

}  // namespace sprof::elf::detail
