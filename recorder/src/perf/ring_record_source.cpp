#include "perf/ring_record_source.hpp"

namespace sprof::recorder::perf {

RingRecordSource::RingRecordSource(std::vector<Ring> rings, sprof::perf::EventTable events)
    : rings_(std::move(rings)), stream_(std::move(events)) {
  for (const Ring& r : rings_) round_marks_.push_back(r.ring->read_position());
}

namespace {

// Rounds flush_all runs over a backlog: more than a full record-all ring and sprof's backlog hold
// (2 x 64 MiB of 40-byte frees at most: 3.4 M records; at the heap input's 8 Ki records a round,
// 2,048 rounds read 16 M), and still a bound when a program that is left running writes faster
// than it is read.
constexpr int kMaxFlushRounds = 2048;

}  // namespace

bool RingRecordSource::read_round() {
  for (const Ring& r : rings_) {
    RingBuffer& ring = *r.ring;
    ring.read([this, &ring](sprof::perf::RawRecord raw) {
      // A record that wraps the end of the ring is visited from a scratch copy reused for the
      // next one: only records in the ring can lend their bytes.
      stream_.add(raw, ring.in_ring(raw.bytes) ? sprof::perf::StackCopy::kBorrow
                                               : sprof::perf::StackCopy::kCopy);
    });
  }
  bool held = false;
  for (RoundInput* input : inputs_) {
    const auto hold =
        input->read_round([this](sprof::perf::Record&& r) { stream_.add_decoded(std::move(r)); });
    if (hold) {
      stream_.hold_from(*hold);
      held = true;
    }
  }
  return held;
}

void RingRecordSource::release(bool everything) {
  stream_.own_stacks_added_before(everything ? stream_.next_sequence() : round_mark_sequence_);
  if (before_release_) before_release_();
  for (size_t i = 0; i < rings_.size(); ++i) {
    RingBuffer& ring = *rings_[i].ring;
    ring.release_to(everything ? ring.read_position() : round_marks_[i]);
    round_marks_[i] = ring.read_position();
  }
  round_mark_sequence_ = stream_.next_sequence();
}

bool RingRecordSource::read_available(const sprof::perf::RecordSink& sink) {
  // One round only, also over a backlog: the caller checks between rounds whether the command
  // has exited, and the time it sees that is the recording's end.
  behind_ = read_round();
  stream_.end_round(sink);
  release(false);
  return true;
}

void RingRecordSource::flush_all(const sprof::perf::RecordSink& sink) {
  // A backlog is read in bounded rounds too, so the merge never holds all of it at once.
  bool held = read_round();
  for (int round = 1; held && round < kMaxFlushRounds; ++round) {
    stream_.end_round(sink);
    release(false);
    held = read_round();
  }
  behind_ = held;
  stream_.flush(sink);
  release(true);
}

ReaderStats RingRecordSource::stats() const {
  const auto decoded = stream_.stats();
  ReaderStats s;
  s.records = decoded.records;
  s.malformed_records = decoded.malformed_records;
  s.skipped_records = decoded.skipped_records;
  s.late_records = decoded.late_records;
  for (const Ring& r : rings_) s.ring_corruptions += r.ring->corruptions();
  return s;
}

}  // namespace sprof::recorder::perf
