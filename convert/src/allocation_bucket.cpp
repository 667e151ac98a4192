#include "sprof/convert/allocation_bucket.hpp"

#include <algorithm>

namespace sprof::convert {

void AllocationBucket::open(double end_ms) {
  open_ = true;
  end_ms_ = end_ms;
}

uint32_t AllocationBucket::hold(AllocationOwner owner, const profile::NativeAllocation& row) {
  held_.push_back({owner, row});
  return static_cast<uint32_t>(held_.size() - 1);
}

namespace {

uint32_t plus_one(std::optional<uint32_t> stack) { return stack ? *stack + 1 : 0U; }
std::optional<uint32_t> minus_one(uint32_t stack_plus_one) {
  return stack_plus_one == 0 ? std::nullopt : std::optional<uint32_t>(stack_plus_one - 1);
}

}  // namespace

void AllocationBucket::fold(uint32_t index, std::optional<uint32_t> free_stack, double time_ms) {
  HeldRow& held = held_.at(index);
  held.folded = true;
  const profile::NativeAllocation& row = held.row;
  auto [it, first] = folded_.try_emplace(
      {held.owner.image, held.owner.thread, plus_one(row.stack), plus_one(free_stack)});
  Folded& f = it->second;
  if (first) f.first_allocation_ms = row.time_ms;
  f.bytes += row.bytes;
  f.thread_id = row.thread_id;
  f.last_free_ms = std::max(f.last_free_ms, time_ms);
  ++folded_blocks_;
  folded_bytes_ += row.bytes;
}

uint64_t AllocationBucket::flush(profile::Profile& profile) {
  // The rows that stay, and one pair per folded call path: the allocation when its first block
  // was allocated, the free when its last was freed; then all in time order (stable: rows of
  // one time keep the order they were recorded in).
  std::vector<HeldRow> out;
  out.reserve(held_.size() + 2 * folded_.size());
  for (const auto& [key, f] : folded_) {
    const auto [image, thread, stack_plus_one, free_stack_plus_one] = key;
    const uint64_t address = next_folded_address_++;
    out.push_back(
        {{image, thread},
         {f.first_allocation_ms, f.bytes, minus_one(stack_plus_one), address, f.thread_id}});
    out.push_back(
        {{image, thread},
         {f.last_free_ms, -f.bytes, minus_one(free_stack_plus_one), address, f.thread_id}});
  }
  for (const HeldRow& held : held_) {
    if (!held.folded) out.push_back(held);
  }
  std::stable_sort(out.begin(), out.end(), [](const HeldRow& a, const HeldRow& b) {
    return a.row.time_ms < b.row.time_ms;
  });
  for (const HeldRow& r : out) {
    profile.processes[r.owner.image].threads[r.owner.thread].add_native_allocation(r.row);
  }
  held_.clear();
  folded_.clear();
  open_ = false;
  return out.size();
}

}  // namespace sprof::convert
