// convert/src/unwind/sigreturn_frame.cpp
#include "sprof/convert/unwind/sigreturn_frame.hpp"

namespace sprof::convert::unwind {
namespace {

// struct ucontext (arch/x86/include/uapi/asm/ucontext.h): uc_flags (8), uc_link (8),
// uc_stack (stack_t: ss_sp 8, ss_flags 4 + 4 padding, ss_size 8), then uc_mcontext.
constexpr uint64_t kMcontextOffset = 40;

// Indices into uc_mcontext.gregs (struct sigcontext_64 order; glibc's REG_R8 .. REG_RIP).
struct GregSlot {
  DwarfReg reg;
  uint64_t index;
};
constexpr GregSlot kGregs[] = {
    {DwarfReg::kR8, 0},   {DwarfReg::kR9, 1},   {DwarfReg::kR10, 2},  {DwarfReg::kR11, 3},
    {DwarfReg::kR12, 4},  {DwarfReg::kR13, 5},  {DwarfReg::kR14, 6},  {DwarfReg::kR15, 7},
    {DwarfReg::kRdi, 8},  {DwarfReg::kRsi, 9},  {DwarfReg::kRbp, 10}, {DwarfReg::kRbx, 11},
    {DwarfReg::kRdx, 12}, {DwarfReg::kRax, 13}, {DwarfReg::kRcx, 14}, {DwarfReg::kRsp, 15},
    {DwarfReg::kRip, 16},
};

}  // namespace

StepStatus restore_sigreturn_frame(const FrameRegisters& trampoline, const StackMemory& stack,
                                   FrameRegisters& interrupted) {
  if (!trampoline.has(DwarfReg::kRsp)) return StepStatus::kBadRule;
  const uint64_t gregs = trampoline.sp() + kMcontextOffset;
  interrupted = FrameRegisters{};
  for (const GregSlot& slot : kGregs) {
    uint64_t value = 0;
    const StepStatus status = read_stack(stack, gregs + slot.index * sizeof(uint64_t), value);
    if (status != StepStatus::kOk) return status;
    interrupted.set(slot.reg, value);
  }
  return StepStatus::kOk;
}

}  // namespace sprof::convert::unwind
