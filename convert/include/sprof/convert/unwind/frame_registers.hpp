// sprof/convert/unwind/frame_registers.hpp
//
// The registers of one frame during a walk, indexed by DWARF register number (the numbering CFI
// rules use, x86-64 psABI figure 3.36), with a validity bit each. Column 16 holds the frame's PC.
// A register is valid when it was sampled or recovered; call-clobbered registers become invalid
// in callers.
#pragma once

#include <array>
#include <cstdint>

#include "sprof/elf/cfi_rule.hpp"
#include "sprof/convert/unwind/unwinder.hpp"

namespace sprof::convert::unwind {

using elf::DwarfReg;

struct FrameRegisters {
  std::array<uint64_t, elf::kDwarfRegCount> value{};
  uint32_t valid = 0;

  bool has(DwarfReg r) const { return (valid >> static_cast<unsigned>(r)) & 1; }
  bool has(unsigned r) const { return r < elf::kDwarfRegCount && ((valid >> r) & 1); }
  uint64_t get(DwarfReg r) const { return value[static_cast<size_t>(r)]; }
  uint64_t get(unsigned r) const { return value[r]; }
  void set(DwarfReg r, uint64_t v) {
    value[static_cast<size_t>(r)] = v;
    valid |= uint32_t{1} << static_cast<unsigned>(r);
  }
  void clear(DwarfReg r) { valid &= ~(uint32_t{1} << static_cast<unsigned>(r)); }
  uint64_t pc() const { return get(DwarfReg::kRip); }
  uint64_t sp() const { return get(DwarfReg::kRsp); }

  // Maps perf's x86 register numbers (<asm/perf_regs.h>) to DWARF numbers; segment registers
  // and flags have no DWARF column an unwinder needs and are dropped.
  static FrameRegisters from_user_regs(const UserRegs& regs) {
    struct Pair {
      X86Reg perf;
      DwarfReg dwarf;
    };
    static constexpr Pair kMap[] = {
        {X86Reg::kAx, DwarfReg::kRax},  {X86Reg::kBx, DwarfReg::kRbx},
        {X86Reg::kCx, DwarfReg::kRcx},  {X86Reg::kDx, DwarfReg::kRdx},
        {X86Reg::kSi, DwarfReg::kRsi},  {X86Reg::kDi, DwarfReg::kRdi},
        {X86Reg::kBp, DwarfReg::kRbp},  {X86Reg::kSp, DwarfReg::kRsp},
        {X86Reg::kIp, DwarfReg::kRip},  {X86Reg::kR8, DwarfReg::kR8},
        {X86Reg::kR9, DwarfReg::kR9},   {X86Reg::kR10, DwarfReg::kR10},
        {X86Reg::kR11, DwarfReg::kR11}, {X86Reg::kR12, DwarfReg::kR12},
        {X86Reg::kR13, DwarfReg::kR13}, {X86Reg::kR14, DwarfReg::kR14},
        {X86Reg::kR15, DwarfReg::kR15},
    };
    FrameRegisters out;
    for (const Pair& p : kMap) {
      if (regs.has(p.perf)) out.set(p.dwarf, regs.get(p.perf));
    }
    return out;
  }
};

// How one step from a frame to its caller ended.
enum class StepStatus : uint8_t {
  kOk,
  kNoCaller,        // the return-address rule is "undefined": the thread's outermost frame
  kStackTruncated,  // a needed read lies beyond the end of the stack copy
  kBadRule,         // the rule cannot be evaluated or reads outside the stack
};

// Reads a u64 from the stack copy and says why a failed read failed: addresses at or past the
// copy's end belong to the part of the stack the kernel did not copy.
inline StepStatus read_stack(const StackMemory& stack, uint64_t address, uint64_t& out) {
  if (stack.read_u64(address, out)) return StepStatus::kOk;
  if (address >= stack.start() && address + sizeof(uint64_t) > stack.end()) {
    return StepStatus::kStackTruncated;
  }
  return StepStatus::kBadRule;
}

// The common start of every unwinder: resets `out` and records the sampled IP as frame 0.
// Returns false (with kNoRegisters) when the sample carries no user IP and SP, as for kernel
// threads.
inline bool begin_unwind(const UserRegs& regs, UnwindResult& out, FrameRegisters& frame) {
  out.frames.clear();
  out.stop = UnwindStop::kComplete;
  if (!regs.has(X86Reg::kIp) || !regs.has(X86Reg::kSp)) {
    out.stop = UnwindStop::kNoRegisters;
    return false;
  }
  frame = FrameRegisters::from_user_regs(regs);
  out.frames.push_back(FrameAddress::ip(frame.pc()));
  return true;
}

}  // namespace sprof::convert::unwind
