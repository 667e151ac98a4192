// sprof/profile/profile_reader.hpp
//
// Reading profile files back into the model: the inverse of the two writers.
//  - `read_gecko_json` turns a Gecko profile that sprof wrote (any earlier sprof version) into a
//    `Profile`, so `sprof symbolicate` can make a self-contained file from it. Writing the result
//    with `write_gecko_json` gives the same document again.
//  - `read_embedded_symbols` recovers the `ProfileSymbols` that a self-contained file was written
//    with (for the addresses it holds), so `sprof load` can answer /symbolicate/v5 without the
//    binaries.
// Input that does not have the expected shape is an error (kMalformed) naming where; nothing
// is guessed. JSON parsing uses simdjson's error-code API.
#pragma once

#include <string_view>

#include "sprof/core/result.hpp"
#include "sprof/profile/native_symbols.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::profile {

enum class ProfileFormat {
  kGecko,      // meta.version and no meta.preprocessedProfileVersion
  kProcessed,  // meta.preprocessedProfileVersion (a self-contained file, or another tool's)
  kUnknown,    // not JSON, or neither of the above
};

ProfileFormat detect_profile_format(std::string_view json);
// The same, telling a text that is not JSON (an error saying why: kMalformed, or kTooLarge when
// memory ran out) from JSON that is no profile (kUnknown), for messages to the user.
Result<ProfileFormat> identify_profile_format(std::string_view json);

Result<Profile> read_gecko_json(std::string_view json);

// Only files with sprof's processed version (kProcessedProfileVersion) are read; another
// version is kUnsupported.
Result<ProfileSymbols> read_embedded_symbols(std::string_view json);

}  // namespace sprof::profile
