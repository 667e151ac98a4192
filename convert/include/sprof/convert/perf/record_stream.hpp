// sprof/convert/perf/record_stream.hpp
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

#include "sprof/convert/perf/event_table.hpp"
#include "sprof/convert/perf/record_merger.hpp"
#include "sprof/convert/perf/record_parser.hpp"

namespace sprof::convert::perf {

class RecordStream {
 public:
  struct Stats {
    uint64_t records = 0;            // decoded records handed to the merger
    uint64_t malformed_records = 0;  // parse_record said Errc::kMalformed; skipped
    uint64_t skipped_records = 0;    // record types sprof does not decode
    uint64_t late_records = 0;       // emitted after newer records (see RecordMerger)
  };

  explicit RecordStream(EventTable events) : events_(std::move(events)) {}

  // Decodes `raw` (which need only live for the call) into the current round.
  void add(RawRecord raw);
  // Emits, in time order, what the merge can release after this round.
  void end_round(const RecordSink& sink) { merger_.end_round(sink); }
  // Emits everything still buffered, in time order.
  void flush(const RecordSink& sink) { merger_.flush(sink); }

  EventTable& events() { return events_; }
  const EventTable& events() const { return events_; }
  Stats stats() const;

 private:
  EventTable events_;
  RecordMerger merger_;
  Stats stats_;
};

}  // namespace sprof::convert::perf
