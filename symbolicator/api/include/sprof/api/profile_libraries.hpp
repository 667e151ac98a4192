// sprof/api/profile_libraries.hpp
//
// Helpers for `sprof load`: read a (possibly gzipped) Gecko profile and learn from its `libs`
// where each module's file was when it was recorded, so the symbolicator can find binaries that
// are not in any symbol directory.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::api {

// Every lib of the profile (top level and each `processes[]` sub-profile, recursively) as a
// hint: debugName, breakpadId, path and codeId (the full build-id, for debuginfod); a second
// hint with `debugPath` when that differs.
// Duplicates are dropped. Libs without a debugName or breakpadId are skipped. Invalid JSON yields
// the hints found before the error (usually none); a profile is never rejected here.
std::vector<symbolicator::ModuleHint> library_hints_from_profile(std::string_view json);

// The file's bytes, gunzipped if it is gzip-compressed (detected from its content, so
// "profile.json" and "profile.json.gz" both work).
Result<std::string> read_maybe_gzip_file(const std::string& path);

}  // namespace sprof::api
