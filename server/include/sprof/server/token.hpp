// sprof/server/token.hpp
//
// The secret path prefix. Every route lives under /TOKEN/ because the CORS policy
// (Access-Control-Allow-Origin: *) lets any web page read what the server returns; an unguessable
// prefix keeps other sites from reaching it (docs/firefox-profiler-format.md, "Security and
// lifetime"). 24 random bytes, as samply uses.
#pragma once

#include <span>
#include <string>

#include "sprof/core/result.hpp"

namespace sprof::server {

inline constexpr std::size_t kTokenBytes = 24;

// RFC 4648 base32 with the lower-case alphabet a-z2-7 and no padding (URL-safe, case-stable).
std::string base32_lower(std::span<const unsigned char> bytes);

// kTokenBytes from getrandom(2), base32-encoded (39 characters).
Result<std::string> generate_token();

}  // namespace sprof::server
