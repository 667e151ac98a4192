// sprof/perf/record_parser.hpp
//
// Decodes one perf record that has already been copied out of (or reassembled from) a ring
// buffer into the typed `Record` of records.hpp. Pure: no syscalls, no state, every read
// bounds-checked through `ByteReader`, so it is safe on arbitrary bytes (and fuzzable).
//
// Outcomes:
//   - a `Record`;
//   - Errc::kUnsupported: a record type sprof does not decode (PERF_RECORD_KSYMBOL, ...). Not an
//     error in the data; the caller skips it (`is_skipped_record`).
//   - Errc::kMalformed: truncated, inconsistent sizes, or a length field that runs past the end.
//     The caller counts it and carries on; nothing here aborts on kernel input.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

#include "sprof/core/result.hpp"
#include "sprof/perf/records.hpp"
#include "sprof/perf/sample_layout.hpp"

namespace sprof::perf {

// The bytes of one whole record, `struct perf_event_header` included. The span only has to live
// for the duration of `parse_record`: everything variable-length is copied into the `Record`.
struct RawRecord {
  std::span<const uint8_t> bytes;

  // Header fields; zero when `bytes` is shorter than a header.
  perf_event_header header() const {
    perf_event_header h{};
    if (bytes.size() >= sizeof h) std::memcpy(&h, bytes.data(), sizeof h);
    return h;
  }
};

// Whether a sample's stack copy is copied out of the record bytes or borrows them (only when the
// bytes outlive the record and all its copies: a mapped file, not a ring buffer).
enum class StackCopy { kCopy, kBorrow };

// Decodes `raw` with the fields listed by `layout`, which must be the layout of the event that
// produced the record. Non-sample records take their `SampleId` from the sample_id_all trailer
// (zero when the layout has none).
[[nodiscard]] Result<Record> parse_record(RawRecord raw, const SampleLayout& layout,
                                          StackCopy stack = StackCopy::kCopy);

// True for the "record type not decoded, skip it" outcome of `parse_record`.
inline bool is_skipped_record(const Error& e) { return e.code == Errc::kUnsupported; }

}  // namespace sprof::perf
