// heap/src/interposer/ring_writer.hpp
//
// The producer side of the heap ring (format: sprof/heap/heap_ring_format.hpp). Any number of
// threads in any number of processes write concurrently; none ever waits for another:
//   - `reserve` claims [head, head + size) with a CAS on `write_head`, only while the reader has
//     handed back enough space (`read_tail`, loaded with acquire so the reader is done with the
//     bytes before they are overwritten). In sampled mode a full ring or a CAS that keeps
//     failing drops the record (counted, with its cause): the program never waits. Record-all
//     mode (`wait_when_full`) promises every allocation, so there the writer waits for the
//     reader, however slowly it reads, for as long as it reads: until sprof marks the ring
//     closed (`reader_closed`) or its process is gone. Only then does this process drop
//     (counted as `dropped_reader_gone`), so a program never hangs on a dead sprof;
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
  // `reader_pid` (the configuration's creator_pid) is watched while waiting; 0: not watched.
  void init(RingHeader* header, uint8_t* data, uint64_t data_bytes, bool wait_when_full,
            uint64_t reader_pid);

  // Claims `size` bytes (a multiple of 8, at most the data size). False when the record is
  // dropped (see above), after counting the drop and its cause in the header.
  bool reserve(uint32_t size, uint64_t& position);
  void write(uint64_t position, uint32_t offset, const void* bytes, size_t n);
  void commit(uint64_t position);

  // The header's second word and the event fields, written right after reserving.
  void begin_record(uint64_t position, uint32_t size, RecordKind kind, uint16_t flags,
                    const EventFields& event);
  void set_flags(uint64_t position, uint32_t size, RecordKind kind, uint16_t flags);

  RingHeader* header() const { return header_; }

 private:
  enum class Claim : uint8_t { kClaimed, kFull, kContended };
  // What a full ring does to this process's writers (mode_).
  static constexpr uint8_t kDropWhenFull = 0;   // sampled mode
  static constexpr uint8_t kWaitForReader = 1;  // record-all mode while sprof reads
  static constexpr uint8_t kReaderGone = 2;     // record-all mode after sprof stopped reading

  Claim try_reserve(uint32_t size, uint64_t& position);
  // Whether sprof has closed the ring or exited (async-signal-safe).
  bool reader_gone() const;

  // No member initialisers: a RingWriter lives in .bss and must need no constructor (see
  // interposer.hpp).
  RingHeader* header_;
  uint8_t* data_;
  uint64_t data_bytes_;
  int reader_pid_;  // 0: unknown
  uint8_t mode_;    // atomic: one of the k* modes above, shared by the process's threads
};

}  // namespace sprof::heap::interposer
