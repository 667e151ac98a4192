// sprof/perfdata/file_features.hpp
//
// What a perf.data file says about where and how it was recorded, from its feature sections:
// the host, the kernel, perf's version and command line, the CPUs, the events' names, the first
// and last sample times, the clock (`perf record -k`) and its wall-clock reference, and the
// build-ids of the binaries with samples. A feature that is missing leaves its field empty; one
// that does not parse is skipped and named in `unreadable` (never fatal: the records matter more).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sprof/perfdata/byte_source.hpp"
#include "sprof/perfdata/file_header.hpp"
#include "sprof/perfdata/recorded_build_ids.hpp"

namespace sprof::perfdata {

struct ClockReference {
  int32_t clockid = 0;    // the clock of the records' times (CLOCK_MONOTONIC is 1)
  uint64_t wall_ns = 0;   // the wall clock (ns since the epoch) ...
  uint64_t clock_ns = 0;  // ... and that clock, read at the same moment
};

struct FileFeatures {
  std::string hostname;
  std::string os_release;
  std::string perf_version;
  std::string arch;
  std::string cpu_desc;
  uint32_t cpus_online = 0;
  uint32_t cpus_available = 0;
  std::vector<std::string> command_line;  // perf's argv
  std::vector<std::string> event_names;   // per attrs entry, from HEADER_EVENT_DESC
  std::optional<uint64_t> first_sample_ns, last_sample_ns;  // HEADER_SAMPLE_TIME
  std::optional<ClockReference> clock;                      // HEADER_CLOCK_DATA
  bool compressed = false;  // HEADER_COMPRESSED: records are zstd-compressed
  std::vector<RecordedBuildId> build_ids;
  std::vector<std::string> unreadable;  // "HEADER_CMDLINE: ...", features skipped
};

// Reads the features `header` lists. Never fails: what cannot be read is left out and noted.
FileFeatures read_file_features(ByteSource& source, const FileHeader& header);

// Decodes one feature's bytes (a feature section, or the payload of a pipe-mode
// PERF_RECORD_HEADER_FEATURE) into `features`; what does not parse is noted in `unreadable`.
void read_feature_bytes(uint32_t bit, std::span<const uint8_t> bytes, FileFeatures& features);

// The command line as one string, arguments joined by spaces.
std::string joined_command_line(const FileFeatures& features);

}  // namespace sprof::perfdata
