// sprof/unwind/stack_stitcher.hpp
//
// Completes stacks deeper than the sampled copy of the user stack, from the same thread's earlier
// stacks. The kernel copies at most 64 KiB above the stack pointer per sample
// (perf_event_open's sample_stack_user is a u16-sized dump), and programs with deep recursion and
// big frames (a compiler: clang parsing, libLLVM optimising) often need more: at sprof's default
// 16 KiB copy, 5 % of a clang -O2 compile's samples reached the thread entry, 87 % at 64 KiB.
//
// The outer frames of such a stack (main -> cc1_main -> ... -> ParseAST) are set up early and
// stay while the deep part changes, so earlier samples of the same thread have walked them. Each
// unwound frame is known by its PC (a return address) and its CFA (the stack address where its
// caller's frame starts); every step of every walk says "the frame at (pc, cfa) was called from
// (pc', cfa')", and a walk that reached the thread entry says its last frame has no caller. An
// unwind that ran out of copied stack stops at a frame whose PC and CFA it knows: when an earlier
// walk passed the same return address at the same CFA (the same call site at the same stack
// depth), its callers are this sample's callers, and the walk continues along those steps until
// it reaches the thread entry or a frame never walked past. Both values must match exactly: a
// call site at another depth, or another call site at the same depth, never stitches.
//
// What stitching can get wrong: a function that returned and was called again, at the same depth,
// from another call site of the same caller, shows the earlier call site's line in that caller
// (the same caller function, the same frames above it).
//
// Memory: nothing until a thread's first truncated stack (most threads never have one); then at
// most kMaxSteps steps per thread, forgotten all at once when full and learnt again.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "sprof/unwind/unwinder.hpp"

namespace sprof::unwind {

class StackStitcher {
 public:
  // Call after every unwind of the thread. Learns its steps (once the thread has had a truncated
  // stack), and extends a walk stopped by the end of the copied stack along known steps. Returns
  // true when that made `result` complete (stop is then kComplete).
  bool complete(UnwindResult& result);
  // Forgets every step (the thread exec'd a new program).
  void clear();

  static constexpr size_t kMaxSteps = 16384;

 private:
  struct FrameKey {
    uint64_t pc = 0;
    uint64_t cfa = 0;
    bool operator==(const FrameKey&) const = default;
  };
  struct FrameKeyHash {
    size_t operator()(const FrameKey& k) const noexcept {
      return std::hash<uint64_t>{}(k.pc * 0x9e3779b97f4a7c15ULL ^ k.cfa);
    }
  };
  struct Caller {
    FrameAddress frame;    // the caller's PC (a return address, or an interrupted PC)
    uint64_t cfa = 0;      // the caller's CFA; 0 when unknown
    bool is_root = false;  // the frame had no caller: the thread's entry
  };

  void learn(const UnwindResult& result);
  static FrameKey key(const FrameAddress& frame, uint64_t cfa);

  bool active_ = false;
  std::unordered_map<FrameKey, Caller, FrameKeyHash> callers_;
};

}  // namespace sprof::unwind
