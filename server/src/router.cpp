#include "sprof/server/router.hpp"

#include <algorithm>
#include <array>

#include "ascii_case.hpp"
#include "host_check.hpp"
#include "sprof/core/untrusted_file.hpp"

namespace sprof::server {
namespace {

constexpr std::array<std::string_view, 3> kApiPaths = {"/symbolicate/v5", "/source/v1", "/asm/v1"};

std::optional<std::string_view> find_header(const std::vector<HttpHeader>& headers,
                                            std::string_view name) {
  for (const HttpHeader& h : headers) {
    if (iequals_ascii(h.name, name)) return std::string_view(h.value);
  }
  return std::nullopt;
}

bool is_api_path(std::string_view path) {
  return std::find(kApiPaths.begin(), kApiPaths.end(), path) != kApiPaths.end();
}

// GET /TOKEN/view/NAME: a page made from the profile (ViewHandler).
constexpr std::string_view kViewPrefix = "/view/";

bool is_read_method(std::string_view method) { return method == "GET" || method == "HEAD"; }

Response text_response(unsigned status, std::string text) {
  Response res;
  res.status = status;
  res.set_header("Content-Type", "text/plain; charset=utf-8");
  res.body = std::move(text);
  res.body += '\n';
  return res;
}

Response method_not_allowed(std::string_view allow) {
  Response res = text_response(405, "method not allowed");
  res.set_header("Allow", std::string(allow));
  return res;
}

// What samply answers, plus Private Network Access when Chrome asks for it
// (docs/firefox-profiler-format.md, "CORS and preflight").
Response preflight(const Request& request) {
  Response res;
  res.status = 204;
  res.set_header("Access-Control-Allow-Methods", "POST, GET, OPTIONS");
  if (auto requested = request.header("Access-Control-Request-Headers")) {
    res.set_header("Access-Control-Allow-Headers", std::string(*requested));
  }
  res.set_header("Access-Control-Max-Age", "86400");
  if (auto pna = request.header("Access-Control-Request-Private-Network");
      pna && iequals_ascii(*pna, "true")) {
    res.set_header("Access-Control-Allow-Private-Network", "true");
  }
  return res;
}

// The profile is sent as stored. A .json.gz file goes out as raw gzip bytes with
// Content-Type application/json and no Content-Encoding: the front end sniffs 1f 8b 08 and
// gunzips itself (verified with the profiler CLI; docs/firefox-profiler-format.md, "Serving the
// profile"), which works for every client whatever its Accept-Encoding. So neither the name nor the
// bytes need inspecting.
Response serve_profile(const std::string& path) {
  if (path.empty()) return text_response(404, "no profile is being served");
  // Replaced by a FIFO since it was written, the profile must not block the io thread.
  auto file = open_untrusted_file(path, Symlinks::kFollow);
  if (!file) {
    return text_response(file.error().code == Errc::kNotFound ? 404 : 500,
                         "cannot read the profile: " + file.error().message);
  }
  Response res;
  res.set_header("Content-Type", "application/json");
  res.set_header("Cache-Control", "no-store");
  res.body_file = std::move(file->fd);
  res.body_file_size = file->size_bytes;
  return res;
}

Response serve_page(const RouterConfig& config) {
  std::optional<StaticAsset> page = config.assets ? config.assets("index.html") : std::nullopt;
  if (!page) return text_response(404, "no page is embedded in this build");
  Response res;
  res.set_header("Content-Type", std::string(page->content_type));
  res.set_header("Cache-Control", "no-store");
  res.body = render_page(page->bytes, config.page);
  return res;
}

Response serve_asset(std::string_view path, const RouterConfig& config) {
  const std::string_view name = path.substr(1);  // path starts with '/'
  std::optional<StaticAsset> asset = config.assets ? config.assets(name) : std::nullopt;
  if (!asset) return text_response(404, "not found");
  Response res;
  res.set_header("Content-Type", std::string(asset->content_type));
  res.body = std::string(asset->bytes);
  return res;
}

Response reply_response(HttpReply reply) {
  Response res;
  res.status = reply.status;
  res.set_header("Content-Type",
                 reply.content_type.empty() ? "application/json" : std::move(reply.content_type));
  res.body = std::move(reply.body);
  res.body_producer = std::move(reply.body_producer);
  return res;
}

Response call_api(std::string_view path, const Request& request, const RouterConfig& config) {
  if (!config.api) return text_response(503, "this server has no symbolication service");
  return reply_response(config.api(path, request.body));
}

Response show_view(std::string_view name, const RouterConfig& config) {
  std::optional<HttpReply> reply = config.views ? config.views(name) : std::nullopt;
  if (!reply) return text_response(404, "not found");
  Response res = reply_response(std::move(*reply));
  res.set_header("Cache-Control", "no-store");
  return res;
}

Response route_under_token(const Request& request, std::string_view path,
                           const RouterConfig& config) {
  const std::string_view method = request.method;
  if (method == "OPTIONS") return preflight(request);
  if (!is_read_method(method) && method != "POST") return method_not_allowed("GET, POST, OPTIONS");

  const std::uint64_t body_size =
      std::max<std::uint64_t>(request.content_length.value_or(0), request.body.size());
  if (body_size > config.body_limit_bytes) {
    Response res = text_response(
        413, "request body above " + std::to_string(config.body_limit_bytes) + " bytes");
    // The session stopped reading at the headers; the unread body makes the stream unusable.
    res.close_connection = true;
    return res;
  }

  if (is_api_path(path)) {
    return method == "POST" ? call_api(path, request, config) : method_not_allowed("POST, OPTIONS");
  }
  if (method == "POST") {
    // Known read-only routes say so; anything else simply does not exist.
    const bool known = path.empty() || path == "/" || path == "/index.html" ||
                       path == "/profile.json" || path == "/compared-profile.json";
    return known ? method_not_allowed("GET, OPTIONS") : text_response(404, "not found");
  }
  if (path.empty() || path == "/" || path == "/index.html") return serve_page(config);
  if (path == "/profile.json") return serve_profile(config.profile_path);
  if (path.starts_with(kViewPrefix)) return show_view(path.substr(kViewPrefix.size()), config);
  if (path == "/compared-profile.json") return serve_profile(config.compared_profile_path);
  return serve_asset(path, config);
}

}  // namespace

std::optional<std::string_view> Request::header(std::string_view name) const {
  return find_header(headers, name);
}

std::optional<std::string_view> Response::header(std::string_view name) const {
  return find_header(headers, name);
}

void Response::set_header(std::string name, std::string value) {
  for (HttpHeader& h : headers) {
    if (iequals_ascii(h.name, name)) {
      h.value = std::move(value);
      return;
    }
  }
  headers.push_back({std::move(name), std::move(value)});
}

bool may_call_api(const Request& request, const RouterConfig& config) {
  if (request.method == "POST") return true;
  if (!is_read_method(request.method)) return false;
  const std::optional<std::string> path = path_under_token(request.target, config.token);
  return path && path->starts_with(kViewPrefix);
}

std::optional<std::string> path_under_token(std::string_view target, std::string_view token) {
  target = target.substr(0, target.find_first_of("?#"));
  if (token.empty() || target.size() < token.size() + 1 || target[0] != '/' ||
      target.substr(1, token.size()) != token) {
    return std::nullopt;
  }
  const std::string_view rest = target.substr(1 + token.size());
  if (!rest.empty() && rest[0] != '/') return std::nullopt;  // "/TOKENxyz" is another path
  // "/TOKEN//symbolicate/v5" happens when a client joins a base URL ending in '/' with "/api".
  std::string path;
  path.reserve(rest.size());
  for (char c : rest) {
    if (c == '/' && !path.empty() && path.back() == '/') continue;
    path += c;
  }
  return path;
}

Response handle_request(const Request& request, const RouterConfig& config) {
  // RFC 9112 section 3.2: a request with no Host field, or with more than one, gets 400. Checking
  // only the first of two would let "Host: 127.0.0.1" vouch for a second, rebinding one.
  const auto host_fields =
      std::count_if(request.headers.begin(), request.headers.end(),
                    [](const HttpHeader& h) { return iequals_ascii(h.name, "Host"); });
  if (host_fields > 1) return text_response(400, "more than one Host header");
  const std::optional<std::string_view> host = request.header("Host");
  if (!host) return text_response(400, "missing Host header");
  if (!detail::is_allowed_host(*host, config.bind_address, config.public_host)) {
    return text_response(421, "this server answers requests for localhost, 127.0.0.1, [::1] or " +
                                  config.bind_address + " only, not for Host '" +
                                  std::string(*host) + "' (protection against DNS rebinding)");
  }
  const std::optional<std::string> path = path_under_token(request.target, config.token);
  // Outside the token: no CORS headers, so other web pages learn nothing
  // (docs/firefox-profiler-format.md, "Security and lifetime").
  if (!path) return text_response(404, "not found");
  Response res = route_under_token(request, *path, config);
  res.set_header("Access-Control-Allow-Origin", "*");
  return res;
}

}  // namespace sprof::server
