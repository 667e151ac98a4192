// sprof/convert/allocation_bucket.hpp
//
// `AllocationBucket`: the rows of one stretch of time of a long record-everything recording,
// held back until the stretch ends so that short-lived blocks can be folded. A block allocated
// and freed within the bucket does not keep its own pair of rows: per (thread table, allocation
// stack) the bucket writes one allocation row with the bytes of all such blocks and one free row
// that releases them, under a made-up address that pairs the two. Every other row (blocks that
// outlive the bucket, frees of older blocks) is written as it was recorded.
//
// What the Firefox Profiler shows stays right: allocated, retained and deallocated bytes per
// call path over any range that does not cut a bucket, and the memory track (counters are not
// folded). What is lost: each folded block's own time, address and freeing thread, and the count
// of allocations (a folded pair counts once). docs/heap.md, "Long recordings".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "sprof/heap/heap_analysis.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::convert {

// The thread table an allocation goes into: indexes into Profile::processes and its threads.
struct AllocationOwner {
  size_t image = 0;
  size_t thread = 0;
};

class AllocationBucket {
 public:
  // Made-up addresses of folded pairs: above any user-space address, so never a real block's.
  static constexpr uint64_t kFoldedAddressBase = heap::kFoldedAddressBase;

  // Starts a bucket for the records before `end_ms` (the bucket must be empty).
  void open(double end_ms);
  bool is_open() const { return open_; }
  double end_ms() const { return end_ms_; }

  // Holds a row (an allocation, or the free of a block allocated before the bucket); the
  // returned index names an allocation in `fold`.
  uint32_t hold(AllocationOwner owner, const profile::NativeAllocation& row);
  // The block whose allocation is held as `index` was freed at `time_ms` (at `free_stack`, when
  // frees are recorded with stacks): its rows become part of the folded pair of its call paths.
  void fold(uint32_t index, std::optional<uint32_t> free_stack, double time_ms);

  // Writes what the bucket holds into the profile's tables in time order (a folded pair at its
  // first allocation and its last free) and closes it. Returns the rows written.
  uint64_t flush(profile::Profile& profile);

  uint64_t folded_blocks() const { return folded_blocks_; }
  int64_t folded_bytes() const { return folded_bytes_; }

 private:
  struct HeldRow {
    AllocationOwner owner;
    profile::NativeAllocation row;
    bool folded = false;
  };
  struct Folded {
    double first_allocation_ms = 0;
    int64_t bytes = 0;
    int64_t thread_id = 0;  // the allocating thread's
    double last_free_ms = 0;
  };
  // image, thread, allocation stack + 1, free stack + 1 (0: none)
  using FoldKey = std::tuple<size_t, size_t, uint32_t, uint32_t>;

  bool open_ = false;
  double end_ms_ = 0;
  std::vector<HeldRow> held_;
  std::map<FoldKey, Folded> folded_;  // ordered: the same input writes the same rows
  uint64_t next_folded_address_ = kFoldedAddressBase;
  uint64_t folded_blocks_ = 0;
  int64_t folded_bytes_ = 0;
};

}  // namespace sprof::convert
