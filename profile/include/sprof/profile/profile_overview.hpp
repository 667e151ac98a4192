// sprof/profile/profile_overview.hpp
//
// What `sprof load` needs to know of a saved profile (Gecko or self-contained) before it serves
// it, read in one parse: which format it is, the facts of its recording (what `sprof record`
// prints in its summary, shown on the page), and where each lib's file was when it was recorded
// (so that the symbolicator can find binaries that are in no symbol directory). One parse
// matters: a profile of a million libs or a gigabyte of JSON costs its parse once, not three
// times.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/profile/profile_reader.hpp"

namespace sprof::profile {

// One lib's file: where it was, and the ids that name its debug info.
struct LibraryLocation {
  std::string debug_name;
  std::string breakpad_id;
  std::string path;
  std::string code_id;  // the full build-id, for debuginfod; empty when unknown
};

struct ProfileOverview {
  ProfileFormat format = ProfileFormat::kUnknown;
  std::string product;     // meta.product, e.g. "sprof: make"
  double duration_s = 0;   // profilingEndTime - profilingStartTime
  uint64_t processes = 0;  // distinct pids over the top level and `processes`
  uint64_t threads = 0;
  uint64_t samples = 0;
  uint64_t lost = 0;  // meta.sprof lostRecords + lostSamples
  // Every lib of the profile (top level and each `processes[]` sub-profile), once: debugName,
  // breakpadId, path and codeId; a second entry with `debugPath` when that differs. Libs without
  // a debugName, breakpadId or path, or with a field longer than any path, are left out.
  std::vector<LibraryLocation> libraries;
};

// Best effort over a document that parses: fields it lacks stay zero or empty, a malformed lib
// or thread is skipped. An error (worded like identify_profile_format's) when it is not JSON.
Result<ProfileOverview> read_profile_overview(std::string_view json);

}  // namespace sprof::profile
