// punycode.hpp (private)
//
// Decodes a punycode identifier (RFC 3492) into UTF-8. Rust v0 symbols encode non-ASCII
// identifiers this way, with the basic code points first and '_' instead of '-' as the
// delimiter; the caller splits the two parts.
#pragma once

#include <string>
#include <string_view>

namespace sprof::symbolicator::detail {

// Appends the decoded identifier to `out`; false on malformed input (`out` is then unspecified).
bool decode_punycode(std::string_view basic, std::string_view encoded, std::string& out);

}  // namespace sprof::symbolicator::detail
