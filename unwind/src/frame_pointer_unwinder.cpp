// unwind/src/frame_pointer_unwinder.cpp
#include "sprof/unwind/frame_pointer_unwinder.hpp"

namespace sprof::unwind {

StepStatus frame_pointer_step(const FrameRegisters& callee, const StackMemory& stack,
                              FrameRegisters& caller) {
  if (!callee.has(DwarfReg::kRbp) || !callee.has(DwarfReg::kRsp)) return StepStatus::kBadRule;
  const uint64_t rbp = callee.get(DwarfReg::kRbp);
  if (rbp == 0) return StepStatus::kNoCaller;
  // A saved-rbp slot is 8-aligned and lies in the current frame or above it.
  if (rbp % sizeof(uint64_t) != 0 || rbp < callee.sp()) return StepStatus::kBadRule;
  uint64_t saved_rbp = 0;
  uint64_t return_address = 0;
  StepStatus status = read_stack(stack, rbp, saved_rbp);
  if (status == StepStatus::kOk) {
    const uint64_t slot = rbp + arch::x86_64::kFramePointerReturnAddressOffset;
    status = read_stack(stack, slot, return_address);
  }
  if (status != StepStatus::kOk) return status;
  if (return_address == 0) return StepStatus::kNoCaller;
  caller = FrameRegisters{};
  caller.set(DwarfReg::kRip, return_address);
  caller.set(DwarfReg::kRsp, rbp + arch::x86_64::kFramePointerCallerSpOffset);
  caller.set(DwarfReg::kRbp, saved_rbp);
  return StepStatus::kOk;
}

void FramePointerUnwinder::unwind(const UserRegs& regs, const StackMemory& stack,
                                  const AddressSpace& /*space*/, UnwindResult& out) {
  FrameRegisters frame;
  if (!begin_unwind(regs, out, frame)) return;
  while (true) {
    if (out.frames.size() >= max_frames_) {
      out.stop = UnwindStop::kMaxDepth;
      return;
    }
    FrameRegisters caller;
    switch (frame_pointer_step(frame, stack, caller)) {
      case StepStatus::kOk: break;
      case StepStatus::kNoCaller: out.stop = UnwindStop::kComplete; return;
      case StepStatus::kStackTruncated: out.stop = UnwindStop::kStackTruncated; return;
      // The chain left the stack: the frame (or one of its callers) keeps no frame pointer.
      case StepStatus::kBadRule: out.stop = UnwindStop::kNoProgress; return;
    }
    out.frames.push_back(FrameAddress::return_address(caller.pc()));
    frame = caller;
  }
}

}  // namespace sprof::unwind
