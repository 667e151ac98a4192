// unwind/src/cfi_unwinder.cpp
#include "sprof/unwind/cfi_unwinder.hpp"

#include "sprof/unwind/cfi_rule_cache.hpp"
#include "sprof/unwind/cfi_rule_evaluator.hpp"
#include "sprof/unwind/frame_pointer_unwinder.hpp"
#include "sprof/unwind/sigreturn_frame.hpp"

namespace sprof::unwind {
namespace {

UnwindStop stop_for_cfi(StepStatus status) {
  switch (status) {
    case StepStatus::kNoCaller: return UnwindStop::kComplete;
    case StepStatus::kStackTruncated: return UnwindStop::kStackTruncated;
    case StepStatus::kOk:  // not a stop; callers never pass it
    case StepStatus::kBadRule: break;
  }
  return UnwindStop::kBadCfi;
}

// The rbp chain for code that has no CFI. rbp 0 marks the deepest frame (psABI 3.4.1; e.g.
// ld.so's `_start`, which has no CFI, clears rbp before calling `_dl_start`). That is trusted
// for callers, whose rbp was restored by their callees' CFI, but not for the sampled frame, where
// rbp may be an ordinary register holding 0 (JIT code).
bool fall_back_to_frame_pointer(const FrameRegisters& frame, bool is_return_address,
                                const StackMemory& stack, UnwindStop no_rules_reason,
                                FrameRegisters& caller, UnwindStop& stop, uint32_t& fp_steps) {
  const StepStatus status = frame_pointer_step(frame, stack, caller);
  switch (status) {
    case StepStatus::kOk: ++fp_steps; return true;
    case StepStatus::kStackTruncated: stop = UnwindStop::kStackTruncated; break;
    case StepStatus::kNoCaller:
      stop = is_return_address ? UnwindStop::kComplete : no_rules_reason;
      break;
    case StepStatus::kBadRule: stop = no_rules_reason; break;
  }
  return false;
}

}  // namespace

CfiUnwinder::CfiUnwinder(ModuleCfiSource& cfi_source, size_t max_frames) : max_frames_(max_frames) {
  auto cache = std::make_unique<CfiRuleCache>(cfi_source);
  cache_ = cache.get();
  rules_ = std::move(cache);
}

CfiUnwinder::CfiUnwinder(std::unique_ptr<RuleSource> rules, size_t max_frames)
    : rules_(std::move(rules)), max_frames_(max_frames) {}

CfiUnwinder::~CfiUnwinder() = default;

bool CfiUnwinder::step(const FrameRegisters& frame, bool is_return_address,
                       const StackMemory& stack, const AddressSpace& space, FrameRegisters& caller,
                       bool& exact_pc, UnwindStop& stop, uint32_t& fp_steps) {
  exact_pc = false;
  const MappedFile* module = space.find(frame.pc());
  if (module == nullptr) {
    return fall_back_to_frame_pointer(frame, is_return_address, stack, UnwindStop::kNoModule,
                                      caller, stop, fp_steps);
  }
  const CodeLookup code =
      rules_->lookup(*module, module->to_svma(Avma{frame.pc()}), is_return_address);
  StepStatus status = StepStatus::kOk;
  switch (code.kind) {
    case CodeLookup::Kind::kNoCfi:
      return fall_back_to_frame_pointer(frame, is_return_address, stack, UnwindStop::kNoCfi, caller,
                                        stop, fp_steps);
    case CodeLookup::Kind::kSigreturn:
      exact_pc = true;
      status = restore_sigreturn_frame(frame, stack, caller);
      break;
    case CodeLookup::Kind::kRule:
      // A signal-frame FDE ('S') describes a trampoline whose "caller" is the interrupted PC.
      exact_pc = code.rule->signal_frame;
      status = apply_frame_rule(*code.rule, frame, stack, caller);
      break;
  }
  if (status != StepStatus::kOk) {
    stop = stop_for_cfi(status);
    return false;
  }
  // Every call pushes a return address, so a caller's sp is above its callee's. A signal frame
  // may restore any sp (sigaltstack), so it is exempt; max_frames_ still bounds the walk.
  if (!exact_pc && caller.sp() <= frame.sp()) {
    stop = UnwindStop::kNoProgress;
    return false;
  }
  return true;
}

void CfiUnwinder::unwind(const UserRegs& regs, const StackMemory& stack, const AddressSpace& space,
                         UnwindResult& out) {
  FrameRegisters frame;
  if (!begin_unwind(regs, out, frame)) return;
  out.cfas.push_back(0);
  bool is_return_address = false;
  while (true) {
    if (out.frames.size() >= max_frames_) {
      out.stop = UnwindStop::kMaxDepth;
      return;
    }
    FrameRegisters caller;
    bool exact_pc = false;
    const bool stepped = step(frame, is_return_address, stack, space, caller, exact_pc, out.stop,
                              out.frame_pointer_steps);
    // The caller's stack pointer is this frame's CFA; a step that ran out of copied stack has
    // computed it before failing to read the return address (StackStitcher matches on it).
    if (caller.has(DwarfReg::kRsp)) out.cfas.back() = caller.sp();
    if (!stepped) return;
    // A zero return address is how some runtimes end a chain without CFI saying so.
    if (caller.pc() == 0) {
      out.stop = UnwindStop::kComplete;
      return;
    }
    out.frames.push_back(exact_pc ? FrameAddress::ip(caller.pc())
                                  : FrameAddress::return_address(caller.pc()));
    out.cfas.push_back(0);
    is_return_address = !exact_pc;
    frame = caller;
  }
}

}  // namespace sprof::unwind
