// heap/src/interposer/frame_rule_cache.cpp
#include "interposer/frame_rule_cache.hpp"

#include <cstring>

namespace sprof::heap::interposer {
namespace {

constexpr uint64_t kWriting = 1;

uint64_t key_for(uint64_t pc, RuleStatus status) {
  return pc << 3 | static_cast<uint64_t>(status) << 1;
}

}  // namespace

bool FrameRuleCache::read(const Slot& slot, uint64_t pc, CachedRule& out) {
  const uint64_t key = __atomic_load_n(&slot.key, __ATOMIC_ACQUIRE);
  if ((key & kWriting) != 0 || key >> 3 != pc) return false;
  uint64_t words[2];
  words[0] = __atomic_load_n(&slot.words[0], __ATOMIC_RELAXED);
  words[1] = __atomic_load_n(&slot.words[1], __ATOMIC_RELAXED);
  // A writer that took the slot meanwhile changed the key first: then these words may be its.
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if (__atomic_load_n(&slot.key, __ATOMIC_RELAXED) != key) return false;
  std::memcpy(&out.rule, words, sizeof out.rule);
  out.status = static_cast<RuleStatus>((key >> 1) & 3);
  return true;
}

void FrameRuleCache::write(Slot& slot, uint64_t pc, const CachedRule& rule) {
  uint64_t key = __atomic_load_n(&slot.key, __ATOMIC_RELAXED);
  if ((key & kWriting) != 0) return;  // another thread is filling it: leave it that one
  if (!__atomic_compare_exchange_n(&slot.key, &key, kWriting, false, __ATOMIC_ACQUIRE,
                                   __ATOMIC_RELAXED)) {
    return;
  }
  __atomic_thread_fence(__ATOMIC_RELEASE);
  uint64_t words[2];
  std::memcpy(words, &rule.rule, sizeof words);
  __atomic_store_n(&slot.words[0], words[0], __ATOMIC_RELAXED);
  __atomic_store_n(&slot.words[1], words[1], __ATOMIC_RELAXED);
  __atomic_store_n(&slot.key, key_for(pc, rule.status), __ATOMIC_RELEASE);
}

void FrameRuleCache::clear() {
  for (Slot& slot : slots_) {
    uint64_t key = __atomic_load_n(&slot.key, __ATOMIC_RELAXED);
    if ((key & kWriting) == 0 && key != 0) {
      __atomic_compare_exchange_n(&slot.key, &key, 0, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
  }
}

}  // namespace sprof::heap::interposer
