#include "sprof/convert/native_allocations.hpp"

#include <algorithm>
#include <cmath>

#include "sprof/heap/sample_weight.hpp"

namespace sprof::convert {

namespace {

// Memory counter changes closer than this are one counter sample: the track stays small even
// in record-all mode, and a millisecond is below what a memory graph shows.
constexpr double kCounterBucketMs = 1.0;

profile::Counter memory_counter(uint64_t sample_interval_bytes) {
  profile::Counter c;
  c.name = "malloc";
  c.category = "Memory";  // the front end draws "Memory" counters as a memory track
  c.description = sample_interval_bytes == 0
                      ? "Bytes allocated with malloc & co and not freed yet"
                      : "Bytes allocated with malloc & co and not freed yet, estimated from "
                        "sampled allocations";
  return c;
}

}  // namespace

NativeAllocations::NativeAllocations(uint64_t sample_interval_bytes, HeapStats& stats,
                                     FoldingOptions folding)
    : sample_interval_bytes_(sample_interval_bytes), folding_(folding), stats_(stats) {
  stats_.enabled = true;
  stats_.sample_interval_bytes = sample_interval_bytes;
}

int64_t NativeAllocations::weight(uint64_t size) const {
  return std::llround(heap::estimated_bytes(size, sample_interval_bytes_));
}

void NativeAllocations::allocate(profile::Profile& profile, AllocationOwner owner,
                                 const perf::HeapAllocRecord& r, std::optional<uint32_t> stack,
                                 double time_ms) {
  advance_bucket(profile, time_ms);
  heap::AllocationEvent event;
  event.time_ms = time_ms;
  event.space = r.id.pid;
  event.thread = r.id.tid;
  event.address = r.address;
  event.size = r.size;
  event.bytes = weight(r.size);
  event.calls = heap::estimated_calls(r.size, sample_interval_bytes_);
  analysis_.allocate(event);
  // Only an allocation raises the peak: the stats keep it current between records.
  stats_.peak_live_bytes = analysis_.totals().all.peak_bytes;
  stats_.peak_time_ms = analysis_.totals().peak_time_ms;
  if (const std::optional<Block> old = live_.take(r.id.pid, r.address)) {
    // glibc handed the address out again, so the block was freed; its record was lost.
    ++stats_.lost_frees;
    release(profile, r.address, *old, r.id.tid, std::nullopt, time_ms);
  }
  Block block{owner, stack, weight(r.size)};
  ++stats_.allocations;
  stats_.estimated_bytes += block.bytes;
  if (auto held = add_row(profile, owner, {time_ms, block.bytes, stack, r.address, r.id.tid})) {
    block.held_in_bucket = bucket_serial_;
    block.held_index = *held;
  }
  change_live(profile, owner.image, block.bytes, time_ms);
  // An untracked block's free will never come: it stays live, as the front end will show it.
  live_.insert(r.id.pid, r.address, block);
}

std::optional<AllocationOwner> NativeAllocations::owner_of(uint32_t pid, uint64_t address) const {
  const Block* block = live_.find(pid, address);
  if (block == nullptr) return std::nullopt;
  return block->owner;
}

void NativeAllocations::free(profile::Profile& profile, const perf::HeapFreeRecord& r,
                             double time_ms, std::optional<uint32_t> stack) {
  advance_bucket(profile, time_ms);
  analysis_.free({time_ms, r.id.pid, r.id.tid, r.address});
  const std::optional<Block> block = live_.take(r.id.pid, r.address);
  if (!block) {
    ++stats_.unmatched_frees;
    return;
  }
  ++stats_.frees;
  release(profile, r.address, *block, r.id.tid, stack, time_ms);
}

void NativeAllocations::release(profile::Profile& profile, uint64_t address, const Block& block,
                                int64_t tid, std::optional<uint32_t> free_stack, double time_ms) {
  if (block.held_in_bucket != 0 && block.held_in_bucket == bucket_serial_) {
    bucket_.fold(block.held_index, free_stack, time_ms);  // allocated and freed within the bucket
  } else {
    add_row(profile, block.owner, {time_ms, -block.bytes, free_stack, address, tid});
  }
  change_live(profile, block.owner.image, -block.bytes, time_ms);
}

std::optional<uint32_t> NativeAllocations::add_row(profile::Profile& profile, AllocationOwner owner,
                                                   const profile::NativeAllocation& row) {
  if (bucket_.is_open()) return bucket_.hold(owner, row);
  profile.processes[owner.image].threads[owner.thread].add_native_allocation(row);
  ++rows_written_;
  return std::nullopt;
}

void NativeAllocations::advance_bucket(profile::Profile& profile, double time_ms) {
  if (bucket_.is_open() && time_ms < bucket_.end_ms()) return;
  flush_bucket(profile);
  if (rows_written_ < folding_.exact_rows) return;
  if (stats_.folding_from_ms < 0) {
    stats_.folding_from_ms = time_ms;
    stats_.folding_bucket_ms = folding_.bucket_ms;
  }
  bucket_.open(time_ms + folding_.bucket_ms);
  ++bucket_serial_;
}

void NativeAllocations::flush_bucket(profile::Profile& profile) {
  if (!bucket_.is_open()) return;
  rows_written_ += bucket_.flush(profile);
  stats_.folded_blocks = bucket_.folded_blocks();
  stats_.folded_bytes = bucket_.folded_bytes();
}

void NativeAllocations::change_live(profile::Profile& profile, size_t image, int64_t delta,
                                    double time_ms) {
  auto [it, inserted] = counters_.try_emplace(image);
  CounterState& c = it->second;
  if (inserted) {
    auto& counters = profile.processes[image].counters;
    c.counter = counters.size();
    counters.push_back(memory_counter(sample_interval_bytes_));
  }
  if (c.pending_number > 0 && time_ms - c.pending_start_ms >= kCounterBucketMs) {
    flush_counter(profile, image, c);
  }
  if (c.pending_number == 0) c.pending_start_ms = time_ms;
  c.pending_time_ms = std::max(c.pending_time_ms, time_ms);
  c.pending_count += delta;
  ++c.pending_number;
}

void NativeAllocations::flush_counter(profile::Profile& profile, size_t image, CounterState& c) {
  if (c.pending_number == 0) return;
  profile.processes[image].counters[c.counter].samples.push_back(
      {c.pending_time_ms, c.pending_count, c.pending_number});
  c.pending_count = 0;
  c.pending_number = 0;
}

void NativeAllocations::end_image(uint32_t pid, double time_ms) {
  (void)time_ms;  // the blocks stay allocated in the tables: that is what "retained" shows
  analysis_.end_space(pid);
  live_.end_space(pid, [&](uint64_t, const Block& block) { retain(block); });
}

void NativeAllocations::retain(const Block& b) {
  ++blocks_visited_at_image_end_;
  const auto key = std::tuple{b.owner.image, b.owner.thread, b.stack ? *b.stack + 1 : 0U};
  RetainedSite& site = retained_[key];
  site.image = b.owner.image;
  site.thread = b.owner.thread;
  site.stack = b.stack;
  site.bytes += b.bytes;
  ++site.blocks;
  stats_.live_at_exit_bytes += b.bytes;
  ++stats_.live_at_exit_blocks;
}

void NativeAllocations::note_exec(uint32_t pid, size_t image, const std::string& name) {
  exec_images_[pid] = {image, name};
  unhooked_[image] = name;
  ++stats_.programs;
}

void NativeAllocations::note_attach(const perf::HeapAttachRecord& r) {
  if (r.malloc_bypassed) malloc_bypassed_.insert(r.executable);
  if (r.foreign_operator_new) foreign_operator_new_.insert(r.executable);
  if (r.running) ++stats_.running_attaches;
  if (r.fork || r.running) return;  // a fork child of a program that loaded it; or no exec
  auto it = exec_images_.find(r.id.pid);
  if (it != exec_images_.end()) unhooked_.erase(it->second.first);
}

void NativeAllocations::finish(profile::Profile& profile, double end_ms) {
  (void)end_ms;  // as in end_image
  flush_bucket(profile);
  live_.end_all([&](uint64_t, uint64_t, const Block& block) { retain(block); });
  for (auto& [image, c] : counters_) flush_counter(profile, image, c);
  complete_analysis();

  stats_.retained.clear();
  for (const auto& [key, site] : retained_) stats_.retained.push_back(site);
  std::stable_sort(stats_.retained.begin(), stats_.retained.end(),
                   [](const RetainedSite& a, const RetainedSite& b) { return a.bytes > b.bytes; });
  stats_.unhooked_programs.clear();
  for (const auto& [image, name] : unhooked_) stats_.unhooked_programs.push_back(name);
  stats_.malloc_bypassed_programs.assign(malloc_bypassed_.begin(), malloc_bypassed_.end());
  stats_.foreign_operator_new_programs.assign(foreign_operator_new_.begin(),
                                              foreign_operator_new_.end());
}

void NativeAllocations::complete_analysis() {
  analysis_.finish();
  const heap::HeapTotals& t = analysis_.totals();
  stats_.temporary = t.all.temporary;
  stats_.freed_blocks = t.all.freed;
  stats_.mean_lifetime_ms = t.all.average_lifetime_ms();
  stats_.short_lived = t.all.short_lived;
  stats_.sizes = t.sizes;
}

}  // namespace sprof::convert
