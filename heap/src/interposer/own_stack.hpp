// heap/src/interposer/own_stack.hpp
//
// The calling thread's stack walked by stack_walk.hpp with this process's own `.eh_frame`, found
// through glibc's _dl_find_object (lock-free, no allocation; the table glibc keeps for
// unwinders) and remembered in one FrameRuleCache for the process.
#pragma once

#include <cstdint>

#include "sprof/heap/heap_ring_format.hpp"

namespace sprof::heap::interposer {

// Enough for the stacks of ordinary programs; a deeper one carries a stack copy.
inline constexpr uint32_t kMaxWalkedFrames = 128;

// The return addresses of the stack `regs` describe (a capture stub's state: regs.sp points at
// the return address), up to the outermost frame, into `pcs`; their number, or 0 when the walk
// could not reach the outermost frame. `stack_end`: the end of the mapping holding regs.sp.
uint32_t walk_own_stack(const CapturedRegs& regs, uint64_t stack_end,
                        uint64_t (&pcs)[kMaxWalkedFrames]);

// Code was unmapped (dlclose): the rules remembered for its addresses may be wrong from now on.
void forget_frame_rules();

}  // namespace sprof::heap::interposer
