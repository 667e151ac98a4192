// sprof/api/profile_summary.hpp
//
// What a saved profile (Gecko, or self-contained processed) says about its recording, for
// `sprof load`'s page: the same facts `sprof record` prints in its summary line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sprof::api {

struct ProfileSummary {
  bool is_gecko_profile = false;  // a JSON object with a numeric meta.version (processed ones too)
  std::string product;      // meta.product, e.g. "sprof: make"
  double duration_s = 0;    // profilingEndTime - profilingStartTime
  uint64_t processes = 0;   // distinct pids over the top level and `processes`
  uint64_t threads = 0;
  uint64_t samples = 0;
  uint64_t lost = 0;        // meta.sprof lostRecords + lostSamples
};

// Best effort: fields the JSON lacks (or a document that does not parse) stay zero or empty.
ProfileSummary summarize_profile(std::string_view json);

}  // namespace sprof::api
