// heap/src/interposer/ring_writer.hpp
//
// The producer side of the heap ring (format: sprof/heap/heap_ring_format.hpp). Any number of
// threads in any number of processes write concurrently; none ever waits for another:
//   - `reserve` claims [head, head + size) with a CAS on `write_head`, only while the reader has
//     handed back enough space (`read_tail`, loaded with acquire so the reader is done with the
//     bytes before they are overwritten); otherwise the record is dropped and counted. In
//     record-all mode (`wait_when_full`) a full ring makes the writer wait for the reader
//     instead, since the point of that mode is that nothing is missing; a reader that frees no
//     space for kMaxWaitWithoutProgressNs is taken to be gone, and from then on this process
//     drops like sampled mode;
//   - `write` copies bytes at an offset inside the reservation, splitting at the end of the
//     data area;
//   - `commit` stores the record's commit word with release order, publishing everything
//     written before it.
// A writer that dies between reserve and commit leaves a hole the reader skips after a timeout.
//
// Pure over memory (tests run it on a heap buffer) and allocation-free.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sprof/heap/heap_ring_format.hpp"

namespace sprof::heap::interposer {

class RingWriter {
 public:
  // `data_bytes` comes from a configuration accepted by ring_config_problem(), read once: the
  // writer never re-reads the shared configuration (the program could have changed it).
  void init(RingHeader* header, uint8_t* data, uint64_t data_bytes, bool wait_when_full);

  // Claims `size` bytes (a multiple of 8, at most the data size). False when the ring lacks
  // room (and, waiting, the reader made none), after counting the drop in the header.
  bool reserve(uint32_t size, uint64_t& position);
  void write(uint64_t position, uint32_t offset, const void* bytes, size_t n);
  void commit(uint64_t position);

  // The header's second word and the event fields, written right after reserving.
  void begin_record(uint64_t position, uint32_t size, RecordKind kind, uint16_t flags,
                    const EventFields& event);
  void set_flags(uint64_t position, uint32_t size, RecordKind kind, uint16_t flags);

  RingHeader* header() const { return header_; }

  // How long a waiting writer lets the reader free no space before it stops waiting for good.
  static constexpr uint64_t kMaxWaitWithoutProgressNs = 1'000'000'000;

 private:
  enum class Claim : uint8_t { kClaimed, kFull, kContended };
  Claim try_reserve(uint32_t size, uint64_t& position);
  // Waits a little for the reader; false once it has made no room for too long.
  bool wait_for_reader(uint32_t naps, uint64_t& last_tail, uint64_t& progress_ns);

  // No member initialisers: a RingWriter lives in .bss and must need no constructor (see
  // interposer.hpp).
  RingHeader* header_;
  uint8_t* data_;
  uint64_t data_bytes_;
  uint8_t wait_when_full_;  // atomically cleared when the reader seems gone
};

}  // namespace sprof::heap::interposer
