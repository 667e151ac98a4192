#include "sprof/perf/record_merger.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace sprof::perf {

namespace {

template <typename Entry>
bool earlier(const Entry& a, const Entry& b) {
  if (a.time != b.time) return a.time < b.time;
  return a.sequence < b.sequence;
}

}  // namespace

void RecordMerger::add(Record record) {
  const uint64_t time = record_time(record);
  if (emitted_any_ && time < emitted_up_to_) ++late_records_;
  round_max_time_ = std::max(round_max_time_, time);
  uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.push_back(std::move(record));
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[slot] = std::move(record);
  }
  round_.push_back(Entry{time, next_sequence_++, slot});
}

void RecordMerger::end_round(const RecordSink& sink) {
  // Everything read in the round before last is safe now; see the class comment.
  const uint64_t watermark = release_up_to_;
  seen_max_ = std::max(seen_max_, round_max_time_);
  release_up_to_ = std::min(seen_max_, hold_from_);
  round_max_time_ = 0;
  hold_from_ = UINT64_MAX;
  merge_round();
  emit_up_to(watermark, sink);
}

void RecordMerger::flush(const RecordSink& sink) {
  merge_round();
  emit_up_to(UINT64_MAX, sink);
  seen_max_ = std::max(seen_max_, round_max_time_);
  release_up_to_ = seen_max_;
  round_max_time_ = 0;
  hold_from_ = UINT64_MAX;
}

size_t RecordMerger::own_stacks_added_before(uint64_t sequence) {
  size_t owned = 0;
  auto own = [&](const Entry& entry) {
    if (entry.sequence >= sequence) return;
    if (auto* sample = std::get_if<SampleRecord>(&slots_[entry.slot])) {
      if (sample->stack_user.borrowed()) {
        sample->stack_user.own();
        ++owned;
      }
    }
  };
  std::for_each(ready_.begin() + static_cast<std::ptrdiff_t>(ready_head_), ready_.end(), own);
  std::for_each(round_.begin(), round_.end(), own);
  return owned;
}

void RecordMerger::merge_round() {
  if (round_.empty()) return;
  // Entries were numbered as added, so within a run of equal times they are already in order.
  if (!std::is_sorted(round_.begin(), round_.end(), earlier<Entry>)) {
    std::sort(round_.begin(), round_.end(), earlier<Entry>);
  }
  const auto waiting = ready_.begin() + static_cast<std::ptrdiff_t>(ready_head_);
  if (waiting == ready_.end() || !earlier(round_.front(), ready_.back())) {
    // Nothing waiting, or the whole round is newer: append (the common case).
    ready_.erase(ready_.begin(), waiting);
    ready_.insert(ready_.end(), round_.begin(), round_.end());
  } else {
    merged_.clear();
    merged_.reserve(static_cast<size_t>(ready_.end() - waiting) + round_.size());
    std::merge(waiting, ready_.end(), round_.begin(), round_.end(), std::back_inserter(merged_),
               earlier<Entry>);
    ready_.swap(merged_);
  }
  ready_head_ = 0;
  round_.clear();
}

void RecordMerger::emit_up_to(uint64_t watermark, const RecordSink& sink) {
  while (ready_head_ < ready_.size() && ready_[ready_head_].time <= watermark) {
    const Entry entry = ready_[ready_head_++];
    emitted_up_to_ = std::max(emitted_up_to_, entry.time);
    emitted_any_ = true;
    sink(std::move(slots_[entry.slot]));
    slots_[entry.slot] = Record{};  // releases what the sink left (e.g. a stack copy)
    free_slots_.push_back(entry.slot);
  }
}

}  // namespace sprof::perf
