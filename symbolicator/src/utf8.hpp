// utf8.hpp (private): encoding and decoding code points, for demanglers that decode escapes,
// punycode and string constants.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sprof::symbolicator::detail {

inline void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Takes the first code point off `bytes`; nullopt (and `bytes` unspecified) when they do not
// start with well-formed UTF-8: no overlong forms, surrogates or values past U+10FFFF.
inline std::optional<uint32_t> next_utf8(std::string_view& bytes) {
  if (bytes.empty()) return std::nullopt;
  const auto lead = static_cast<unsigned char>(bytes[0]);
  if (lead < 0x80) {
    bytes.remove_prefix(1);
    return lead;
  }
  size_t length = 0;
  uint32_t cp = 0;
  uint32_t least = 0;  // the smallest code point that needs this many bytes
  if ((lead & 0xE0) == 0xC0) {
    length = 2, cp = lead & 0x1Fu, least = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, cp = lead & 0x0Fu, least = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, cp = lead & 0x07u, least = 0x10000;
  } else {
    return std::nullopt;
  }
  if (bytes.size() < length) return std::nullopt;
  for (size_t i = 1; i < length; ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    if ((b & 0xC0) != 0x80) return std::nullopt;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
  bytes.remove_prefix(length);
  return cp;
}

}  // namespace sprof::symbolicator::detail
