// sprof/api/profile_libraries.hpp
//
// Helpers for `sprof load`: learn from a Gecko profile's `libs` (the text that
// profile::read_profile_json reads) where each module's file was when it was recorded, so the
// symbolicator can find binaries that are not in any symbol directory.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::api {

// Every lib of the profile (top level and each `processes[]` sub-profile, recursively) as a
// hint: debugName, breakpadId, path and codeId (the full build-id, for debuginfod); a second
// hint with `debugPath` when that differs.
// Duplicates are dropped. Libs without a debugName or breakpadId are skipped. Invalid JSON yields
// the hints found before the error (usually none); a profile is never rejected here.
std::vector<symbolicator::ModuleHint> library_hints_from_profile(std::string_view json);

}  // namespace sprof::api
