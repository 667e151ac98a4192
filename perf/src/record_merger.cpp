#include "sprof/perf/record_merger.hpp"

#include <algorithm>
#include <utility>

namespace sprof::perf {

namespace {

// std::push_heap builds a max-heap; "greater" puts the oldest (then first added) on top.
template <typename Entry>
bool later(const Entry& a, const Entry& b) {
  if (a.time != b.time) return a.time > b.time;
  return a.sequence > b.sequence;
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
  heap_.push_back(Entry{time, next_sequence_++, slot});
  std::push_heap(heap_.begin(), heap_.end(), later<Entry>);
}

void RecordMerger::end_round(const RecordSink& sink) {
  // Everything read in the round before last is safe now; see the class comment.
  const uint64_t watermark = previous_round_max_;
  previous_round_max_ = std::max(previous_round_max_, round_max_time_);
  round_max_time_ = 0;
  emit_up_to(watermark, sink);
}

void RecordMerger::flush(const RecordSink& sink) {
  emit_up_to(UINT64_MAX, sink);
  previous_round_max_ = std::max(previous_round_max_, round_max_time_);
  round_max_time_ = 0;
}

size_t RecordMerger::own_stacks_added_before(uint64_t sequence) {
  size_t owned = 0;
  for (const Entry& entry : heap_) {
    if (entry.sequence >= sequence) continue;
    if (auto* sample = std::get_if<SampleRecord>(&slots_[entry.slot])) {
      if (sample->stack_user.borrowed()) {
        sample->stack_user.own();
        ++owned;
      }
    }
  }
  return owned;
}

void RecordMerger::emit_up_to(uint64_t watermark, const RecordSink& sink) {
  while (!heap_.empty() && heap_.front().time <= watermark) {
    std::pop_heap(heap_.begin(), heap_.end(), later<Entry>);
    const Entry entry = heap_.back();
    heap_.pop_back();
    emitted_up_to_ = std::max(emitted_up_to_, entry.time);
    emitted_any_ = true;
    sink(std::move(slots_[entry.slot]));
    slots_[entry.slot] = Record{};  // releases what the sink left (e.g. a stack copy)
    free_slots_.push_back(entry.slot);
  }
}

}  // namespace sprof::perf
