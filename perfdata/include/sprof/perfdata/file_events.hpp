// sprof/perfdata/file_events.hpp
//
// The events a perf.data file recorded: each attrs entry's perf_event_attr and the ids its
// records carry (PERF_SAMPLE_IDENTIFIER / PERF_SAMPLE_ID), which is how records of several
// events are told apart. An attr from a newer perf is longer than the perf_event_attr sprof was
// built with: the fields sprof knows are read and the rest, which only newer kernels use, is
// ignored (a sample_type bit sprof does not know is refused later, by SampleLayout).
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/perfdata/byte_source.hpp"
#include "sprof/perfdata/file_header.hpp"

namespace sprof::perfdata {

struct FileEvent {
  perf_event_attr attr{};
  uint32_t recorded_attr_bytes = 0;  // the attr's `size` in the file
  std::vector<uint64_t> ids;
};

// More ids than this in one file is a corrupt ids section (perf writes one per event, CPU and
// thread: 256 CPUs x 4096 threads is 2^20).
inline constexpr uint64_t kMaxEventIds = uint64_t{1} << 24;

// Errc::kMalformed when an entry or its ids lie outside the file or an attr's size is impossible;
// Errc::kTooLarge above kMaxEventIds ids.
Result<std::vector<FileEvent>> read_file_events(ByteSource& source, const FileHeader& header);

}  // namespace sprof::perfdata
