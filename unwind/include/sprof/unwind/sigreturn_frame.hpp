// sprof/unwind/sigreturn_frame.hpp
//
// Unwinding through a signal handler's return trampoline. On x86-64 the kernel makes a handler
// "return" into the sa_restorer that glibc installs (`__restore_rt`: mov $15,%rax; syscall, i.e.
// rt_sigreturn). The interrupted registers are in the `rt_sigframe` the kernel pushed, not in any
// CFA-relative slot that simple CFI rules could describe, so the trampoline is recognised by its
// bytes and the registers are read from the saved `ucontext` directly (the bytes and the layout:
// sprof/arch/x86_64.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>

#include "sprof/arch/x86_64.hpp"
#include "sprof/unwind/frame_registers.hpp"

namespace sprof::unwind {

using arch::x86_64::kSigreturnCode;
using arch::x86_64::kSigreturnSyscallOffset;

inline bool is_sigreturn_code(std::span<const uint8_t> bytes) {
  return bytes.size() == kSigreturnCode.size() &&
         std::equal(bytes.begin(), bytes.end(), kSigreturnCode.begin());
}

// With the PC in the trampoline, rsp points at the `struct ucontext` of the kernel's
// `rt_sigframe` (the handler's `ret` popped `pretcode`). Recovers the interrupted frame's
// registers from its `uc_mcontext`; the resulting PC is exact (not a return address).
StepStatus restore_sigreturn_frame(const FrameRegisters& trampoline, const StackMemory& stack,
                                   FrameRegisters& interrupted);

}  // namespace sprof::unwind
