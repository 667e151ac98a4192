// sprof/perfdata/file_header.hpp
//
// The first 104 bytes of a perf.data file: what it is (magic), where its attrs and records are,
// and which feature sections follow the records. Everything a later step reads is located from
// here, so this is where a file that is not perf.data, or not one sprof reads (big-endian,
// version 1), is refused with a message that says what it is.
//
// A pipe-mode file (`perf record -o -`) has only the magic and a size of 16: its records start
// right after, and its attrs and features are records too (read by perf_data_file.hpp).
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/perfdata/byte_source.hpp"
#include "sprof/perfdata/perf_file_format.hpp"

namespace sprof::perfdata {

struct FileSection {
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct FileHeader {
  bool pipe_mode = false;         // attrs, features: none here, they are records in `data`
  uint64_t attr_entry_bytes = 0;  // one attrs entry: perf_event_attr + ids section
  FileSection attrs;
  // The records, clamped to the file: a recording that was cut short (perf killed, a copy that
  // stopped) keeps the records it has. `notes` says what was adjusted.
  FileSection data;
  std::bitset<format::kFeatureBits> features;
  // Where the feature sections' table starts (after the data section as the header states it);
  // features are unreadable when the file is shorter.
  uint64_t feature_table_offset = 0;
  std::vector<std::string> notes;
};

// Errc::kMalformed for an empty file, a file without perf.data's magic or with inconsistent
// sections; Errc::kUnsupported for big-endian and version-1 files.
Result<FileHeader> read_file_header(ByteSource& source);

}  // namespace sprof::perfdata
