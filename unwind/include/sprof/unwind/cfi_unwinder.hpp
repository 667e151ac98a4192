// sprof/unwind/cfi_unwinder.hpp
//
// `CfiUnwinder`: sprof's own x86-64 DWARF CFI unwinder, run while recording on each sample's user
// registers and stack copy. Per frame: find the mapping of the PC, look up the CFI row of that PC
// (cached, `CfiRuleCache`), compute the CFA and recover the caller's registers from the stack
// copy. Signal frames are recognised by the rt_sigreturn trampoline's bytes; code without CFI
// (JIT, anonymous memory) falls back to the rbp chain. The walk ends when the return-address rule
// is "undefined" (glibc marks _start and clone/clone3 so) with `kComplete`, or with the reason it
// could not go on (`UnwindStop`).
//
// Why not libdwfl: a reused Dwfl costs ~4 us a sample, a fresh one ~340 us; raw CFI with a
// per-PC rule cache ~1 us (docs/benchmarks.md, "Platform floors").
// Threading: one instance per recording thread (it owns its caches).
#pragma once

#include <memory>

#include "sprof/unwind/frame_registers.hpp"
#include "sprof/unwind/module_cfi_source.hpp"
#include "sprof/unwind/rule_source.hpp"
#include "sprof/unwind/unwinder.hpp"

namespace sprof::unwind {

class CfiRuleCache;

class CfiUnwinder final : public Unwinder {
 public:
  static constexpr size_t kDefaultMaxFrames = 256;

  // Reads CFI of the address space's files from `cfi_source` (through a `CfiRuleCache` it owns).
  explicit CfiUnwinder(ModuleCfiSource& cfi_source, size_t max_frames = kDefaultMaxFrames);
  // Uses `rules` instead (tests: hand-written rules over fake memory).
  explicit CfiUnwinder(std::unique_ptr<RuleSource> rules, size_t max_frames = kDefaultMaxFrames);
  ~CfiUnwinder() override;

  void unwind(const UserRegs& regs, const StackMemory& stack, const AddressSpace& space,
              UnwindResult& out) override;

  // The rule cache when constructed without a custom source (for statistics), else null.
  const CfiRuleCache* rule_cache() const { return cache_; }

 private:
  // One step from `frame` to its caller. Returns false with `stop` set when the walk ends;
  // `exact_pc` is set when the caller's PC is an interrupted instruction (signal frame), not a
  // return address; `fp_steps` counts a step taken through the frame pointer.
  bool step(const FrameRegisters& frame, bool is_return_address, const StackMemory& stack,
            const AddressSpace& space, FrameRegisters& caller, bool& exact_pc, UnwindStop& stop,
            uint32_t& fp_steps);

  std::unique_ptr<RuleSource> rules_;
  CfiRuleCache* cache_ = nullptr;
  size_t max_frames_;
};

}  // namespace sprof::unwind
