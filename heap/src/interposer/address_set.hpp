// heap/src/interposer/address_set.hpp
//
// The addresses of sampled blocks that are still live in this process, so that their frees can
// be recorded and every other free can be let through after one probe. Lock-free (compare-and-
// swap on slots), so a thread interrupted by a signal handler that frees cannot deadlock, and a
// fork child inherits a consistent copy.
//
// Layout: buckets of one cache line, 7 keys plus a sticky "overflowed" word. A key lives in its
// home bucket or, when that was full, in one of the next kMaxProbeBuckets - 1 buckets; the
// overflowed word of every bucket an insert passed over is set before the insert lands, so a
// lookup reads one cache line unless the home bucket ever overflowed. Keys are block addresses
// (never 0: 0 marks an empty slot).
//
// In front of the buckets sits a counting filter: kFilterSlots 16-bit counters (32 KiB, small
// enough to stay in cache), each counting the keys that hash to it. free() reads one counter;
// zero means "certainly not sampled", which spares it the bucket probe (a cache miss in a table
// of hundreds of KiB) for almost every block. Counters are bumped before a key is published and
// dropped after it is removed, so a zero is never wrong.
//
// Memory is provided by the caller (zeroed, e.g. a fresh anonymous mapping): no allocation.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sprof::heap::interposer {

struct alignas(64) AddressBucket {
  uint64_t keys[7];
  uint64_t overflowed;
};
static_assert(sizeof(AddressBucket) == 64);

class AddressSet {
 public:
  static constexpr size_t kMaxProbeBuckets = 8;
  static constexpr size_t kFilterSlots = size_t{1} << 14;

  // `memory` (zeroed, 64-byte aligned) holds bytes_for(bucket_count); `bucket_count` must be a
  // power of two, at least 2. `live`, if not null, counts the keys present (tests use it; the
  // interposer does not, as a counter every thread updates costs a cache line bouncing between
  // cores at every sample).
  void init(void* memory, size_t bucket_count, uint64_t* live);

  // False only if the key is certainly absent. One 2-byte load.
  bool may_contain(uint64_t key) const {
    return __atomic_load_n(&filter_[filter_slot(key)], __ATOMIC_ACQUIRE) != 0;
  }

  // False when every bucket within reach is full: the caller records the block as untracked.
  bool insert(uint64_t key);
  // True when the key was present (and is now gone).
  bool erase(uint64_t key);
  bool contains(uint64_t key) const;

  static size_t bytes_for(size_t bucket_count) {
    return bucket_count * sizeof(AddressBucket) + kFilterSlots * sizeof(uint16_t);
  }

 private:
  static uint64_t mix(uint64_t key) { return (key >> 4) * 0x9E3779B97F4A7C15ULL; }
  // Bits 20..33 of the mix; bucket indexes take the top bits, so the two are independent.
  static size_t filter_slot(uint64_t key) {
    return static_cast<size_t>(mix(key) >> 20) & (kFilterSlots - 1);
  }
  size_t home(uint64_t key) const;

  // No member initialisers: an AddressSet lives in .bss and must need no constructor (see
  // interposer.hpp). Unusable until init().
  AddressBucket* buckets_;
  uint16_t* filter_;
  size_t mask_;
  unsigned shift_;
  uint64_t* live_;
};

}  // namespace sprof::heap::interposer
