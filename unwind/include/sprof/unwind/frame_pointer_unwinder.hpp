// sprof/unwind/frame_pointer_unwinder.hpp
//
// Unwinding by the rbp chain: with frame pointers every frame starts `push %rbp; mov %rsp,%rbp`,
// so [rbp] is the caller's rbp and [rbp + 8] the return address. `FramePointerUnwinder` is the
// `--unwind fp` mode; `frame_pointer_step` is also the CFI unwinder's fallback for code without
// CFI (JIT code, anonymous memory). Debian's libc/libm/libstdc++ are built without frame pointers,
// so chains through them lose frames (docs/benchmarks.md, "Platform floors").
#pragma once

#include "sprof/unwind/frame_registers.hpp"
#include "sprof/unwind/unwinder.hpp"

namespace sprof::unwind {

// One step along the rbp chain. Validates that rbp points into the stack copy at or above the
// current sp (frames only grow upward), so garbage in rbp ends the walk instead of producing
// frames. kNoCaller when rbp is 0 (glibc's _start clears it) or the return address is 0.
// On kOk the caller has rip, rsp (rbp + 16) and rbp; every other register is unknown.
StepStatus frame_pointer_step(const FrameRegisters& callee, const StackMemory& stack,
                              FrameRegisters& caller);

class FramePointerUnwinder final : public Unwinder {
 public:
  explicit FramePointerUnwinder(size_t max_frames = 256) : max_frames_(max_frames) {}
  void unwind(const UserRegs& regs, const StackMemory& stack, const AddressSpace& space,
              UnwindResult& out) override;

 private:
  size_t max_frames_;
};

}  // namespace sprof::unwind
