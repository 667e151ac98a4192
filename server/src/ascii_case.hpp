// Case-insensitive comparison of HTTP tokens (header names, codings, host names): ASCII only,
// as RFC 9110 defines them, whatever the process's locale says of other bytes.
#pragma once

#include <algorithm>
#include <string_view>

namespace sprof::server {

inline bool iequals_ascii(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [&](char x, char y) { return lower(x) == lower(y); });
}

}  // namespace sprof::server
