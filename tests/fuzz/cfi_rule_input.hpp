// tests/fuzz/cfi_rule_input.hpp
//
// The input of the CFI-rule fuzz target: a fixed head holding one CFI row (`elf::FrameRule`, as
// CfiModule produces them: any register numbers, offsets, expression slices and opcodes, but
// only the rule kinds that exist), the callee's registers and the stack's start address, then
// the stack bytes. The seed writer builds inputs with it too.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "sprof/elf/cfi_rule.hpp"

namespace sprof::fuzz {

inline constexpr size_t kMaxCfiOps = 16;

struct CfiRuleInputHead {
  struct Register {
    uint8_t kind = 0;  // RegisterRule::Kind, modulo the number of kinds
    uint8_t reg = 0;
    uint16_t expr_first = 0;
    uint16_t expr_count = 0;
    uint16_t unused = 0;
    int32_t offset = 0;
  };
  struct Op {
    uint64_t opcode = 0;  // low byte: CfiOpcode, any value
    uint64_t operand = 0;
    uint64_t operand2 = 0;
  };
  uint8_t cfa_kind = 0;  // FrameRule::CfaKind, modulo the number of kinds
  uint8_t cfa_reg = 0;
  uint8_t signal_frame = 0;
  uint8_t op_count = 0;  // modulo kMaxCfiOps + 1
  uint16_t cfa_expr_first = 0;
  uint16_t cfa_expr_count = 0;
  int64_t cfa_offset = 0;
  Register regs[elf::FrameRule::kTrackedRegs.size()];
  Op ops[kMaxCfiOps];
  uint64_t valid_regs = 0;  // bit i: DWARF register i holds `values[i]`
  uint64_t values[elf::kDwarfRegCount] = {};
  uint64_t stack_start = 0;

  elf::FrameRule rule() const {
    constexpr unsigned kRegisterKinds = 8;  // kUndefined .. kUnsupported
    constexpr unsigned kCfaKinds = 3;       // kRegOffset .. kUnsupported
    elf::FrameRule r;
    r.cfa_kind = static_cast<elf::FrameRule::CfaKind>(cfa_kind % kCfaKinds);
    r.cfa_reg = cfa_reg;
    r.cfa_offset = cfa_offset;
    r.cfa_expr = {cfa_expr_first, cfa_expr_count};
    r.signal_frame = (signal_frame & 1) != 0;
    for (size_t i = 0; i < r.regs.size(); ++i) {
      r.regs[i].kind = static_cast<elf::RegisterRule::Kind>(regs[i].kind % kRegisterKinds);
      r.regs[i].reg = regs[i].reg;
      r.regs[i].offset = regs[i].offset;
      r.regs[i].expr = {regs[i].expr_first, regs[i].expr_count};
    }
    for (size_t i = 0; i < op_count % (kMaxCfiOps + 1); ++i) {
      r.ops.push_back(
          {static_cast<elf::CfiOpcode>(ops[i].opcode & 0xff), ops[i].operand, ops[i].operand2});
    }
    return r;
  }
};

// Splits `bytes` into the head and the stack copy; false when they are shorter than the head.
inline bool split_cfi_rule_input(std::span<const uint8_t> bytes, CfiRuleInputHead& head,
                                 std::span<const uint8_t>& stack) {
  if (bytes.size() < sizeof head) return false;
  std::memcpy(&head, bytes.data(), sizeof head);
  stack = bytes.subspan(sizeof head);
  return true;
}

// The inverse, for the seed writer.
inline std::vector<uint8_t> join_cfi_rule_input(const CfiRuleInputHead& head,
                                                const std::vector<uint8_t>& stack) {
  std::vector<uint8_t> out(sizeof head);
  std::memcpy(out.data(), &head, sizeof head);
  out.insert(out.end(), stack.begin(), stack.end());
  return out;
}

}  // namespace sprof::fuzz
