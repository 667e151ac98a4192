#include "sprof/convert/walked_stack_cache.hpp"

#include <algorithm>
#include <cstring>

namespace sprof::convert {

namespace {

// splitmix64's finaliser: spreads every input bit over the slot index.
uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

uint64_t WalkedStackCache::hash_of(const Key& key) {
  const Origin& o = key.origin;
  uint64_t h = mix(o.ip ^ (uint64_t{o.pid} << 32));
  h = mix(h ^ o.image ^ (o.thread << 20) ^ reinterpret_cast<uintptr_t>(o.wrappers));
  const std::span<const uint8_t> bytes = key.return_addresses;
  size_t at = 0;
  for (; at + sizeof(uint64_t) <= bytes.size(); at += sizeof(uint64_t)) {
    uint64_t word = 0;
    std::memcpy(&word, bytes.data() + at, sizeof word);
    h = mix(h ^ word);
  }
  for (; at < bytes.size(); ++at) h = mix(h ^ bytes[at]);  // a record's odd tail, if any
  return mix(h ^ bytes.size());
}

bool WalkedStackCache::same(const Slot& slot, uint64_t hash, const Key& key) const {
  return slot.generation == generation_ && slot.hash == hash && slot.origin == key.origin &&
         std::ranges::equal(slot.return_addresses, key.return_addresses);
}

const std::optional<uint32_t>* WalkedStackCache::find(const Key& key) const {
  const uint64_t hash = hash_of(key);
  const Slot& slot = slots_[hash & (kSlots - 1)];
  return same(slot, hash, key) ? &slot.stack : nullptr;
}

void WalkedStackCache::remember(const Key& key, std::optional<uint32_t> stack) {
  const uint64_t hash = hash_of(key);
  Slot& slot = slots_[hash & (kSlots - 1)];
  slot.generation = generation_;
  slot.hash = hash;
  slot.origin = key.origin;
  slot.return_addresses.assign(key.return_addresses.begin(), key.return_addresses.end());
  slot.stack = stack;
}

void WalkedStackCache::clear() { ++generation_; }

}  // namespace sprof::convert
