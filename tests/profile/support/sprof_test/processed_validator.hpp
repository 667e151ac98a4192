// sprof_test/processed_validator.hpp
//
// Static checks over a self-contained profile (the processed format, version 42, that sprof
// writes with embedded symbols): the Gecko validator's checks adapted to the processed shape.
// Meta, categories, marker schemas and lib identity are checked as for Gecko; then profile-level
// libs, and per thread: every table a set of equally long columns, every index in range, sample
// times non-decreasing, CPU deltas integers >= 0, marker times by phase, and inline frames
// hanging under the frame of the same address one depth up. Test code (link
// `sprof_gecko_validator`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sprof_test/gecko_validator.hpp"

namespace sprof::test {

// The processed version sprof writes.
inline constexpr int kExpectedProcessedVersion = 42;

std::vector<std::string> check_processed_profile(std::string_view json,
                                                 const GeckoCheckOptions& options = {});

}  // namespace sprof::test
