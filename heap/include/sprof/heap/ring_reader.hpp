// sprof/heap/ring_reader.hpp
//
// The consumer side of the heap ring (format and writer protocol: heap_ring_format.hpp). The
// ring lives in memory the profiled programs can write, so the reader trusts nothing in it:
//   - the configuration is validated and copied once, at open; later changes are ignored;
//   - the read position is the reader's own (it only publishes it to `read_tail`, every
//     sixteenth of the ring during a drain, so that writers waiting for room in record-all mode
//     see progress even while a long drain's visitor is slow, and at the end of each drain);
//   - a record counts only when its first word is the commit word for its position, and it is
//     copied out before its size and fields are checked (decode_record), so a writer changing
//     it meanwhile cannot make the reader read out of bounds;
//   - a record with a plausible size but bad fields is skipped and counted; an implausible size,
//     or a reservation that stays uncommitted longer than the stall timeout (its writer died or
//     is stopped), makes the reader resynchronise on the next committed record;
//   - a head further than one ring from the read position is counted and clamped.
//
// Threading: one thread drains a ring; writers may run concurrently in other processes.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/heap/heap_events.hpp"
#include "sprof/heap/heap_ring_format.hpp"

namespace sprof::heap {

struct DrainOptions {
  uint64_t now_ns = 0;  // the caller's monotonic clock, used to time stalled records
  uint64_t stall_timeout_ns = 1'000'000'000;
  // No writer will commit anything any more (every process that attached has exited): holes
  // are skipped at once.
  bool final = false;
  // Stop once records of this many bytes were visited (0: drain all there is): the recorder
  // copies a backlog out of the ring only as far as its own buffer for it has room.
  uint64_t max_bytes = 0;
};

struct RingReaderStats {
  uint64_t records = 0;  // decoded and passed to the visitor (by copy_records: copied out)
  // Committed, but decode_record rejected them (copy_records: the copy's size did not frame it).
  uint64_t malformed_records = 0;
  uint64_t resyncs = 0;        // times the reader searched for the next record
  uint64_t skipped_bytes = 0;  // ring bytes passed over by those searches
  uint64_t bad_heads = 0;      // drains that found write_head beyond one ring ahead
};

// A record as drained: the decoded event and the record's bytes (for dumps). Both valid only
// during the visit.
struct DrainedRecord {
  const HeapEvent& event;
  std::span<const uint8_t> bytes;
};

class RingReader {
 public:
  // `area` is the whole shared area (header and data). Errors: Errc::kMalformed naming the bad
  // configuration field.
  static Result<RingReader> open(std::span<uint8_t> area);

  // Visits committed records from the read position up to the current head, handing the space
  // back to writers as it goes. Returns the number of records visited.
  size_t drain(const DrainOptions& options, const std::function<void(const DrainedRecord&)>& visit);
  // Like drain, but appends the committed records' bytes to `out` undecoded, back to back as in
  // a heap dump (heap_dump.hpp), each framed by its header's size (checked again in the copy).
  // The caller decodes them later with decode_record, which checks everything else, and counts
  // what that rejects: here `stats().records` counts the records copied. `max_bytes` bounds
  // the bytes appended, passed by at most one record. Returns the bytes appended.
  uint64_t copy_records(const DrainOptions& options, std::vector<uint8_t>& out);
  // Tells writers that nothing will read the ring any more: record-all writers stop waiting for
  // room and drop (counted as dropped_reader_gone) instead of hanging on a full ring.
  void close_for_writers();

  const RingConfig& config() const { return config_; }
  // The totals the interposers keep in the header (plain numbers; a program can change them).
  RingCounters counters() const;
  // The header as it is now, with the configuration the reader validated at open.
  RingHeader header_snapshot() const;
  const RingReaderStats& stats() const { return stats_; }
  uint64_t position() const { return position_; }

 private:
  RingReader(std::span<uint8_t> area, const RingConfig& config);

  uint64_t load_word(uint64_t position) const;  // acquire
  // The n bytes at `position` as the data area holds them: up to its end, then from its start.
  std::array<std::span<const uint8_t>, 2> pieces(uint64_t position, size_t n) const;
  void copy_out(uint64_t position, size_t n, uint8_t* out) const;
  void append_out(uint64_t position, size_t n, std::vector<uint8_t>& out) const;
  // Plausible size of a record at `position` that may extend up to `limit`; 0 if none.
  uint32_t plausible_size(uint64_t position, uint64_t limit) const;
  bool committed(uint64_t position) const;
  // write_head, clamped to one ring ahead of the read position (a bad head is counted).
  uint64_t drain_head();
  // The size of the committed record at position_, after skipping holes that are final or
  // stalled too long; 0 when there is none (yet) before `head`.
  uint32_t next_committed(const DrainOptions& options, uint64_t head);
  // Moves past a record of `size` bytes that was copied out.
  void pass(uint32_t size);
  // Moves past a hole at position_: to the next committed record before `limit`, or to limit.
  void resync(uint64_t limit);
  void publish_tail();  // release: the bytes before position_ are copied out

  std::span<uint8_t> area_;
  RingConfig config_;
  RingHeader* header_;
  uint8_t* data_;
  uint64_t position_ = 0;
  uint64_t published_ = 0;  // the read_tail last stored
  uint64_t stalled_at_ = ~0ULL;
  uint64_t stalled_since_ns_ = 0;
  std::vector<uint8_t> scratch_;
  RingReaderStats stats_;
};

}  // namespace sprof::heap
