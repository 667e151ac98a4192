// sprof/core/pair_index.hpp
//
// `PairIndex`: a map from a pair of 64-bit integers to a 32-bit index, for the interning tables
// on conversion's hot path (a thread's frames and stacks, the unwinder's per-PC rule cache).
// `std::unordered_map` allocates a node per entry and chases a pointer per lookup; this is one
// flat array with linear probing, so a lookup is a multiply, a shift and usually one cache line.
// Kept at most half full; erasing shifts the following entries back (no tombstones), so lookups
// never slow down after erasures.
//
// Iteration order is the slot order: deterministic for a given sequence of operations, but not
// insertion order. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace sprof {

class PairIndex {
 public:
  struct Entry {
    uint64_t first = 0;
    uint64_t second = 0;
    uint32_t value = 0;
    bool used = false;
  };

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  std::optional<uint32_t> find(uint64_t first, uint64_t second) const {
    if (size_ == 0) return std::nullopt;
    for (size_t i = home(first, second);; i = (i + 1) & mask_) {
      const Entry& e = slots_[i];
      if (!e.used) return std::nullopt;
      if (e.first == first && e.second == second) return e.value;
    }
  }

  // Inserts (first, second) -> value unless the key is present; returns the value the key has
  // afterwards (like `emplace`, an existing entry is kept).
  uint32_t insert(uint64_t first, uint64_t second, uint32_t value) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    for (size_t i = home(first, second);; i = (i + 1) & mask_) {
      Entry& e = slots_[i];
      if (!e.used) {
        e = Entry{first, second, value, true};
        ++size_;
        return value;
      }
      if (e.first == first && e.second == second) return e.value;
    }
  }

  // Removes the key if present; returns whether it was.
  bool erase(uint64_t first, uint64_t second) {
    if (size_ == 0) return false;
    size_t hole = home(first, second);
    for (;; hole = (hole + 1) & mask_) {
      const Entry& e = slots_[hole];
      if (!e.used) return false;
      if (e.first == first && e.second == second) break;
    }
    // Backward shift: move up each later entry of the run whose home is not in (hole, j], so
    // every entry stays reachable from its home without passing an empty slot.
    for (size_t j = (hole + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
      const size_t h = home(slots_[j].first, slots_[j].second);
      const bool home_after_hole = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
      if (!home_after_hole) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole].used = false;
    --size_;
    return true;
  }

  void clear() {
    slots_.clear();
    mask_ = 0;
    size_ = 0;
  }

  // Calls f(first, second, value) for each entry, in slot order.
  template <typename F>
  void for_each(F&& f) const {
    for (const Entry& e : slots_) {
      if (e.used) f(e.first, e.second, e.value);
    }
  }

 private:
  size_t home(uint64_t first, uint64_t second) const {
    // Addresses and small indexes have their entropy in the low and middle bits: mix both words
    // into the high bits of one product and take those (Fibonacci hashing).
    uint64_t h = (first ^ (second * 0xC2B2AE3D27D4EB4FULL)) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 29;
    return static_cast<size_t>((h * 0xBF58476D1CE4E5B9ULL) >> 32) & mask_;
  }

  void grow() {
    std::vector<Entry> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : old.size() * 2, Entry{});
    mask_ = slots_.size() - 1;
    size_ = 0;
    for (const Entry& e : old) {
      if (e.used) insert(e.first, e.second, e.value);
    }
  }

  std::vector<Entry> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace sprof
