// sprof/perfdata/perf_data_file.hpp
//
// Everything a perf.data file says before its records: the header, the events and the features.
// In file mode they come from the header's sections; in pipe mode (`perf record -o -`) from the
// records perf writes first (PERF_RECORD_HEADER_ATTR, PERF_RECORD_HEADER_FEATURE), which this
// reads up to the first kernel record. Reading the records themselves is data_section_source.hpp.
#pragma once

#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/perfdata/byte_source.hpp"
#include "sprof/perfdata/file_events.hpp"
#include "sprof/perfdata/file_features.hpp"
#include "sprof/perfdata/file_header.hpp"

namespace sprof::perfdata {

struct PerfDataFile {
  FileHeader header;
  std::vector<FileEvent> events;  // at least one
  FileFeatures features;
};

// Errors as read_file_header and read_file_events; Errc::kMalformed for a file without events.
Result<PerfDataFile> open_perf_data(ByteSource& source);

}  // namespace sprof::perfdata
