// unwind/src/stack_stitcher.cpp
#include "sprof/unwind/stack_stitcher.hpp"

namespace sprof::unwind {
namespace {

// Bounded like the unwinder's own walks.
constexpr size_t kMaxFrames = 4096;

}  // namespace

StackStitcher::FrameKey StackStitcher::key(const FrameAddress& frame, uint64_t cfa) {
  // A return address and an interrupted PC at the same address are different frames.
  const uint64_t kind = frame.kind == FrameAddress::Kind::kReturnAddress ? 1 : 0;
  return FrameKey{frame.address.value << 1 | kind, cfa};
}

void StackStitcher::learn(const UnwindResult& result) {
  if (callers_.size() + result.frames.size() > kMaxSteps) callers_.clear();
  const size_t n = result.frames.size();
  for (size_t i = 0; i + 1 < n; ++i) {
    if (result.cfas[i] == 0) continue;
    callers_.insert_or_assign(key(result.frames[i], result.cfas[i]),
                              Caller{result.frames[i + 1], result.cfas[i + 1], false});
  }
  if (result.stop == UnwindStop::kComplete && n > 0 && result.cfas[n - 1] != 0) {
    callers_.insert_or_assign(key(result.frames[n - 1], result.cfas[n - 1]), Caller{{}, 0, true});
  }
}

bool StackStitcher::complete(UnwindResult& result) {
  if (result.cfas.size() != result.frames.size() || result.frames.empty()) return false;
  const bool truncated = result.stop == UnwindStop::kStackTruncated;
  if (!active_) {
    if (!truncated) return false;  // nothing kept for threads whose stacks always fit
    active_ = true;
  }
  if (!truncated) {
    learn(result);
    return false;
  }
  while (result.cfas.back() != 0 && result.frames.size() < kMaxFrames) {
    const auto it = callers_.find(key(result.frames.back(), result.cfas.back()));
    if (it == callers_.end()) break;
    if (it->second.is_root) {
      result.stop = UnwindStop::kComplete;
      break;
    }
    result.frames.push_back(it->second.frame);
    result.cfas.push_back(it->second.cfa);
  }
  // Learnt after the walk is extended (so a full table, cleared by learn, still served this
  // sample): its own steps are as true as any, and the borrowed ones are learnt again unchanged.
  const bool stitched = result.stop == UnwindStop::kComplete;
  learn(result);
  return stitched;
}

void StackStitcher::clear() {
  active_ = false;
  callers_.clear();
}

}  // namespace sprof::unwind
