#include "sprof/server/profiler_url.hpp"

#include "sprof/core/hex.hpp"

namespace sprof::server {
namespace {

// The characters encodeURIComponent leaves alone (ECMA-262 "uriUnreserved").
bool is_uri_unreserved(unsigned char c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '-':
    case '_':
    case '.':
    case '!':
    case '~':
    case '*':
    case '\'':
    case '(':
    case ')': return true;
    default: return false;
  }
}

}  // namespace

std::string encode_uri_component(std::string_view text) {
  std::string out;
  out.reserve(text.size() * 3);
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_uri_unreserved(c)) {
      out += ch;
    } else {
      out += '%';
      append_hex_byte(out, c, HexCase::kUpper);
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

std::string compare_url(std::string_view profiler_base, ThreadView base, ThreadView compared,
                        std::string_view symbol_server_url) {
  while (!profiler_base.empty() && profiler_base.back() == '/') profiler_base.remove_suffix(1);
  const auto view = [&](const ThreadView& v) {
    return std::string(profiler_base) + "/from-url/" + encode_uri_component(v.profile_url) +
           "/calltree/?thread=" + std::to_string(v.thread) + "&v=10";
  };
  std::string url(profiler_base);
  url += "/compare/calltree/?profiles[]=";
  url += encode_uri_component(view(base));
  url += "&profiles[]=";
  url += encode_uri_component(view(compared));
  url += "&symbolServer=";
  url += encode_uri_component(symbol_server_url);
  return url;
}

Result<PublicUrl> parse_public_url(std::string_view url) {
  auto invalid = [&](const char* why) {
    return fail(Errc::kInvalidArgument,
                "invalid server URL '" + std::string(url) + "': " + why +
                    " (expected http://host:port, e.g. http://localhost:3000)");
  };
  std::string_view rest = url;
  if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else if (rest.starts_with("https://")) {
    rest.remove_prefix(8);
  } else {
    return invalid("not an http or https URL");
  }
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (authority.find_first_of("@?#") != std::string_view::npos) {
    return invalid("user info, query or fragment");
  }
  if (rest.find_first_of("?#") != std::string_view::npos) return invalid("query or fragment");
  std::string_view host = authority;
  if (host.starts_with('[')) {
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return invalid("unclosed [");
    host = host.substr(1, close - 1);
  } else if (const size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    host = host.substr(0, colon);
  }
  if (host.empty()) return invalid("no host");
  std::string_view base = url;
  while (base.ends_with('/')) base.remove_suffix(1);
  return PublicUrl{std::string(base), std::string(host)};
}

}  // namespace sprof::server
