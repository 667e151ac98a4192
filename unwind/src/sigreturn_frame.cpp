// unwind/src/sigreturn_frame.cpp
#include "sprof/unwind/sigreturn_frame.hpp"

namespace sprof::unwind {

StepStatus restore_sigreturn_frame(const FrameRegisters& trampoline, const StackMemory& stack,
                                   FrameRegisters& interrupted) {
  if (!trampoline.has(DwarfReg::kRsp)) return StepStatus::kBadRule;
  const uint64_t gregs = trampoline.sp() + arch::x86_64::kUcontextGregsOffset;
  interrupted = FrameRegisters{};
  for (const auto& slot : arch::x86_64::kUcontextGregs) {
    uint64_t value = 0;
    const StepStatus status = read_stack(stack, gregs + slot.index * sizeof(uint64_t), value);
    if (status != StepStatus::kOk) return status;
    interrupted.set(slot.reg, value);
  }
  return StepStatus::kOk;
}

}  // namespace sprof::unwind
