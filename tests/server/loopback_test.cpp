// Real HTTP round trips against a server on 127.0.0.1 with an ephemeral port.
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <atomic>
#include <cstdio>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "http_test_client.hpp"
#include "sprof/server/server.hpp"
#include "temp_dir.hpp"

using namespace sprof::server;
using sprof::test::HttpResult;
using sprof::test::HttpTestClient;

namespace {

const std::string kProfileBytes("\x1f\x8b\x08\x00gzip\0payload", 16);

// A server running on its own thread for the duration of a test.
class RunningServer {
 public:
  explicit RunningServer(ServerOptions options) {
    options.port = "0";
    options.profile_path = dir_.write_file("profile.json.gz", kProfileBytes);
    auto started = Server::start(std::move(options));
    REQUIRE_MESSAGE(started.has_value(), started.error().message);
    server_ = std::move(*started);
    thread_ = std::thread([this] { server_->run(); });
  }
  ~RunningServer() {
    server_->stop();
    thread_.join();
  }

  Server& server() { return *server_; }
  std::uint16_t port() const { return server_->port(); }
  // The path part of base_url(): "/TOKEN".
  std::string prefix() const {
    const std::string& base = server_->base_url();
    return base.substr(base.find('/', std::string("http://").size()));
  }

 private:
  sprof::test::TempDir dir_;
  std::unique_ptr<Server> server_;
  std::thread thread_;
};

ServerOptions options_with_echo_api() {
  ServerOptions options;
  options.api = [](std::string_view path, std::string_view body) {
    return HttpReply::whole(
        200, "application/json",
        "{\"path\":\"" + std::string(path) + "\",\"size\":" + std::to_string(body.size()) + "}");
  };
  options.assets = [](std::string_view name) -> std::optional<StaticAsset> {
    if (name == "index.html")
      return StaticAsset{"text/html; charset=utf-8", "<p>{{COMMAND}} {{PROFILE_URL}}</p>"};
    return std::nullopt;
  };
  options.page = {{"COMMAND", "run <me>"}};
  return options;
}

}  // namespace

TEST_CASE("server reports its urls on 127.0.0.1 with a random token") {
  RunningServer running(options_with_echo_api());
  Server& server = running.server();
  CHECK(server.port() != 0);
  const std::string host = "http://127.0.0.1:" + std::to_string(server.port()) + "/";
  CHECK(server.base_url().starts_with(host));
  CHECK(server.base_url().size() == host.size() + 39);
  CHECK(server.profile_url() == server.base_url() + "/profile.json");
  CHECK(server.profiler_url() ==
        profiler_url(kDefaultProfilerBase, server.profile_url(), server.base_url()));
}

TEST_CASE("loopback get of the profile returns the stored bytes with cors and json type") {
  RunningServer running(options_with_echo_api());
  HttpTestClient client(running.port());
  const HttpResult res = client.request("GET", running.prefix() + "/profile.json");
  CHECK(res.status == 200);
  CHECK(res.body == kProfileBytes);
  CHECK(res.header("content-type") == "application/json");
  CHECK(res.header("access-control-allow-origin") == "*");
  CHECK_FALSE(res.has_header("content-encoding"));
  CHECK(res.header("content-length") == std::to_string(kProfileBytes.size()));
}

TEST_CASE("loopback head of the profile announces its length without a body") {
  RunningServer running(options_with_echo_api());
  HttpTestClient client(running.port());
  const HttpResult res = client.request("HEAD", running.prefix() + "/profile.json");
  CHECK(res.status == 200);
  CHECK(res.header("content-length") == std::to_string(kProfileBytes.size()));
  CHECK(res.body.empty());
  // The connection is still usable, so no stray body bytes were sent.
  CHECK(client.request("GET", running.prefix() + "/profile.json").body == kProfileBytes);
}

TEST_CASE("loopback post reaches the api handler and the page is templated") {
  RunningServer running(options_with_echo_api());
  HttpTestClient client(running.port());
  const HttpResult api = client.request("POST", running.prefix() + "//symbolicate/v5",
                                        R"({"memoryMap":[],"stacks":[]})",
                                        {{"Content-Type", "text/plain;charset=UTF-8"}});
  CHECK(api.status == 200);
  CHECK(api.body == R"({"path":"/symbolicate/v5","size":28})");
  CHECK(api.header("access-control-allow-origin") == "*");

  const HttpResult page = client.request("GET", running.prefix() + "/");
  CHECK(page.status == 200);
  CHECK(page.body == "<p>run &lt;me&gt; " + running.server().profile_url() + "</p>");
}

TEST_CASE("loopback preflight and wrong token behave as the Firefox Profiler requires") {
  RunningServer running(options_with_echo_api());
  HttpTestClient client(running.port());
  const HttpResult preflight = client.request("OPTIONS", running.prefix() + "/symbolicate/v5", {},
                                              {{"Origin", "https://profiler.firefox.com"},
                                               {"Access-Control-Request-Method", "POST"},
                                               {"Access-Control-Request-Headers", "user-agent"}});
  CHECK(preflight.status == 204);
  CHECK(preflight.header("access-control-allow-headers") == "user-agent");
  CHECK(preflight.header("access-control-max-age") == "86400");
  CHECK_FALSE(preflight.has_header("content-length"));

  const HttpResult wrong = client.request("GET", "/not-the-token/profile.json");
  CHECK(wrong.status == 404);
  CHECK_FALSE(wrong.has_header("access-control-allow-origin"));
}

TEST_CASE("two requests share one keep-alive connection") {
  RunningServer running(options_with_echo_api());
  HttpTestClient client(running.port());
  const HttpResult first = client.request("POST", running.prefix() + "/source/v1", "{}");
  CHECK(first.status == 200);
  CHECK(first.keep_alive);
  const HttpResult second = client.request("POST", running.prefix() + "/asm/v1", "{}");
  CHECK(second.status == 200);
  CHECK(second.body == R"({"path":"/asm/v1","size":2})");
}

TEST_CASE("a malformed request gets 400 and a closed connection, and the server keeps serving") {
  RunningServer running(options_with_echo_api());
  {
    HttpTestClient bad(running.port());
    const std::string reply = bad.send_raw("THIS IS NOT HTTP\r\n\r\n");
    CHECK(reply.starts_with("HTTP/1.1 400"));
  }
  HttpTestClient good(running.port());
  CHECK(good.request("GET", running.prefix() + "/profile.json").status == 200);
}

TEST_CASE("accepted connections send without Nagle's delay (TCP_NODELAY)") {
  // Beast writes a response's header and body separately; with Nagle's algorithm the body waits
  // for the client's delayed ACK of the header, about 40 ms per keep-alive response.
  std::atomic<int> accepted{0};
  std::atomic<int> nodelay{-1};
  ServerOptions options = options_with_echo_api();
  options.on_accepted_socket = [&](int fd) {
    int value = 0;
    socklen_t size = sizeof value;
    if (::getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &value, &size) == 0) nodelay = value;
    ++accepted;
  };
  RunningServer running(std::move(options));
  HttpTestClient client(running.port());
  CHECK(client.request("GET", running.prefix() + "/profile.json").status == 200);
  CHECK(accepted == 1);
  CHECK(nodelay == 1);
}

TEST_CASE(
    "a request with unusable framing gets 400 and the pipelined request after it is not served") {
  RunningServer running(options_with_echo_api());
  // RFC 9112 section 6.3: a Transfer-Encoding that does not end in chunked leaves the request's
  // length unknown, and with a Content-Length as well it is a smuggling attempt: the server must
  // answer 400 and close, so the bytes after it are never read as a request.
  const std::string next =
      "GET " + running.prefix() + "/profile.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  for (const char* framing :
       {"Transfer-Encoding: xchunked\r\nContent-Length: 5\r\n",
        "Transfer-Encoding: chunked, gzip\r\n", "Content-Length: 5\r\nContent-Length: 6\r\n"}) {
    const std::string label = framing;
    CAPTURE(label);
    HttpTestClient client(running.port());
    const std::string reply = client.send_raw("POST " + running.prefix() +
                                              "/symbolicate/v5 HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                                              framing + "\r\nhello" + next);
    CHECK(reply.starts_with("HTTP/1.1 400"));
    CHECK(reply.find("Connection: close") != std::string::npos);
    CHECK(reply.find("HTTP/1.1 ", 1) == std::string::npos);  // one response only
  }
}

TEST_CASE("a request whose Host is not a loopback name gets 421 and no profile bytes") {
  RunningServer running(options_with_echo_api());
  HttpTestClient client(running.port());
  const std::string port = std::to_string(running.port());
  const HttpResult rebound = client.request(
      "GET", running.prefix() + "/profile.json", {},
      {{"Host", "attacker.example:" + port}, {"Origin", "http://attacker.example:" + port}});
  CHECK(rebound.status == 421);
  CHECK(rebound.body.find(kProfileBytes) == std::string::npos);
  CHECK_FALSE(rebound.has_header("access-control-allow-origin"));
  const HttpResult direct =
      client.request("GET", running.prefix() + "/profile.json", {},
                     {{"Host", "127.0.0.1:" + port}, {"Origin", "https://profiler.firefox.com"}});
  CHECK(direct.status == 200);
  CHECK(direct.body == kProfileBytes);
  CHECK(direct.header("access-control-allow-origin") == "*");
}

TEST_CASE("a request with two Host headers gets 400 and no profile bytes, in either order") {
  RunningServer running(options_with_echo_api());
  for (const char* hosts :
       {"Host: 127.0.0.1\r\nHost: evil.com\r\n", "Host: evil.com\r\nHost: 127.0.0.1\r\n"}) {
    const std::string label = hosts;
    CAPTURE(label);
    HttpTestClient client(running.port());
    const std::string reply =
        client.send_raw("GET " + running.prefix() + "/profile.json HTTP/1.1\r\n" + hosts +
                        "Connection: close\r\n\r\n");
    CHECK(reply.starts_with("HTTP/1.1 400"));
    CHECK(reply.find("more than one Host header") != std::string::npos);
    CHECK(reply.find(kProfileBytes) == std::string::npos);
  }
}

TEST_CASE("a declared body above the limit gets 413 without the body being sent") {
  ServerOptions options = options_with_echo_api();
  options.body_limit_bytes = 1024;
  RunningServer running(std::move(options));
  HttpTestClient client(running.port());
  const std::string reply = client.send_raw("POST " + running.prefix() +
                                            "/symbolicate/v5 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                            "Content-Length: 4096\r\n\r\n");
  CHECK(reply.starts_with("HTTP/1.1 413"));
  CHECK(reply.find("Access-Control-Allow-Origin: *") != std::string::npos);
}

TEST_CASE("a body at the limit is accepted over the wire") {
  ServerOptions options = options_with_echo_api();
  options.body_limit_bytes = 1024;
  RunningServer running(std::move(options));
  HttpTestClient client(running.port());
  const HttpResult res =
      client.request("POST", running.prefix() + "/symbolicate/v5", std::string(1024, 'x'));
  CHECK(res.status == 200);
  CHECK(res.body == R"({"path":"/symbolicate/v5","size":1024})");
}

TEST_CASE("chunked bodies are accepted up to the limit and get 413 above it") {
  ServerOptions options = options_with_echo_api();
  options.body_limit_bytes = 1024;
  RunningServer running(std::move(options));
  auto chunked_post = [&](std::size_t size) {
    char chunk_size[16];
    std::snprintf(chunk_size, sizeof chunk_size, "%zx", size);
    HttpTestClient client(running.port());
    return client.send_raw("POST " + running.prefix() +
                           "/symbolicate/v5 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
                           std::string(chunk_size) + "\r\n" + std::string(size, 'z') +
                           "\r\n0\r\n\r\n");
  };
  const std::string small = chunked_post(1000);
  CHECK(small.starts_with("HTTP/1.1 200"));
  CHECK(small.find(R"({"path":"/symbolicate/v5","size":1000})") != std::string::npos);
  const std::string large = chunked_post(2000);
  CHECK(large.starts_with("HTTP/1.1 413"));
  CHECK(large.find("Access-Control-Allow-Origin: *") != std::string::npos);
}

TEST_CASE("concurrent connections are all served") {
  RunningServer running(options_with_echo_api());
  constexpr int kClients = 6;
  std::vector<std::future<std::string>> results;
  for (int i = 0; i < kClients; ++i) {
    results.push_back(std::async(std::launch::async, [&running, i] {
      HttpTestClient client(running.port());
      std::string bodies;
      for (int j = 0; j < 3; ++j) {
        bodies +=
            client.request("POST", running.prefix() + "/symbolicate/v5", std::string(i, 'y')).body;
      }
      return bodies;
    }));
  }
  for (int i = 0; i < kClients; ++i) {
    const std::string one = R"({"path":"/symbolicate/v5","size":)" + std::to_string(i) + "}";
    CHECK(results[static_cast<std::size_t>(i)].get() == one + one + one);
  }
}

TEST_CASE("a slow api handler does not block another connection's get") {
  std::promise<void> handler_entered;
  std::promise<void> release_handler;
  std::shared_future<void> released = release_handler.get_future().share();
  ServerOptions options = options_with_echo_api();
  options.api = [&](std::string_view, std::string_view) {
    handler_entered.set_value();
    released.wait();  // held until the other connection has been served
    return HttpReply::whole(200, "application/json", R"({"slow":true})");
  };
  RunningServer running(std::move(options));

  auto slow = std::async(std::launch::async, [&running] {
    HttpTestClient client(running.port());
    return client.request("POST", running.prefix() + "/symbolicate/v5", "{}").body;
  });
  handler_entered.get_future().wait();
  {
    // If the io thread were stuck in the handler, this would fail with the client's timeout.
    HttpTestClient other(running.port());
    const HttpResult res = other.request("GET", running.prefix() + "/profile.json");
    CHECK(res.status == 200);
    CHECK(res.body == kProfileBytes);
  }
  release_handler.set_value();
  CHECK(slow.get() == R"({"slow":true})");
}

TEST_CASE("an api handler that throws fails only its own request") {
  ServerOptions options = options_with_echo_api();
  options.api = [](std::string_view path, std::string_view) -> HttpReply {
    if (path == "/asm/v1") throw std::runtime_error("handler bug");
    return HttpReply::whole(200, "application/json", "{}");
  };
  RunningServer running(std::move(options));
  HttpTestClient client(running.port());
  CHECK(client.request("POST", running.prefix() + "/asm/v1", "{}").status == 500);
  CHECK(client.request("POST", running.prefix() + "/source/v1", "{}").status == 200);
}

TEST_CASE("stop closes idle keep-alive connections and run returns") {
  auto started = Server::start(options_with_echo_api());
  REQUIRE(started.has_value());
  Server& server = **started;
  std::thread runner([&server] { server.run(); });
  HttpTestClient client(server.port());
  const std::string base = server.base_url();
  CHECK(client.request("GET", base.substr(base.find('/', 7)) + "/profile.json").status == 404);
  server.stop();
  runner.join();  // returns once the idle connection is closed (bounded by the grace period)
  CHECK(client.server_closed());
}

TEST_CASE("an exact port in use is a clear error and a port range falls back to the next port") {
  RunningServer first(options_with_echo_api());
  const std::uint16_t taken = first.port();

  ServerOptions exact = options_with_echo_api();
  exact.port = std::to_string(taken);
  auto clash = Server::start(std::move(exact));
  REQUIRE_FALSE(clash.has_value());
  CHECK(clash.error().code == sprof::Errc::kIo);
  CHECK(clash.error().message.find(std::to_string(taken)) != std::string::npos);
  CHECK(clash.error().message.find("in use") != std::string::npos);

  ServerOptions range = options_with_echo_api();
  range.port = std::to_string(taken) + "+";
  auto fallback = Server::start(std::move(range));
  if (!fallback.has_value()) {
    // Possible only if all 99 following ports are taken too; say so rather than pass silently.
    FAIL_CHECK("no free port after " << taken << ": " << fallback.error().message);
  } else {
    CHECK((*fallback)->port() > taken);
    CHECK((*fallback)->port() <= taken + 99);
  }
}

TEST_CASE("invalid bind addresses and port specs are rejected before binding") {
  ServerOptions bad_address;
  bad_address.bind_address = "not-an-address";
  auto a = Server::start(std::move(bad_address));
  REQUIRE_FALSE(a.has_value());
  CHECK(a.error().code == sprof::Errc::kInvalidArgument);

  ServerOptions bad_port;
  bad_port.port = "http";
  auto b = Server::start(std::move(bad_port));
  REQUIRE_FALSE(b.has_value());
  CHECK(b.error().code == sprof::Errc::kInvalidArgument);
}

namespace {

// An API whose reply body is produced in `parts` parts of `part_size` bytes ('a', 'b', ...).
ServerOptions options_with_produced_api(int parts, std::size_t part_size) {
  ServerOptions options;
  options.api = [parts, part_size](std::string_view, std::string_view) {
    HttpReply reply;
    auto made = std::make_shared<int>(0);
    reply.body_producer = [made, parts, part_size](std::string& out) {
      out.assign(part_size, static_cast<char>('a' + *made % 26));
      return ++*made < parts;
    };
    return reply;
  };
  return options;
}

std::string expected_produced_body(int parts, std::size_t part_size) {
  std::string body;
  for (int i = 0; i < parts; ++i) body.append(part_size, static_cast<char>('a' + i % 26));
  return body;
}

}  // namespace

TEST_CASE("a produced api body goes out chunked and the connection stays usable") {
  RunningServer running(options_with_produced_api(40, 10000));
  HttpTestClient client(running.port());
  const HttpResult first = client.request("POST", running.prefix() + "/symbolicate/v5", "{}");
  CHECK(first.status == 200);
  CHECK(first.header("transfer-encoding") == "chunked");
  CHECK_FALSE(first.has_header("content-length"));
  CHECK(first.header("access-control-allow-origin") == "*");
  CHECK(first.body == expected_produced_body(40, 10000));
  CHECK(first.keep_alive);
  const HttpResult second = client.request("POST", running.prefix() + "/symbolicate/v5", "{}");
  CHECK(second.body == expected_produced_body(40, 10000));
}

TEST_CASE("a produced api body reaches an HTTP/1.0 client unframed, ended by the close") {
  RunningServer running(options_with_produced_api(3, 5));
  HttpTestClient client(running.port());
  const std::string received = client.send_raw("POST " + running.prefix() +
                                               "/symbolicate/v5 HTTP/1.0\r\nHost: 127.0.0.1\r\n"
                                               "Content-Length: 2\r\n\r\n{}");
  const auto body_start = received.find("\r\n\r\n");
  REQUIRE(body_start != std::string::npos);
  CHECK(received.substr(body_start + 4) == "aaaaabbbbbccccc");
  const std::string head = received.substr(0, body_start);
  CHECK(head.find("Transfer-Encoding") == std::string::npos);
  CHECK(head.find("Content-Length") == std::string::npos);
}

TEST_CASE("a producer that throws cuts its own reply short and the server keeps serving") {
  ServerOptions options;
  options.api = [](std::string_view path, std::string_view) {
    HttpReply reply;
    if (path != "/symbolicate/v5") return HttpReply::whole(200, "application/json", "{}");
    auto made = std::make_shared<int>(0);
    reply.body_producer = [made](std::string& out) -> bool {
      if (++*made > 2) throw std::runtime_error("producer bug");
      out = "part";
      return true;
    };
    return reply;
  };
  RunningServer running(std::move(options));
  HttpTestClient client(running.port());
  const std::string received = client.send_raw("POST " + running.prefix() +
                                               "/symbolicate/v5 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                               "Content-Length: 2\r\n\r\n{}");
  // The chunked body never gets its last chunk: a client sees a truncated reply, not a whole one.
  CHECK(received.find("part") != std::string::npos);
  CHECK(received.find("\r\n0\r\n\r\n") == std::string::npos);
  HttpTestClient other(running.port());
  CHECK(other.request("POST", running.prefix() + "/source/v1", "{}").status == 200);
}
