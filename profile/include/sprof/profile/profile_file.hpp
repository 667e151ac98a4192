// sprof/profile/profile_file.hpp
//
// Reading a saved profile back (`sprof load`): the JSON text of a .json or .json.gz file, from
// any source, so nothing in it is trusted. Reading is bounded: a gzip stream inflates at most
// `max_bytes` (a gzip of zeros inflates about 1000-fold), and the first inflated bytes must
// open a JSON object, so a file that is not a profile is refused after its first chunk instead
// of after inflating all of it. What the JSON says is read elsewhere (symbolication_api, which
// owns the JSON parser); this only gets the text.
#pragma once

#include <cstdint>
#include <string>

#include "sprof/core/result.hpp"

namespace sprof::profile {

// The Firefox Profiler parses a profile as one JavaScript string, and a string in Firefox holds
// at most 2^30 - 2 characters (in Chrome 2^29 - 24): a larger text could not be loaded anyway.
inline constexpr uint64_t kMaxProfileJsonBytes = uint64_t{1} << 30;

// The file's JSON text, gunzipped when it starts with the gzip magic (1f 8b), whatever its name.
// Errors: kNotFound; kUnsupported (not a regular file); kTooLarge (more than `max_bytes` of text,
// or not enough memory for it); kMalformed (not a JSON object, a corrupt or truncated gzip
// stream); kIo.
Result<std::string> read_profile_json(const std::string& path,
                                      uint64_t max_bytes = kMaxProfileJsonBytes);

}  // namespace sprof::profile
