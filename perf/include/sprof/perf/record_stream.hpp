// sprof/perf/record_stream.hpp
//
// Raw perf records in, typed records out in time order: what every source that holds record
// bytes (the live ring buffers, a perf.data file) does with them. Each record is decoded with
// the layout of the event that wrote it (`EventTable`), a context-switch event's samples are
// marked as such, and everything goes through the round-based merge (`RecordMerger`): `add` the
// records of a round (one pass over every ring; a file's records up to PERF_RECORD_FINISHED_ROUND),
// then `end_round`; `flush` at the end. Malformed records and record types sprof does not decode
// are counted and skipped, never fatal.
#pragma once

#include <cstdint>
#include <unordered_set>

#include "sprof/perf/event_table.hpp"
#include "sprof/perf/record_merger.hpp"
#include "sprof/perf/record_parser.hpp"

namespace sprof::perf {

class RecordStream {
 public:
  struct Stats {
    uint64_t records = 0;              // decoded records handed to the merger
    uint64_t malformed_records = 0;    // parse_record said Errc::kMalformed; skipped
    uint64_t skipped_records = 0;      // record types sprof does not decode
    uint64_t other_event_samples = 0;  // samples of EventRole::kOther events; skipped
    uint64_t late_records = 0;         // emitted after newer records (see RecordMerger)
  };

  explicit RecordStream(EventTable events);

  // Decodes `raw` into the current round. `raw` need only live for the call unless `stack` is
  // StackCopy::kBorrow: then its bytes must outlive every record emitted (parse_record).
  void add(RawRecord raw, StackCopy stack = StackCopy::kCopy);
  // Adds a record another reader decoded (sprof's allocation ring) to the current round, so it
  // is ordered with the perf records by the same merge.
  void add_decoded(Record record);
  // Emits, in time order, what the merge can release after this round.
  void end_round(const RecordSink& sink) { merger_.end_round(sink); }
  // Emits everything still buffered, in time order.
  void flush(const RecordSink& sink) { merger_.flush(sink); }
  // See RecordMerger::hold_from.
  void hold_from(uint64_t time) { merger_.hold_from(time); }

  // The merger's numbering of added records, and its copy-out of borrowed stacks
  // (RecordMerger::own_stacks_added_before): a source that lends its bytes (kBorrow) marks where
  // a round ends and, before reusing that round's bytes, makes what is still buffered own them.
  uint64_t next_sequence() const { return merger_.next_sequence(); }
  size_t own_stacks_added_before(uint64_t sequence) {
    return merger_.own_stacks_added_before(sequence);
  }

  EventTable& events() { return events_; }
  const EventTable& events() const { return events_; }
  Stats stats() const;

 private:
  // A side-band CPU-wide switch record that can matter: a switch-out from or to a task of a
  // process that has records of its own (ProfileConverter::note_cpu_wide_switch_out). The others,
  // most of them on a busy machine, are dropped before the merge; they are not losses.
  bool wanted_side_band_switch(const SwitchRecord& r) const;

  EventTable events_;
  RecordMerger merger_;
  Stats stats_;
  bool switch_side_band_ = false;
  std::unordered_set<uint32_t> pids_;  // processes seen in per-task records
  uint32_t last_pid_ = 0;
};

}  // namespace sprof::perf
