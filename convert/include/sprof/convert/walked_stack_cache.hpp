// convert/include/sprof/convert/walked_stack_cache.hpp
//
// A record-all recording's allocations come from a few call paths, millions of times each
// (docs/heap.md, "The in-process stack walk"): a walked record carries the capture stub's ip
// and the return addresses, and turning those into an interned stack (module lookups, the
// allocation wrappers' trim, one intern per frame) was the converter's largest cost per record.
// This remembers, for the last call paths seen, which stack each one was interned as, keyed by
// the exact ip and return-address bytes and by everything else the interning depends on: the
// thread table it went into, the process whose module map read it, and the wrappers trimmed.
//
// Direct-mapped and bounded (kSlots entries): a collision replaces the older entry, so memory
// stays at kSlots call paths whatever the program does. The owner clears it whenever a module
// map changes (a mapping added, exec), since the same addresses may then mean other code; a
// process at startup adds hundreds of mappings, so clear() only starts a new generation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace sprof::convert {

class WalkedStackCache {
 public:
  // Everything but the return addresses that the interned stack depends on.
  struct Origin {
    size_t image = 0;                // the thread table's process image ...
    size_t thread = 0;               // ... and thread
    uint32_t pid = 0;                // whose module map read the addresses
    const void* wrappers = nullptr;  // the AllocatorFrames trimmed (allocation or deallocation)
    uint64_t ip = 0;                 // the capture stub's
    bool operator==(const Origin&) const = default;
  };
  struct Key {
    Origin origin;
    std::span<const uint8_t> return_addresses;  // as the record carries them
  };

  // The stack `key` was interned as since the last clear (nullopt inside: an empty stack), or
  // nullptr when it is not remembered.
  const std::optional<uint32_t>* find(const Key& key) const;
  void remember(const Key& key, std::optional<uint32_t> stack);
  void clear();

  static constexpr size_t kSlots = 4096;  // a power of two

 private:
  struct Slot {
    uint64_t generation = 0;  // holds an entry only when it is the cache's current one
    uint64_t hash = 0;
    Origin origin;
    std::vector<uint8_t> return_addresses;  // capacity kept when the slot is reused
    std::optional<uint32_t> stack;
  };

  static uint64_t hash_of(const Key& key);
  bool same(const Slot& slot, uint64_t hash, const Key& key) const;

  std::vector<Slot> slots_ = std::vector<Slot>(kSlots);
  uint64_t generation_ = 1;  // slots start at 0: empty
};

}  // namespace sprof::convert
