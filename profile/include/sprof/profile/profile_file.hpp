// sprof/profile/profile_file.hpp
//
// Reading a saved profile back (`sprof load`): the JSON text of a .json or .json.gz file, from
// any source, so nothing in it is trusted. Reading is bounded: a gzip stream inflates at most
// the limit's bytes (a gzip of zeros inflates about 1000-fold), and the first inflated bytes must
// open a JSON object, so a file that is not a profile is refused after its first chunk instead
// of after inflating all of it. What the JSON says is read elsewhere (symbolication_api, which
// owns the JSON parser); this only gets the text.
#pragma once

#include <cstdint>
#include <string>

#include "sprof/core/result.hpp"
#include "sprof/profile/profile_json_limit.hpp"

namespace sprof::profile {

// The file's JSON text, gunzipped when it starts with the gzip magic (1f 8b), whatever its name.
// Errors: kNotFound; kUnsupported (not a regular file); kTooLarge (more than `limit.bytes` of
// text, said with the size and the limit, or not enough memory for it); kMalformed (not a JSON
// object, a corrupt or truncated gzip stream); kIo. The default limit is the memory this process
// has now (profile_json_limit()).
Result<std::string> read_profile_json(const std::string& path,
                                      const ProfileJsonLimit& limit = profile_json_limit());

}  // namespace sprof::profile
