// sprof/heap/heap_dump.hpp
//
// A file of drained heap records, for tests, replay and fuzzing: the records exactly as they
// were in the ring, preceded by the ring header as it was at the end (configuration and the
// interposers' totals).
//
//   DumpPrefix (16 bytes: magic "SPHPDUMP", version)
//   RingHeader (kRingHeaderBytes)
//   records, back to back (each starts with its RecordHeader; the commit word is not checked)
//
// Encoding and decoding are pure; the file I/O is the caller's.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/heap/heap_events.hpp"
#include "sprof/heap/heap_ring_format.hpp"

namespace sprof::heap {

inline constexpr uint64_t kDumpMagic = 0x504D554450485053ULL;  // "SPHPDUMP"
inline constexpr uint32_t kDumpVersion = 1;

struct DumpPrefix {
  uint64_t magic;
  uint32_t version;
  uint32_t reserved;
};
static_assert(sizeof(DumpPrefix) == 16);

// The bytes that start a dump; records are appended after them as drained.
std::vector<uint8_t> encode_dump_prefix(const RingHeader& header);

struct HeapDump {
  RingHeader header;  // configuration validated; counters as written (untrusted numbers)
  std::span<const uint8_t> records;
};

// Checks the prefix and the configuration. Errc::kMalformed otherwise.
[[nodiscard]] Result<HeapDump> parse_heap_dump(std::span<const uint8_t> bytes);

// The record at the front of back-to-back records (a dump's, or the recorder's backlog, which
// holds them the same way), framed by its header's size; nullopt when that size cannot frame it
// (shorter than a header, not a multiple of 8, or past the end). Only the framing is checked:
// decode_record checks the rest.
std::optional<std::span<const uint8_t>> front_record(std::span<const uint8_t> records);

struct DumpReadStats {
  uint64_t records = 0;
  uint64_t malformed_records = 0;  // well-framed records decode_record rejected (skipped)
};

// Visits every record of `dump`. A record whose size field cannot frame it (too small, not a
// multiple of 8, past the end) ends the walk with Errc::kMalformed; visits before it stand.
[[nodiscard]] Result<void> for_each_dump_record(const HeapDump& dump,
                                                const std::function<void(const HeapEvent&)>& visit,
                                                DumpReadStats& stats);

}  // namespace sprof::heap
