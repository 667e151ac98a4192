// sprof/server/profiler_url.hpp
//
// Builds the Firefox Profiler URL that loads a profile from sprof's server
// (docs/firefox-profiler-format.md, "from-url and symbolServer URLs"):
//   <base>/from-url/<encodeURIComponent(profile url)>/?symbolServer=<encodeURIComponent(server)>
// The front end splits the path on '/' and decodes the second segment, so '/', '?' and '#' in the
// profile URL must be percent-encoded; full encodeURIComponent is the safe choice.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sprof/core/result.hpp"

namespace sprof::server {

// The hosted Firefox Profiler; the cli lets --profiler-url / SPROF_PROFILER_URL override it.
inline constexpr std::string_view kDefaultProfilerBase = "https://profiler.firefox.com";

// JavaScript's encodeURIComponent over UTF-8 bytes: keeps A-Z a-z 0-9 - _ . ! ~ * ' ( ) and
// percent-encodes every other byte with upper-case hex.
std::string encode_uri_component(std::string_view text);

// `profiler_base` may end in '/'; `symbol_server_url` is the server base (no trailing API path).
std::string profiler_url(std::string_view profiler_base, std::string_view profile_url,
                         std::string_view symbol_server_url);

// The Firefox Profiler's compare view of one thread of each of two profiles:
//   <base>/compare/calltree/?profiles[]=<enc(view 1)>&profiles[]=<enc(view 2)>&symbolServer=<enc>
// where each view is <base>/from-url/<enc(profile url)>/calltree/?thread=N&v=10. Each view must
// select exactly one thread, and the front end ignores a symbolServer inside a view: only the
// outer one is used (docs/firefox-profiler-format.md, "Comparing two profiles").
struct ThreadView {
  std::string_view profile_url;
  std::uint32_t thread = 0;  // index into the profile's threads
};
std::string compare_url(std::string_view profiler_base, ThreadView base, ThreadView compared,
                        std::string_view symbol_server_url);

// The address a browser reaches sprof's server by when that is not the address it listens on
// (--server-url: recording on a remote machine, viewed through `ssh -L 3000:localhost:3000`).
struct PublicUrl {
  std::string base;  // "http://localhost:3000" (no trailing slash; a path prefix is kept)
  std::string host;  // "localhost": a Host name the server then answers besides loopback
};
// Accepts "http[s]://host[:port][/path]". kInvalidArgument otherwise.
Result<PublicUrl> parse_public_url(std::string_view url);

}  // namespace sprof::server
