#include "sprof/heap/heap_analysis.hpp"

namespace sprof::heap {

namespace {

// Byte sums of a profile's rows, which a report reads from files it did not write: wrapping,
// not undefined, when forged weights overflow (a recording's sizes are below 2^57).
void add_bytes(int64_t& sum, int64_t bytes) {
  sum = static_cast<int64_t>(static_cast<uint64_t>(sum) + static_cast<uint64_t>(bytes));
}

}  // namespace

SiteStats& HeapAnalysis::site(uint32_t id) {
  if (id >= sites_.size()) {
    sites_.resize(size_t{id} + 1);
    site_changed_.resize(size_t{id} + 1, false);
  }
  return sites_[id];
}

void HeapAnalysis::allocate(const AllocationEvent& e) {
  if (live_.contains(e.space, e.address)) {
    // The address was handed out again, so its block was freed and the free's record was lost:
    // it ends now, as the converter's tables show it (native_allocations.hpp).
    free({e.time_ms, e.space, e.thread, e.address});
  }
  SiteStats& s = site(e.site);
  for (SiteStats* stats : {&s, &totals_.all}) {
    add_bytes(stats->bytes, e.bytes);
    if (e.folded) {
      ++stats->folded_rows;
      add_bytes(stats->folded_bytes, e.bytes);
    } else {
      stats->calls += e.calls;
      stats->calls_variance += e.calls * e.calls - e.calls;
      ++stats->records;
    }
  }
  if (!e.folded) totals_.sizes[size_bucket(e.size)] += e.calls;
  const uint64_t serial = next_serial_++;
  // A folded row is not one call, but the thread did allocate in between.
  last_allocation_[e.thread] = e.folded ? 0 : serial;
  live_.insert(e.space, e.address, Block{e.time_ms, e.calls, e.bytes, serial, e.site, e.folded});
  change_live(e.site, e.bytes);
  if (totals_.all.live_bytes > totals_.all.peak_bytes) {
    totals_.all.peak_bytes = totals_.all.live_bytes;
    totals_.peak_time_ms = e.time_ms;
    peak_pending_ = true;
  }
}

void HeapAnalysis::free(const FreeEvent& e) {
  const std::optional<Block> freed = live_.take(e.space, e.address);
  if (!freed) {
    ++totals_.unmatched_frees;
    return;
  }
  const Block& b = *freed;
  uint64_t& last = last_allocation_[e.thread];
  const bool temporary = last == b.serial;
  last = 0;
  if (!b.folded) {
    const double lifetime_ms = e.time_ms - b.time_ms;
    SiteStats& s = site(b.site);
    for (SiteStats* stats : {&s, &totals_.all}) {
      if (temporary) stats->temporary += b.calls;
      stats->freed += b.calls;
      stats->lifetime_ms_sum += b.calls * lifetime_ms;
      if (lifetime_ms < kShortLivedMs) stats->short_lived += b.calls;
    }
  }
  take_peak_snapshot();
  change_live(b.site, -b.bytes);  // a block's bytes are never negative
}

void HeapAnalysis::end_space(uint64_t space) {
  take_peak_snapshot();
  live_.end_space(space, [&](uint64_t, const Block& b) { leak(b); });
}

void HeapAnalysis::finish() {
  take_peak_snapshot();
  live_.end_all([&](uint64_t, uint64_t, const Block& b) { leak(b); });
  take_peak_snapshot();
}

void HeapAnalysis::leak(const Block& b) {
  SiteStats& s = site(b.site);
  for (SiteStats* stats : {&s, &totals_.all}) {
    add_bytes(stats->leaked_bytes, b.bytes);
    ++stats->leaked_blocks;
  }
  // The address space is gone: its memory no longer counts as live.
  change_live(b.site, -b.bytes);  // a block's bytes are never negative
}

void HeapAnalysis::change_live(uint32_t id, int64_t delta) {
  add_bytes(site(id).live_bytes, delta);
  add_bytes(totals_.all.live_bytes, delta);
  if (!site_changed_[id]) {
    site_changed_[id] = true;
    changed_sites_.push_back(id);
  }
}

void HeapAnalysis::take_peak_snapshot() {
  if (!peak_pending_) return;
  peak_pending_ = false;
  // Sites unchanged since the last snapshot still hold what they held then.
  for (uint32_t id : changed_sites_) {
    sites_[id].peak_bytes = sites_[id].live_bytes;
    site_changed_[id] = false;
  }
  changed_sites_.clear();
}

}  // namespace sprof::heap
