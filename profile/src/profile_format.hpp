// Which of the two formats a parsed profile document is, by the keys the Firefox Profiler itself
// tells them apart by: a processed profile has a numeric meta.preprocessedProfileVersion.
#pragma once

#include "json_dom.hpp"
#include "sprof/profile/profile_reader.hpp"

namespace sprof::profile::detail {

ProfileFormat format_of(element root);

}  // namespace sprof::profile::detail
