// sprof/elf/cfi_rule.hpp
//
// `FrameRule`: one row of a DWARF call-frame-information table (DWARF 5 section 6.4.1), reduced
// to what an x86-64 unwinder needs and owned by sprof, so that the recorder can evaluate and cache
// rules without seeing libdw. A row says how to compute the canonical frame address (CFA) at a PC
// and how to recover the caller's return address and callee-saved registers from it.
//
// Rules are plain values; `CfiModule::find_rule` (cfi_module.hpp) produces them. Expressions are
// kept as sprof-owned ops (`CfiOp`) stored in the rule itself; most rules have none.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sprof/arch/x86_64.hpp"

namespace sprof::elf {

// DWARF register numbers of the x86-64 psABI (sprof/arch/x86_64.hpp). Column 16 is the return
// address (RIP).
using DwarfReg = arch::x86_64::DwarfReg;
inline constexpr size_t kDwarfRegCount = arch::x86_64::kDwarfRegCount;

// DWARF expression opcodes an x86-64 CFI expression uses in practice (values from DWARF 5,
// section 7.7.1). Anything else makes the rule `kUnsupported`.
enum class CfiOpcode : uint8_t {
  kDeref = 0x06,
  kConst1u = 0x08,
  kConst1s = 0x09,
  kConst2u = 0x0a,
  kConst2s = 0x0b,
  kConst4u = 0x0c,
  kConst4s = 0x0d,
  kConst8u = 0x0e,
  kConst8s = 0x0f,
  kConstu = 0x10,
  kConsts = 0x11,
  kDup = 0x12,
  kDrop = 0x13,
  kOver = 0x14,
  kSwap = 0x16,
  kAnd = 0x1a,
  kMinus = 0x1c,
  kMul = 0x1e,
  kNeg = 0x1f,
  kNot = 0x20,
  kOr = 0x21,
  kPlus = 0x22,
  kPlusUconst = 0x23,
  kShl = 0x24,
  kShr = 0x25,
  kShra = 0x26,
  kXor = 0x27,
  kEq = 0x29,
  kGe = 0x2a,
  kGt = 0x2b,
  kLe = 0x2c,
  kLt = 0x2d,
  kNe = 0x2e,
  kLit0 = 0x30,
  kLit31 = 0x4f,
  kBreg0 = 0x70,
  kBreg31 = 0x8f,
  kBregx = 0x92,
  kNop = 0x96,
  kCallFrameCfa = 0x9c,
};

// One operation of a CFI expression. `operand` is the first operand (constant, offset of bregN,
// register of bregx); `operand2` the second (offset of bregx).
struct CfiOp {
  CfiOpcode opcode = CfiOpcode::kNop;
  uint64_t operand = 0;
  uint64_t operand2 = 0;
};

// A slice of `FrameRule::ops`.
struct CfiExprRef {
  uint16_t first = 0;
  uint16_t count = 0;
};

// How to recover one register of the caller (DWARF 5 section 6.4.1 register rules).
struct RegisterRule {
  enum class Kind : uint8_t {
    kUndefined,      // not recoverable; for the return address: this frame has no caller
    kSameValue,      // the caller's value is this frame's value
    kOffset,         // saved at address CFA + offset
    kValOffset,      // the value is CFA + offset
    kRegister,       // the value is in register `reg` of this frame
    kExpression,     // saved at the address computed by `expr` (CFA pushed first)
    kValExpression,  // the value is computed by `expr` (CFA pushed first)
    kUnsupported,    // a rule sprof cannot evaluate
  };
  Kind kind = Kind::kSameValue;
  uint8_t reg = 0;
  int32_t offset = 0;
  CfiExprRef expr;
};

struct FrameRule {
  // SVMA range [pc_start, pc_end) over which this rule applies; a cache may reuse the rule for
  // any PC inside it. It may be narrower than the CFI row (it starts at the PC looked up when
  // the row's own start is not reliably known).
  uint64_t pc_start = 0;
  uint64_t pc_end = 0;

  enum class CfaKind : uint8_t {
    kRegOffset,   // CFA = register `cfa_reg` + `cfa_offset`
    kExpression,  // CFA = value of `cfa_expr`
    kUnsupported,
  };
  CfaKind cfa_kind = CfaKind::kUnsupported;
  uint8_t cfa_reg = 0;
  int64_t cfa_offset = 0;
  CfiExprRef cfa_expr;

  // The FDE is a signal trampoline ('S' augmentation): its caller is an interrupted PC, not a
  // return address.
  bool signal_frame = false;
  // No FDE covered the PC; the rule was synthesised (PLT entry: CFA = rsp + 8).
  bool synthesized = false;

  // Rules for the registers an unwinder needs: return address, rsp and the callee-saved
  // registers of the psABI (rbx, rbp, r12-r15). Other registers are call-clobbered.
  static constexpr std::array<DwarfReg, 8> kTrackedRegs = arch::x86_64::kFrameRegs;
  std::array<RegisterRule, kTrackedRegs.size()> regs{};

  // Storage for every expression of this rule.
  std::vector<CfiOp> ops;

  // Index of `r` in `kTrackedRegs`, or nullopt when it is not tracked.
  static constexpr std::optional<size_t> tracked_index(DwarfReg r) {
    for (size_t i = 0; i < kTrackedRegs.size(); ++i) {
      if (kTrackedRegs[i] == r) return i;
    }
    return std::nullopt;
  }
  RegisterRule& rule(DwarfReg r) { return regs[*tracked_index(r)]; }
  const RegisterRule& rule(DwarfReg r) const { return regs[*tracked_index(r)]; }
  const RegisterRule& return_address() const { return rule(DwarfReg::kRip); }
};

}  // namespace sprof::elf
