// heap/src/interposer/stack_walk.cpp
#include "interposer/stack_walk.hpp"

#include <cstring>

namespace sprof::heap::interposer {
namespace {

// A word in [low, high).
bool read_word(uint64_t at, uint64_t low, uint64_t high, uint64_t& value) {
  if (at < low || at > high || high - at < sizeof value) return false;
  std::memcpy(&value, reinterpret_cast<const void*>(at), sizeof value);
  return true;
}

uint64_t plus(uint64_t base, int32_t offset) {
  return base + static_cast<uint64_t>(int64_t{offset});
}

}  // namespace

WalkResult walk_stack(const WalkStart& start, uint64_t stack_high, RuleFinder find, void* context,
                      uint64_t* pcs, uint32_t max_frames) {
  uint64_t pc = start.pc, sp = start.sp, bp = start.bp;
  bool bp_known = true;
  for (uint32_t n = 0;; ++n) {
    if (n == max_frames) return {n, WalkEnd::kTooDeep};
    pcs[n] = pc;
    // Every pc here is a return address: the call that made the frame is the byte before it.
    const CachedRule found = find(context, pc - 1);
    if (found.status != RuleStatus::kFound) return {n + 1, WalkEnd::kNoRule};
    const FrameRule& r = found.rule;
    if (r.return_address == SavedAt::kUndefined) return {n + 1, WalkEnd::kOutermost};
    if (r.cfa_register == kDwarfRbp && !bp_known) return {n + 1, WalkEnd::kNoRule};
    const uint64_t cfa = plus(r.cfa_register == kDwarfRsp ? sp : bp, r.cfa_offset);
    // The caller's frame lies above this one: at least the return address's slot above sp.
    if (cfa < sp + sizeof(uint64_t) || cfa > stack_high) return {n + 1, WalkEnd::kBadStack};
    uint64_t return_address = 0;
    if (!read_word(plus(cfa, r.return_address_offset), sp, stack_high, return_address)) {
      return {n + 1, WalkEnd::kBadStack};
    }
    if (r.bp == SavedAt::kCfaOffset) {
      if (!read_word(plus(cfa, r.bp_offset), sp, stack_high, bp)) {
        return {n + 1, WalkEnd::kBadStack};
      }
      bp_known = true;
    } else if (r.bp == SavedAt::kUndefined) {
      bp_known = false;
    }
    if (return_address == 0) return {n + 1, WalkEnd::kBadStack};
    sp = cfa;
    pc = return_address;
  }
}

}  // namespace sprof::heap::interposer
