// Fuzz target: the symbol server's HTTP requests after Beast has split them into fields, as any
// local program or web page can send them (no token needed to reach this code): the framing
// check, the Host check and the router, which picks the route from the request target.
//
// Input: a line with the method, a line with the request target, header lines "Name: value" up
// to an empty line, then the body. The first byte of the method line, taken modulo 4, picks the
// HTTP version (1.0 or 1.1) and the listening address (loopback, or wildcard with a
// --server-url host name).
#include <string>
#include <string_view>

#include "host_check.hpp"
#include "request_framing.hpp"
#include "sprof/server/router.hpp"

namespace {

namespace server = sprof::server;

std::string_view take_line(std::string_view& rest) {
  const size_t end = rest.find('\n');
  const std::string_view line = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  return line;
}

server::RouterConfig config_listening_on(std::string bind_address, std::string public_host) {
  server::RouterConfig config;
  config.token = "tok";
  config.bind_address = std::move(bind_address);
  config.public_host = std::move(public_host);   // as --server-url names it
  config.profile_path = SPROF_FUZZ_SOURCE_FILE;  // any small readable file
  config.api = [](std::string_view path, std::string_view body) {
    return server::HttpReply::whole(200, "", std::string(path) + std::string(body.substr(0, 16)));
  };
  config.assets = [](std::string_view name) -> std::optional<server::StaticAsset> {
    if (name == "index.html") return server::StaticAsset{"text/html", "<p>{{COMMAND}}</p>"};
    if (name == "style.css") return server::StaticAsset{"text/css", "p{}"};
    return std::nullopt;
  };
  config.page = {{"COMMAND", "./app"}};
  return config;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const server::RouterConfig loopback = config_listening_on("127.0.0.1", "");
  static const server::RouterConfig wildcard = config_listening_on("::", "profiles.example");
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  const unsigned choice = rest.empty() ? 0 : static_cast<unsigned char>(rest.front()) % 4;

  server::Request request;
  request.method = take_line(rest);
  request.target = take_line(rest);
  while (!rest.empty()) {
    const std::string_view line = take_line(rest);
    if (line.empty()) break;
    const size_t colon = line.find(':');
    const std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
    request.headers.push_back(
        {std::string(line.substr(0, colon)),
         std::string(value.substr(std::min(value.find_first_not_of(' '), value.size())))});
  }
  request.body = rest;
  request.content_length = request.body.size();

  const server::RouterConfig& config = choice & 2 ? wildcard : loopback;
  (void)server::detail::unusable_framing(request, choice & 1 ? 11 : 10);
  if (const auto host = request.header("Host")) {
    (void)server::detail::is_allowed_host(*host, config.bind_address, config.public_host);
  }
  (void)server::path_under_token(request.target, config.token);
  (void)server::may_call_api(request, config);
  (void)server::handle_request(request, config);
  return 0;
}
