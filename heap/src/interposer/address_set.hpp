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

  // `bucket_count` must be a power of two, at least 2; `buckets` zeroed. `live` counts the keys present,
  // read by free() to skip the probe entirely while it is 0.
  void init(AddressBucket* buckets, size_t bucket_count, uint64_t* live);

  // False when every bucket within reach is full: the caller records the block as untracked.
  bool insert(uint64_t key);
  // True when the key was present (and is now gone).
  bool erase(uint64_t key);
  bool contains(uint64_t key) const;

  static size_t bytes_for(size_t bucket_count) { return bucket_count * sizeof(AddressBucket); }

 private:
  size_t home(uint64_t key) const;

  // No member initialisers: an AddressSet lives in .bss and must need no constructor (see
  // interposer.hpp). Unusable until init().
  AddressBucket* buckets_;
  size_t mask_;
  unsigned shift_;
  uint64_t* live_;
};

}  // namespace sprof::heap::interposer
