// sprof/perfdata/import_meta.hpp
//
// What an imported profile's meta says about where it came from, under meta.sprof beside the
// recording facts every profile has (convert::describe_recording):
//   source            "perf.data"
//   importedFile      the file's path as given
//   perfVersion, hostname, osRelease, perfCommandLine   from the file's header
//   startTimeSource   "clock data" (exact) or "file time" (estimated; see perf_data_import.hpp)
//   binariesMatched / binariesRefused / binariesMissing / binariesUnverified   build-id checks
//   unknownRecords    records of types sprof does not decode, skipped
//   filteredOutRecords   records of processes --pid/--name left out
#pragma once

#include "sprof/perfdata/perf_data_import.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::perfdata {

void add_import_meta(profile::Meta& meta, const ImportReport& report);

}  // namespace sprof::perfdata
