// sprof/perf/record_merger.hpp
//
// Puts the records of several per-CPU ring buffers into one time-ordered stream without dropping
// anything (samply's / perf's "finished round" merge, not a fixed-delay heuristic).
//
// Reading happens in rounds: each round drains every ring once and `add`s what it read, then
// calls `end_round`. Within one ring records are (nearly) in time order, but across rings a
// record read in the next round may be older than one read in this round, because a CPU writes
// its record slightly after taking the timestamp and we read the rings one after another. perf's
// rule (tools/perf/util/ordered-events.c, "finished round") bounds that: after round N, every
// record older than the newest timestamp seen in round N-1 has been read. So `end_round` emits,
// in time order, everything up to the previous round's maximum and keeps the rest buffered;
// `flush` emits everything at the end.
//
// Nothing is ever dropped: a record that still arrives older than what was already emitted goes
// out with the next round, out of order, and is counted in `late_records`.
//
// Pure; one instance per recording, used from the reading thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "sprof/perf/records.hpp"

namespace sprof::perf {

// Receives merged records. A callable taking `const Record&` works too.
using RecordSink = std::function<void(Record&&)>;

class RecordMerger {
 public:
  // Buffers one record read in the current round. Records with equal timestamps keep the
  // order in which they were added.
  void add(Record record);

  // Ends the current round: emits, in time order, every buffered record not newer than the
  // newest timestamp of the previous round.
  void end_round(const RecordSink& sink);

  // Emits everything still buffered, in time order (end of recording).
  void flush(const RecordSink& sink);
  // A source stopped this round before the end of what it holds (a bounded read of a backlog),
  // and what it still holds is not older than `time`: the next round's watermark stays at or
  // below it, so records read later from that source still come out in order.
  void hold_from(uint64_t time) { hold_from_ = std::min(hold_from_, time); }

  size_t buffered() const { return ready_.size() - ready_head_ + round_.size(); }
  // Records are numbered in the order they are added; the next one gets this number.
  uint64_t next_sequence() const { return next_sequence_; }
  // Makes every buffered record numbered below `sequence` own its stack copy (a source that
  // lent the bytes is about to reuse them). Returns how many had borrowed bytes.
  size_t own_stacks_added_before(uint64_t sequence);
  // Records that arrived older than records already emitted; they were emitted, out of order.
  uint64_t late_records() const { return late_records_; }

 private:
  // Small keys are ordered; the records stay in their slots, so each is moved once in and once
  // out (a sample record is ~200 bytes with its vectors).
  struct Entry {
    uint64_t time;
    uint64_t sequence;
    uint32_t slot;
  };
  // Sorts the round's entries and merges them into `ready_`. A round is a few ordered runs (one
  // per ring), so sorting it and merging once costs far less than a heap step per record: a
  // record-all recording drains a million records in one round after the program exits, and
  // the heap's pushes and pops were a sixth of sprof's time there.
  void merge_round();
  void emit_up_to(uint64_t watermark, const RecordSink& sink);

  std::vector<Entry> round_;  // added in the current round, in the order added
  std::vector<Entry> ready_;  // sorted on (time, sequence); ready_[ready_head_] is the oldest
  size_t ready_head_ = 0;
  std::vector<Entry> merged_;  // scratch for merge_round, kept for its capacity
  // A deque: growing it never moves the records already buffered (a record-all recording
  // buffers a million of them, and relocating a vector of variants was a fifth of its time).
  std::deque<Record> slots_;
  std::vector<uint32_t> free_slots_;
  uint64_t next_sequence_ = 0;
  uint64_t round_max_time_ = 0;  // newest timestamp added in the current round
  uint64_t seen_max_ = 0;        // ... in every round before it
  // What the next round may emit: seen_max_, or less where a source held back (hold_from).
  uint64_t release_up_to_ = 0;
  uint64_t hold_from_ = UINT64_MAX;  // hold_from's bound for this round
  uint64_t emitted_up_to_ = 0;       // timestamp of the newest record emitted so far
  bool emitted_any_ = false;
  uint64_t late_records_ = 0;
};

}  // namespace sprof::perf
