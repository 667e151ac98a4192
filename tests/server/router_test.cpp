#include "sprof/server/router.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <string>

#include "temp_dir.hpp"

using namespace sprof::server;

namespace {

constexpr std::string_view kToken = "secrettoken";
// The first bytes of a real gzip stream (magic 1f 8b, method 08) followed by arbitrary bytes,
// including a NUL: the server must pass them through untouched.
const std::string kGzipBytes("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03profile\0bytes", 23);

struct ApiCall {
  std::string path;
  std::string body;
};

struct Fixture {
  sprof::test::TempDir dir;
  RouterConfig config;
  std::vector<ApiCall> calls;

  Fixture() {
    config.token = std::string(kToken);
    config.profile_path = dir.write_file("profile.json.gz", kGzipBytes);
    config.api = [this](std::string_view path, std::string_view body) {
      calls.push_back({std::string(path), std::string(body)});
      return HttpReply::whole(200, "application/json", R"({"results":[]})");
    };
    config.assets = [](std::string_view name) -> std::optional<StaticAsset> {
      if (name == "index.html")
        return StaticAsset{"text/html; charset=utf-8", "<h1>{{COMMAND}}</h1>"};
      if (name == "style.css") return StaticAsset{"text/css; charset=utf-8", "h1{}"};
      return std::nullopt;
    };
    config.page = {{"COMMAND", "./app <b>&"}};
  }

  Response send(std::string method, std::string target, std::string body = {},
                std::vector<HttpHeader> headers = {}) {
    Request request;
    request.method = std::move(method);
    request.target = std::move(target);
    request.content_length = body.size();
    request.body = std::move(body);
    request.headers = std::move(headers);
    // Browsers always send Host; the tests that are not about it send a loopback one.
    if (!request.header("Host")) request.headers.push_back({"Host", "127.0.0.1:8000"});
    return handle_request(request, config);
  }
};

std::string under_token(std::string_view path) {
  return "/" + std::string(kToken) + std::string(path);
}

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace

TEST_CASE("paths outside the token are 404 without CORS headers") {
  Fixture f;
  for (const char* target :
       {"/", "/profile.json", "/wrongtoken/profile.json", "/secrettokenx/profile.json",
        "/secret/profile.json", "//secrettoken/profile.json", "*"}) {
    CAPTURE(target);
    for (const char* method : {"GET", "POST", "OPTIONS"}) {
      CAPTURE(method);
      const Response res = f.send(method, target);
      CHECK(res.status == 404);
      CHECK_FALSE(res.header("Access-Control-Allow-Origin").has_value());
      CHECK_FALSE(res.body_file.valid());
    }
  }
  CHECK(f.calls.empty());
}

TEST_CASE("every response under the token allows any origin") {
  Fixture f;
  for (const auto& [method, path] :
       std::vector<std::pair<std::string, std::string>>{{"GET", "/"},
                                                        {"GET", "/profile.json"},
                                                        {"GET", "/style.css"},
                                                        {"GET", "/nope.js"},
                                                        {"POST", "/symbolicate/v5"},
                                                        {"GET", "/symbolicate/v5"},
                                                        {"OPTIONS", "/asm/v1"}}) {
    CAPTURE(method);
    CAPTURE(path);
    const Response res = f.send(method, under_token(path));
    CHECK(res.header("Access-Control-Allow-Origin") == "*");
  }
}

TEST_CASE("preflight answers 204 with the documented CORS headers") {
  Fixture f;
  const Response res = f.send("OPTIONS", under_token("/symbolicate/v5"), {},
                              {{"Origin", "https://profiler.firefox.com"},
                               {"Access-Control-Request-Method", "POST"},
                               {"access-control-request-headers", "user-agent, content-type"}});
  CHECK(res.status == 204);
  CHECK(res.body.empty());
  CHECK(res.header("Access-Control-Allow-Origin") == "*");
  CHECK(res.header("Access-Control-Allow-Methods") == "POST, GET, OPTIONS");
  CHECK(res.header("Access-Control-Allow-Headers") == "user-agent, content-type");
  CHECK(res.header("Access-Control-Max-Age") == "86400");
  CHECK_FALSE(res.header("Access-Control-Allow-Private-Network").has_value());
  CHECK(f.calls.empty());
}

TEST_CASE("preflight grants private network access only when asked") {
  Fixture f;
  const Response res = f.send("OPTIONS", under_token("/symbolicate/v5"), {},
                              {{"Access-Control-Request-Private-Network", "true"}});
  CHECK(res.status == 204);
  CHECK(res.header("Access-Control-Allow-Private-Network") == "true");
  CHECK_FALSE(res.header("Access-Control-Allow-Headers").has_value());
}

TEST_CASE("api routes pass the path without the token and the raw body to the handler") {
  Fixture f;
  for (const char* path : {"/symbolicate/v5", "/source/v1", "/asm/v1"}) {
    CAPTURE(path);
    const Response res = f.send("POST", under_token(path), R"({"jobs":[]})",
                                {{"Content-Type", "text/plain;charset=UTF-8"}});
    CHECK(res.status == 200);
    CHECK(res.body == R"({"results":[]})");
    CHECK(res.header("Content-Type") == "application/json");
    REQUIRE_FALSE(f.calls.empty());
    CHECK(f.calls.back().path == path);
    CHECK(f.calls.back().body == R"({"jobs":[]})");
  }
  CHECK(f.calls.size() == 3);
}

TEST_CASE("repeated slashes after the token reach the same route") {
  Fixture f;
  const Response res = f.send("POST", under_token("//symbolicate///v5?x=1"), "{}");
  CHECK(res.status == 200);
  REQUIRE(f.calls.size() == 1);
  CHECK(f.calls[0].path == "/symbolicate/v5");
  CHECK(path_under_token("/tok//a//b", "tok") == "/a/b");
  CHECK(path_under_token("/tok", "tok") == "");
  CHECK(path_under_token("/tok?q", "tok") == "");
  CHECK(path_under_token("/tokx", "tok") == std::nullopt);
  CHECK(path_under_token("/tok/x", "") == std::nullopt);
}

TEST_CASE("the api handler's status and content type are passed through") {
  Fixture f;
  f.config.api = [](std::string_view, std::string_view) {
    return HttpReply::whole(400, "", R"({"error":"bad json"})");
  };
  const Response res = f.send("POST", under_token("/source/v1"), "not json");
  CHECK(res.status == 400);
  CHECK(res.header("Content-Type") == "application/json");  // empty means JSON
  CHECK(res.body == R"({"error":"bad json"})");
}

TEST_CASE("api routes answer 503 when no handler is installed") {
  Fixture f;
  f.config.api = nullptr;
  CHECK(f.send("POST", under_token("/symbolicate/v5"), "{}").status == 503);
}

TEST_CASE("wrong methods under the token are 405 with an Allow header") {
  Fixture f;
  const Response get_api = f.send("GET", under_token("/symbolicate/v5"));
  CHECK(get_api.status == 405);
  CHECK(get_api.header("Allow") == "POST, OPTIONS");
  const Response post_profile = f.send("POST", under_token("/profile.json"), "{}");
  CHECK(post_profile.status == 405);
  CHECK(post_profile.header("Allow") == "GET, OPTIONS");
  for (const char* method : {"DELETE", "PUT", "PATCH", "TRACE"}) {
    CAPTURE(method);
    const Response res = f.send(method, under_token("/profile.json"));
    CHECK(res.status == 405);
    CHECK(res.header("Access-Control-Allow-Origin") == "*");
  }
  CHECK(f.send("POST", under_token("/unknown")).status == 404);
  CHECK(f.calls.empty());
}

TEST_CASE("bodies above the limit are 413, close the connection and never reach the handler") {
  Fixture f;
  f.config.body_limit_bytes = 16;
  SUBCASE("declared content length above the limit, body not read") {
    Request request;
    request.method = "POST";
    request.target = under_token("/symbolicate/v5");
    request.content_length = 17;
    request.headers.push_back({"Host", "127.0.0.1"});
    const Response res = handle_request(request, f.config);
    CHECK(res.status == 413);
    CHECK(res.close_connection);
    CHECK(res.header("Access-Control-Allow-Origin") == "*");
    CHECK(f.calls.empty());
  }
  SUBCASE("body larger than the limit") {
    const Response res = f.send("POST", under_token("/symbolicate/v5"), std::string(17, 'x'));
    CHECK(res.status == 413);
    CHECK(res.close_connection);
    CHECK(f.calls.empty());
  }
  SUBCASE("a body exactly at the limit is accepted") {
    const Response res = f.send("POST", under_token("/symbolicate/v5"), std::string(16, 'x'));
    CHECK(res.status == 200);
    REQUIRE(f.calls.size() == 1);
    CHECK(f.calls[0].body.size() == 16);
    CHECK_FALSE(res.close_connection);
  }
}

TEST_CASE("the profile is served as stored gzip bytes with a json type and no content encoding") {
  Fixture f;
  REQUIRE(f.dir.valid());
  Response res = f.send("GET", under_token("/profile.json"));
  CHECK(res.status == 200);
  CHECK(res.header("Content-Type") == "application/json");
  CHECK_FALSE(res.header("Content-Encoding").has_value());
  CHECK(res.header("Access-Control-Allow-Origin") == "*");
  REQUIRE(res.body_file.valid());
  CHECK(res.body_file_size == kGzipBytes.size());
  CHECK(read_all(res.body_file.get()) == kGzipBytes);
}

TEST_CASE("sprof compare's second profile is served beside the first, and only when there is one") {
  Fixture f;
  REQUIRE(f.dir.valid());
  CHECK(f.send("GET", under_token("/compared-profile.json")).status == 404);
  const std::string second("{\"meta\":{\"version\":1}}");
  f.config.compared_profile_path = f.dir.write_file("second.json", second);
  Response res = f.send("GET", under_token("/compared-profile.json"));
  CHECK(res.status == 200);
  CHECK(res.header("Content-Type") == "application/json");
  REQUIRE(res.body_file.valid());
  CHECK(read_all(res.body_file.get()) == second);
  // The first profile is still the first; neither is reachable without the token.
  res = f.send("GET", under_token("/profile.json"));
  REQUIRE(res.body_file.valid());
  CHECK(read_all(res.body_file.get()) == kGzipBytes);
  CHECK(f.send("GET", "/compared-profile.json").status == 404);
  CHECK(f.send("POST", under_token("/compared-profile.json"), "{}").status == 405);
}

TEST_CASE("a missing profile file is a 404 under the token") {
  Fixture f;
  f.config.profile_path = (f.dir.path() / "gone.json").string();
  const Response res = f.send("GET", under_token("/profile.json"));
  CHECK(res.status == 404);
  CHECK_FALSE(res.body_file.valid());
  CHECK(res.header("Access-Control-Allow-Origin") == "*");
}

TEST_CASE("the page is rendered from the template with escaped values at every page path") {
  Fixture f;
  for (const char* path : {"", "/", "/index.html", "//index.html"}) {
    CAPTURE(path);
    const Response res = f.send("GET", under_token(path));
    CHECK(res.status == 200);
    CHECK(res.header("Content-Type") == "text/html; charset=utf-8");
    CHECK(res.body == "<h1>./app &lt;b&gt;&amp;</h1>");
  }
}

TEST_CASE("static assets are served with their type and unknown names are 404") {
  Fixture f;
  const Response css = f.send("GET", under_token("/style.css"));
  CHECK(css.status == 200);
  CHECK(css.header("Content-Type") == "text/css; charset=utf-8");
  CHECK(css.body == "h1{}");
  CHECK(f.send("GET", under_token("/missing.js")).status == 404);
  CHECK(f.send("GET", under_token("/../style.css")).status == 404);
}

TEST_CASE("head requests are routed like get") {
  Fixture f;
  const Response res = f.send("HEAD", under_token("/profile.json"));
  CHECK(res.status == 200);
  CHECK(res.body_file_size == kGzipBytes.size());
}

TEST_CASE("post requests and reads of views go to the worker pool, nothing else") {
  Fixture f;
  Request request;
  request.method = "POST";
  request.target = under_token("/symbolicate/v5");
  CHECK(may_call_api(request, f.config));
  request.method = "GET";
  CHECK_FALSE(may_call_api(request, f.config));
  request.target = under_token("/view/report.txt");
  CHECK(may_call_api(request, f.config));
  request.method = "HEAD";
  CHECK(may_call_api(request, f.config));
  request.method = "GET";
  request.target = "/view/report.txt";  // outside the token
  CHECK_FALSE(may_call_api(request, f.config));
  request.target = under_token("/profile.json");
  CHECK_FALSE(may_call_api(request, f.config));
}

TEST_CASE("views of the profile: what the view handler makes, 404 for what it does not") {
  Fixture f;
  std::vector<std::string> asked;
  f.config.views = [&asked](std::string_view name) -> std::optional<HttpReply> {
    asked.emplace_back(name);
    if (name != "report.txt") return std::nullopt;
    return HttpReply::whole(200, "text/plain; charset=utf-8", "a report");
  };
  Response res = f.send("GET", under_token("/view/report.txt"));
  CHECK(res.status == 200);
  CHECK(res.header("Content-Type") == "text/plain; charset=utf-8");
  CHECK(res.header("Cache-Control") == "no-store");
  CHECK(res.body == "a report");
  CHECK(f.send("GET", under_token("/view/other.svg")).status == 404);
  CHECK(f.send("GET", "/view/report.txt").status == 404);  // outside the token: never asked
  CHECK(asked == std::vector<std::string>{"report.txt", "other.svg"});
  f.config.views = nullptr;
  CHECK(f.send("GET", under_token("/view/report.txt")).status == 404);
}

TEST_CASE("a request addressed to another host name is refused before routing (DNS rebinding)") {
  Fixture f;
  // A page on attacker.example whose name now resolves to 127.0.0.1 sends its own name as Host.
  for (const char* host : {"attacker.example", "attacker.example:8000", "127.0.0.1.nip.io:8000",
                           "localhost.attacker.example", "[::2]:8000", "10.0.0.1", "0x7f000001",
                           "2130706433:8000", "127.0.0.1:80x", "", "127.1"}) {
    const std::string label = host;
    CAPTURE(label);
    for (const char* target : {"/profile.json", "/symbolicate/v5", "/"}) {
      const Response res = f.send(target == std::string("/symbolicate/v5") ? "POST" : "GET",
                                  under_token(target), "{}", {{"Host", host}});
      CHECK(res.status == 421);
      CHECK(res.body.find(host) != std::string::npos);
      CHECK_FALSE(res.header("Access-Control-Allow-Origin").has_value());
      CHECK_FALSE(res.body_file.valid());
    }
  }
  CHECK(f.calls.empty());
}

TEST_CASE("loopback host names and addresses are served, with or without a port") {
  Fixture f;
  for (const char* host : {"127.0.0.1", "127.0.0.1:8000", "127.1.2.3:65535", "localhost",
                           "LocalHost:8000", "[::1]", "[::1]:8000"}) {
    const std::string label = host;
    CAPTURE(label);
    const Response res = f.send("GET", under_token("/profile.json"), {}, {{"Host", host}});
    CHECK(res.status == 200);
    // The Firefox Profiler's requests come from its own origin, to a loopback Host.
    const Response api = f.send("POST", under_token("/symbolicate/v5"), "{}",
                                {{"Host", host}, {"Origin", "https://profiler.firefox.com"}});
    CHECK(api.status == 200);
    CHECK(api.header("Access-Control-Allow-Origin") == "*");
  }
}

TEST_CASE("the bind address is accepted as Host, and any IP literal when it is a wildcard") {
  Fixture f;
  f.config.bind_address = "192.168.1.5";
  CHECK(f.send("GET", under_token("/profile.json"), {}, {{"Host", "192.168.1.5:8000"}}).status ==
        200);
  CHECK(f.send("GET", under_token("/profile.json"), {}, {{"Host", "192.168.1.6:8000"}}).status ==
        421);
  f.config.bind_address = "fe80::1";
  CHECK(f.send("GET", under_token("/profile.json"), {}, {{"Host", "[fe80::1]:8000"}}).status ==
        200);
  f.config.bind_address = "0.0.0.0";
  CHECK(f.send("GET", under_token("/profile.json"), {}, {{"Host", "10.1.2.3:8000"}}).status == 200);
  CHECK(f.send("GET", under_token("/profile.json"), {}, {{"Host", "[2001:db8::7]"}}).status == 200);
  // A wildcard bind still refuses names: they are what DNS rebinding uses.
  CHECK(f.send("GET", under_token("/profile.json"), {}, {{"Host", "myhost.lan:8000"}}).status ==
        421);
}

TEST_CASE("the host --server-url names is answered as well, and no other name") {
  Fixture f;
  f.config.public_host = "devbox.lan";
  CHECK(f.send("GET", under_token("/profile.json"), {}, {{"Host", "devbox.lan:3000"}}).status ==
        200);
  CHECK(f.send("GET", under_token("/profile.json"), {}, {{"Host", "DevBox.LAN"}}).status == 200);
  CHECK(f.send("GET", under_token("/profile.json"), {}, {{"Host", "other.lan:3000"}}).status ==
        421);
}

TEST_CASE("a request with two Host headers is 400 whatever their order (RFC 9112 section 3.2)") {
  Fixture f;
  for (const auto& hosts : {std::pair{"127.0.0.1", "evil.com"}, std::pair{"evil.com", "127.0.0.1"},
                            std::pair{"127.0.0.1", "127.0.0.1"}}) {
    const std::string label = std::string(hosts.first) + " then " + hosts.second;
    CAPTURE(label);
    Request request;
    request.method = "GET";
    request.target = under_token("/profile.json");
    request.headers = {{"Host", hosts.first}, {"host", hosts.second}};
    const Response res = handle_request(request, f.config);
    CHECK(res.status == 400);
    CHECK(res.body.find("more than one Host header") != std::string::npos);
    CHECK_FALSE(res.body_file.valid());
    CHECK_FALSE(res.header("Access-Control-Allow-Origin").has_value());
  }
  CHECK(f.calls.empty());
}

TEST_CASE("a request without a Host header is 400") {
  Fixture f;
  Request request;
  request.method = "GET";
  request.target = under_token("/profile.json");
  const Response res = handle_request(request, f.config);
  CHECK(res.status == 400);
  CHECK(res.body.find("Host") != std::string::npos);
}
