// sprof/unwind/frame_registers.hpp
//
// The registers of one frame during a walk, indexed by DWARF register number (the numbering CFI
// rules use; sprof/arch/x86_64.hpp), with a validity bit each. Column 16 holds the frame's PC.
// A register is valid when it was sampled or recovered; call-clobbered registers become invalid
// in callers.
#pragma once

#include <array>
#include <cstdint>

#include "sprof/arch/x86_64.hpp"
#include "sprof/unwind/unwinder.hpp"

namespace sprof::unwind {

using arch::x86_64::DwarfReg;

struct FrameRegisters {
  std::array<uint64_t, arch::x86_64::kDwarfRegCount> value{};
  uint32_t valid = 0;

  bool has(DwarfReg r) const { return (valid >> static_cast<unsigned>(r)) & 1; }
  bool has(unsigned r) const { return r < arch::x86_64::kDwarfRegCount && ((valid >> r) & 1); }
  uint64_t get(DwarfReg r) const { return value[static_cast<size_t>(r)]; }
  uint64_t get(unsigned r) const { return value[r]; }
  void set(DwarfReg r, uint64_t v) {
    value[static_cast<size_t>(r)] = v;
    valid |= uint32_t{1} << static_cast<unsigned>(r);
  }
  void clear(DwarfReg r) { valid &= ~(uint32_t{1} << static_cast<unsigned>(r)); }
  uint64_t pc() const { return get(DwarfReg::kRip); }
  uint64_t sp() const { return get(DwarfReg::kRsp); }

  // The sampled registers under their DWARF numbers; segment registers and flags have no DWARF
  // column an unwinder needs and are dropped.
  static FrameRegisters from_user_regs(const UserRegs& regs) {
    FrameRegisters out;
    for (const auto& p : arch::x86_64::kPerfToDwarf) {
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
  out.cfas.clear();
  out.stop = UnwindStop::kComplete;
  out.frame_pointer_steps = 0;
  if (!regs.has(PerfReg::kIp) || !regs.has(PerfReg::kSp)) {
    out.stop = UnwindStop::kNoRegisters;
    return false;
  }
  frame = FrameRegisters::from_user_regs(regs);
  out.frames.push_back(FrameAddress::ip(frame.pc()));
  return true;
}

}  // namespace sprof::unwind
