// Which of the two formats a parsed profile document is, by the keys the Firefox Profiler itself
// tells them apart by: a processed profile has a numeric meta.preprocessedProfileVersion.
#pragma once

#include <string_view>

#include "json_dom.hpp"
#include "sprof/core/result.hpp"
#include "sprof/profile/profile_reader.hpp"

namespace sprof::profile::detail {

ProfileFormat format_of(element root);

// Why simdjson could not parse a profile, in the user's words: kTooLarge when memory (or the
// parser's 4 GiB capacity) ran out, else kMalformed. `what` names the document ("Gecko profile").
Error json_parse_error(std::string_view what, simdjson::error_code error);

}  // namespace sprof::profile::detail
