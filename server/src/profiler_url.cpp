#include "sprof/server/profiler_url.hpp"

namespace sprof::server {
namespace {

// The characters encodeURIComponent leaves alone (ECMA-262 "uriUnreserved").
bool is_uri_unreserved(unsigned char c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '-': case '_': case '.': case '!': case '~': case '*': case '\'': case '(': case ')':
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string encode_uri_component(std::string_view text) {
  constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size() * 3);
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_uri_unreserved(c)) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}

std::string profiler_url(std::string_view profiler_base, std::string_view profile_url,
                         std::string_view symbol_server_url) {
  while (!profiler_base.empty() && profiler_base.back() == '/') profiler_base.remove_suffix(1);
  std::string url(profiler_base);
  url += "/from-url/";
  url += encode_uri_component(profile_url);
  url += "/?symbolServer=";
  url += encode_uri_component(symbol_server_url);
  return url;
}

}  // namespace sprof::server
