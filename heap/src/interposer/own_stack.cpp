// heap/src/interposer/own_stack.cpp
#include "interposer/own_stack.hpp"

#include <dlfcn.h>

#include "interposer/frame_rule_cache.hpp"
#include "interposer/stack_walk.hpp"

namespace sprof::heap::interposer {
namespace {

// Zero-initialised .bss: usable before any constructor has run.
FrameRuleCache g_rules;

RuleStatus rule_from_loaded_image(uint64_t pc, FrameRule& rule) {
  dl_find_object found{};
  if (::_dl_find_object(reinterpret_cast<void*>(pc), &found) != 0) return RuleStatus::kNoFde;
  if (found.dlfo_eh_frame == nullptr) return RuleStatus::kNoFde;
  const auto start = reinterpret_cast<uint64_t>(found.dlfo_map_start);
  const auto end = reinterpret_cast<uint64_t>(found.dlfo_map_end);
  if (end <= start) return RuleStatus::kNoFde;
  const CfiImage image{static_cast<const uint8_t*>(found.dlfo_map_start), end - start, start};
  return find_frame_rule(image, reinterpret_cast<uint64_t>(found.dlfo_eh_frame), pc, rule);
}

CachedRule cached_rule(void* /*context*/, uint64_t pc) {
  return g_rules.lookup(pc, rule_from_loaded_image);
}

}  // namespace

uint32_t walk_own_stack(const CapturedRegs& regs, uint64_t stack_end,
                        uint64_t (&pcs)[kMaxWalkedFrames]) {
  // At the stub, sp points at the return address; the caller's frame starts above it.
  if (stack_end < regs.sp || stack_end - regs.sp < 2 * sizeof(uint64_t)) return 0;
  const WalkStart start{*reinterpret_cast<const uint64_t*>(regs.sp), regs.sp + sizeof(uint64_t),
                        regs.bp};
  const WalkResult walked =
      walk_stack(start, stack_end, cached_rule, nullptr, pcs, kMaxWalkedFrames);
  return walked.end == WalkEnd::kOutermost ? walked.frames : 0;
}

void forget_frame_rules() { g_rules.clear(); }

}  // namespace sprof::heap::interposer
