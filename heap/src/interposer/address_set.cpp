// heap/src/interposer/address_set.cpp
#include "interposer/address_set.hpp"

namespace sprof::heap::interposer {

void AddressSet::init(void* memory, size_t bucket_count, uint64_t* live) {
  buckets_ = static_cast<AddressBucket*>(memory);
  filter_ = reinterpret_cast<uint16_t*>(buckets_ + bucket_count);
  mask_ = bucket_count - 1;
  shift_ = 64U - static_cast<unsigned>(__builtin_ctzll(bucket_count));
  live_ = live;
}

size_t AddressSet::home(uint64_t key) const {
  // Blocks are 16-byte aligned (mix drops the zero bits); Fibonacci hashing, top bits.
  return static_cast<size_t>(mix(key) >> shift_);
}

bool AddressSet::insert(uint64_t key) {
  // Counted before the key can be found, so may_contain never says no to a present key. A
  // 16-bit counter would need 65,536 live keys on one slot to wrap: kMaxTrackedCapacityLog2
  // keeps the average at 1,024.
  uint16_t& count = filter_[filter_slot(key)];
  __atomic_fetch_add(&count, 1, __ATOMIC_RELEASE);
  size_t b = home(key);
  for (size_t probe = 0; probe < kMaxProbeBuckets; ++probe, b = (b + 1) & mask_) {
    AddressBucket& bucket = buckets_[b];
    for (uint64_t& slot : bucket.keys) {
      uint64_t expected = 0;
      if (__atomic_load_n(&slot, __ATOMIC_RELAXED) == 0 &&
          __atomic_compare_exchange_n(&slot, &expected, key, false, __ATOMIC_RELEASE,
                                      __ATOMIC_RELAXED)) {
        if (live_ != nullptr) __atomic_fetch_add(live_, 1, __ATOMIC_RELAXED);
        return true;
      }
    }
    // Set before moving on, so a lookup of the key (which happens after this insert returns)
    // sees that it must look further.
    if (__atomic_load_n(&bucket.overflowed, __ATOMIC_RELAXED) == 0)
      __atomic_store_n(&bucket.overflowed, 1, __ATOMIC_RELEASE);
  }
  __atomic_fetch_sub(&count, 1, __ATOMIC_RELEASE);
  return false;
}

bool AddressSet::erase(uint64_t key) {
  if (!may_contain(key)) return false;
  size_t b = home(key);
  for (size_t probe = 0; probe < kMaxProbeBuckets; ++probe, b = (b + 1) & mask_) {
    AddressBucket& bucket = buckets_[b];
    for (uint64_t& slot : bucket.keys) {
      uint64_t expected = key;
      if (__atomic_load_n(&slot, __ATOMIC_ACQUIRE) == key &&
          __atomic_compare_exchange_n(&slot, &expected, 0, false, __ATOMIC_ACQ_REL,
                                      __ATOMIC_RELAXED)) {
        __atomic_fetch_sub(&filter_[filter_slot(key)], 1, __ATOMIC_RELEASE);
        if (live_ != nullptr) __atomic_fetch_sub(live_, 1, __ATOMIC_RELAXED);
        return true;
      }
    }
    if (__atomic_load_n(&bucket.overflowed, __ATOMIC_ACQUIRE) == 0) return false;
  }
  return false;
}

bool AddressSet::contains(uint64_t key) const {
  size_t b = home(key);
  for (size_t probe = 0; probe < kMaxProbeBuckets; ++probe, b = (b + 1) & mask_) {
    const AddressBucket& bucket = buckets_[b];
    for (const uint64_t& slot : bucket.keys)
      if (__atomic_load_n(&slot, __ATOMIC_ACQUIRE) == key) return true;
    if (__atomic_load_n(&bucket.overflowed, __ATOMIC_ACQUIRE) == 0) return false;
  }
  return false;
}

}  // namespace sprof::heap::interposer
