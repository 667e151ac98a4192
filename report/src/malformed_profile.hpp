// The error the report's readers give for a processed profile that breaks its format: where in
// the file, and what is wrong there.
#pragma once

#include <string>
#include <string_view>

#include "sprof/core/result.hpp"

namespace sprof::report {

inline Unexpected malformed_profile(const std::string& where, std::string_view what) {
  return fail(Errc::kMalformed, "profile: " + where + " " + std::string(what));
}

}  // namespace sprof::report
