#include "svg_text.hpp"

#include <cmath>
#include <cstdio>

namespace sprof::report::svg {

namespace {

// Length of the UTF-8 sequence starting at text[i], or 0 if the bytes there are not one.
size_t utf8_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t length = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf)
    length = 2;
  else if (lead >= 0xe0 && lead <= 0xef)
    length = 3;
  else if (lead >= 0xf0 && lead <= 0xf4)
    length = 4;
  else
    return 0;
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  }
  // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8 either.
  if (lead == 0xe0 && byte(i + 1) < 0xa0) return 0;
  if (lead == 0xed && byte(i + 1) >= 0xa0) return 0;
  if (lead == 0xf0 && byte(i + 1) < 0x90) return 0;
  if (lead == 0xf4 && byte(i + 1) >= 0x90) return 0;
  return length;
}

}  // namespace

void append_escaped(std::string& out, std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    switch (c) {
      case '&':
        out += "&amp;";
        ++i;
        continue;
      case '<':
        out += "&lt;";
        ++i;
        continue;
      case '>':
        out += "&gt;";
        ++i;
        continue;
      case '"':
        out += "&quot;";
        ++i;
        continue;
      case '\'':
        out += "&apos;";
        ++i;
        continue;
      default: break;
    }
    const size_t length = utf8_length(text, i);
    const bool control = static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n';
    if (length == 0 || control) {
      out += '?';
      ++i;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
}

std::string fitted_label(std::string_view name, double width_px, double char_px) {
  // 3 px of padding each side, as the script that refits labels after a zoom reckons it.
  const double room = std::floor((width_px - 6) / char_px);
  if (room < 3) return {};
  const auto fits = static_cast<size_t>(room);
  if (name.size() <= fits) return std::string(name);
  size_t cut = fits - 2;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xc0) == 0x80) --cut;
  return std::string(name.substr(0, cut)) + "..";
}

void append_fixed(std::string& out, double value) {
  char buffer[32];
  const int n = std::snprintf(buffer, sizeof buffer, "%.2f", value);
  out.append(buffer, static_cast<size_t>(n));
}

}  // namespace sprof::report::svg
