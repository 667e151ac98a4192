// heap/src/interposer/frame_rule_cache.hpp
//
// The in-process stack walk's memory of what `.eh_frame` said (eh_frame_rules.hpp) at each code
// address it has seen: reading a rule costs a binary search and an FDE's instructions, about as
// much as heaptrack's whole walk of a frame, while a program allocates from a few hundred call
// sites. One table for the process, in .bss (zero is empty), shared by its threads without
// locks: a slot is a sequence lock, so a reader never takes a rule half written by another
// thread, and a thread interrupted by a signal handler that allocates cannot deadlock. A full
// slot is overwritten by the next address that hashes to it.
#pragma once

#include <cstdint>

#include "interposer/eh_frame_rules.hpp"

namespace sprof::heap::interposer {

struct CachedRule {
  FrameRule rule;
  RuleStatus status;
};

class FrameRuleCache {
 public:
  static constexpr unsigned kSlotBits = 13;  // 8,192 slots of 24 bytes: 192 KiB of .bss

  // The rule at `pc`, from the cache or from `compute` (which the cache then keeps).
  template <typename Compute>
  CachedRule lookup(uint64_t pc, Compute&& compute) {
    CachedRule found;
    Slot& slot = slots_[slot_of(pc)];
    if (read(slot, pc, found)) return found;
    found.status = compute(pc, found.rule);
    write(slot, pc, found);
    return found;
  }

  // Forgets every rule (code was unmapped: its addresses may hold other code next).
  void clear();

 private:
  // key: pc << 3 | status << 1 for a rule, 1 while a writer fills the slot, 0 empty (pc 0 is
  // never asked for; user-space addresses are below 2^47, so the shift does not wrap).
  // words: the FrameRule's 16 bytes.
  struct Slot {
    uint64_t key;
    uint64_t words[2];
  };
  static uint64_t slot_of(uint64_t pc) { return (pc * 0x9e3779b97f4a7c15ULL) >> (64 - kSlotBits); }
  static bool read(const Slot& slot, uint64_t pc, CachedRule& out);
  static void write(Slot& slot, uint64_t pc, const CachedRule& rule);

  Slot slots_[uint64_t{1} << kSlotBits];
};

}  // namespace sprof::heap::interposer
