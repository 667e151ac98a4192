// recorder/src/perf/ring_record_source.hpp
//
// The live record source: the per-CPU ring buffers of a recording, read in rounds. Each
// `read_available` reads every ring once into a `RecordStream` (decoded with the layout of the
// event that wrote each record, merged across CPUs) and emits what the merge can release;
// `flush_all` reads once more and emits the rest. Pure over the rings' memory, so tests run it
// on heap rings.
//
// Samples are parsed in place: their stack copies (16 KiB each by default) borrow the ring's
// bytes instead of being copied out, and a ring's space goes back to the kernel one round late.
// The merge emits most records of a round by the end of the next one (RecordMerger), and when
// round N ends, what round N-1 read is handed back. Before that, anything that still holds
// those bytes makes a copy of its own: records the merger still buffers (samples that wait
// while an extra input works through a backlog, below) and, through `set_before_release`,
// records the sink kept (the converter's context-switch sample waiting for its switch record).
//
// An extra input (the allocation ring) may hold more than one round should carry: a record-all
// program can fill 64 MiB faster than sprof reads it. It is read in bounded rounds, and says
// from when on it still holds records (`RoundInput::read_round`); the merge then releases
// nothing newer (RecordMerger::hold_from), so its records still come out in time order with
// the rings' (a process's exit after its last allocations).
//
// Threading: the reading thread only, like the rings.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "perf/ring_buffer.hpp"
#include "sprof/convert/record_source.hpp"
#include "sprof/perf/event_table.hpp"
#include "sprof/perf/record_stream.hpp"

namespace sprof::recorder::perf {

// Counters of the reading side. Lost/throttled records are data and reach the sink instead.
struct ReaderStats {
  uint64_t records = 0;            // decoded records handed to the merger
  uint64_t malformed_records = 0;  // parse_record said Errc::kMalformed; skipped
  uint64_t skipped_records = 0;    // record types we do not decode
  uint64_t ring_corruptions = 0;   // impossible headers; the rest of that ring read was dropped
  uint64_t late_records = 0;       // emitted after newer records (see RecordMerger)
};

// Records that are read in the same rounds as the rings but come from elsewhere (the
// allocation ring of --heap): each round drains the rings, then every extra input, so the merge
// orders all of them by time.
class RoundInput {
 public:
  virtual ~RoundInput() = default;
  // Adds what is ready now through `add`. An input that stopped before the end of what it holds
  // (a bounded round over a backlog) returns the time of the last record it added: what it
  // still holds is not older, so the merge must not release anything newer yet.
  virtual std::optional<uint64_t> read_round(
      const std::function<void(sprof::perf::Record&&)>& add) = 0;
};

class RingRecordSource final : public convert::RecordSource {
 public:
  struct Ring {
    uint32_t cpu = 0;
    RingBuffer* ring = nullptr;  // not owned; outlives the source
  };
  RingRecordSource(std::vector<Ring> rings, sprof::perf::EventTable events);

  // One round over every ring and input. Always true: the rings end when the recording does.
  bool read_available(const sprof::perf::RecordSink& sink) override;
  // The last round left records in an input (a backlog read in bounded rounds): the caller
  // should come back at once rather than wait for the next wakeup.
  bool behind() const { return behind_; }
  void flush_all(const sprof::perf::RecordSink& sink) override;

  // Also reads `input` (not owned; it outlives the source) in every round.
  void add_round_input(RoundInput& input) { inputs_.push_back(&input); }
  // Runs before ring space is handed back to the kernel; see the file comment.
  void set_before_release(std::function<void()> hook) { before_release_ = std::move(hook); }

  // Which event wrote a record: ids of events opened later are added here.
  sprof::perf::EventTable& events() { return stream_.events(); }
  const sprof::perf::EventTable& events() const { return stream_.events(); }
  ReaderStats stats() const;

 private:
  // True when an input stopped before the end of what it holds.
  bool read_round();
  // Hands back what was read before the previous round's end (all of it when `everything`).
  void release(bool everything);

  std::vector<Ring> rings_;
  std::vector<RoundInput*> inputs_;
  sprof::perf::RecordStream stream_;
  std::function<void()> before_release_;
  std::vector<uint64_t> round_marks_;  // per ring: its read position when the last round ended
  uint64_t round_mark_sequence_ = 0;   // the stream's next record number then
  bool behind_ = false;
};

}  // namespace sprof::recorder::perf
