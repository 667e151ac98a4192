// heap/src/interposer/stack_walk.hpp
//
// The in-process stack walk: the return addresses of an allocation's call stack, found inside
// the recorded program by following its own `.eh_frame` (eh_frame_rules.hpp, through
// FrameRuleCache), so that a record carries a few return addresses instead of a copy of the
// stack that sprof must unwind. It follows the rules a frame-by-frame DWARF unwinder follows for
// the frames of ordinary code (CFA from %rsp or %rbp, return address and %rbp saved at CFA
// offsets), and gives up on anything else; a walk that did not reach the outermost frame (the
// return address undefined: _start, clone3) is not used, and the record carries the stack copy
// as before. docs/heap.md, "The in-process stack walk".
//
// Every word it reads lies between the frame's sp and `stack_high`, the end of the stack the
// thread runs on.
#pragma once

#include <cstdint>

#include "interposer/frame_rule_cache.hpp"

namespace sprof::heap::interposer {

// The state at the first return address: `pc` returned to, with `sp` and `bp` as they are
// in the frame it returns into.
struct WalkStart {
  uint64_t pc;
  uint64_t sp;
  uint64_t bp;
};

enum class WalkEnd : uint8_t {
  kOutermost = 0,  // reached a frame whose return address is undefined: the walk is whole
  kNoRule,    // a pc without a rule this walk evaluates (no FDE, an expression, a signal frame)
  kBadStack,  // a CFA or saved word outside the stack, or a CFA that does not grow
  kTooDeep,   // more frames than the caller's buffer holds
};

struct WalkResult {
  uint32_t frames;  // return addresses written to `pcs`
  WalkEnd end;
};

// Finds the rule for a code address (a return address minus one).
using RuleFinder = CachedRule (*)(void* context, uint64_t pc);

WalkResult walk_stack(const WalkStart& start, uint64_t stack_high, RuleFinder find, void* context,
                      uint64_t* pcs, uint32_t max_frames);

}  // namespace sprof::heap::interposer
