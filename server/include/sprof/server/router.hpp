// sprof/server/router.hpp
//
// All HTTP routing as a pure function from a parsed request to a response: no sockets, so every
// rule (token prefix, CORS, preflight, 404/405/413, profile and page serving) is unit-tested
// directly. The Beast session only converts messages and moves bytes.
//
// Routes, all under "/TOKEN" (repeated slashes after the token are collapsed, query ignored):
//   GET  /TOKEN, /TOKEN/, /TOKEN/index.html   the page template rendered with `page`
//   GET  /TOKEN/profile.json                  the profile file, bytes as stored (gzip or not)
//   POST /TOKEN/symbolicate/v5, /source/v1, /asm/v1   -> `api`
//   GET  /TOKEN/<name>                        `assets(name)`
//   OPTIONS /TOKEN/...                        CORS preflight, 204
// Every response under the token carries Access-Control-Allow-Origin: *; anything outside it is
// a 404 without CORS headers (docs/firefox-profiler-format.md, "CORS and preflight", "Security and
// lifetime"). HEAD is answered like GET (the session drops the body).
//
// Before any route, the Host header must name this server in a way DNS cannot rebind:
// localhost, a loopback address or the bind address, with or without a port
// (host_check.hpp). Anything else is 421 Misdirected Request, without CORS headers, so a page
// that rebinds its own name to 127.0.0.1 cannot read the profile or call the APIs even when it
// knows the token; a request without Host is 400 (RFC 9112 section 3.2). The Firefox Profiler
// is unaffected: its Origin is profiler.firefox.com, but its requests go to 127.0.0.1:PORT.
//
// Threading: `handle_request` is reentrant; it calls `api` for POST routes, which may be slow, so
// the session runs requests for which `may_call_api` is true on a worker pool.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/core/unique_fd.hpp"
#include "sprof/server/handlers.hpp"
#include "sprof/server/page.hpp"

namespace sprof::server {

inline constexpr std::uint64_t kDefaultBodyLimitBytes = 64ull << 20;

struct HttpHeader {
  std::string name;
  std::string value;
};

struct Request {
  std::string method;  // as sent: "GET", "POST", "OPTIONS", ...
  std::string target;  // request-target, e.g. "/tok/symbolicate/v5"
  std::vector<HttpHeader> headers;
  std::string body;
  // Content-Length as declared. The session does not read a body above the limit, so this may
  // exceed body.size(); the router answers 413 from it.
  std::optional<std::uint64_t> content_length;

  // First header with this name, compared case-insensitively.
  std::optional<std::string_view> header(std::string_view name) const;
};

struct Response {
  unsigned status = 200;
  std::vector<HttpHeader> headers;  // Content-Type, CORS, Allow, ...; no framing headers
  std::string body;
  // When valid, the body is this file's contents (streamed), not `body`.
  UniqueFd body_file;
  std::uint64_t body_file_size = 0;
  // When set, the body is what this produces (an API reply made in parts), not `body`; its
  // length is not known in advance.
  BodyProducer body_producer;
  // Set when the connection must not be reused (e.g. the request body was left unread).
  bool close_connection = false;

  std::optional<std::string_view> header(std::string_view name) const;
  void set_header(std::string name, std::string value);
};

struct RouterConfig {
  std::string token;  // path prefix without slashes
  // The address the server listens on: besides loopback names, the only Host it answers (any
  // IP literal when this is a wildcard address); see handle_request.
  std::string bind_address = "127.0.0.1";
  // The host of --server-url, answered too (empty: none).
  std::string public_host;
  std::string profile_path;  // file served as /TOKEN/profile.json
  // `sprof compare`'s second profile, served as /TOKEN/compared-profile.json (empty: none).
  std::string compared_profile_path;
  ApiHandler api;        // may be empty: API routes then answer 503
  ViewHandler views;     // may be empty: /view/ routes then answer 404
  AssetProvider assets;  // may be empty: only the API and the profile are served
  PageInfo page;         // placeholder values for index.html
  std::uint64_t body_limit_bytes = kDefaultBodyLimitBytes;
};

Response handle_request(const Request& request, const RouterConfig& config);

// True when `handle_request` may call the (possibly slow) ApiHandler for this request.
// POST requests (the APIs) and reads of /TOKEN/view/NAME (views of the profile).
bool may_call_api(const Request& request, const RouterConfig& config);

// The path below the token with repeated slashes collapsed ("" for "/TOKEN"), or nullopt when
// `target` is not under "/TOKEN". Query and fragment are dropped.
std::optional<std::string> path_under_token(std::string_view target, std::string_view token);

}  // namespace sprof::server
