// Server lifetime: graceful stop with a request in flight, the grace period bound, signals, and
// teardown without run(). Run under ASan these also check the teardown order of session frames.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>

#include "http_test_client.hpp"
#include "sprof/server/server.hpp"

using namespace sprof::server;
using sprof::test::HttpTestClient;

namespace {

// The path part of base_url(): "/TOKEN".
std::string prefix_of(const Server& server) {
  const std::string& base = server.base_url();
  return base.substr(base.find('/', std::string("http://").size()));
}

// An ApiHandler that blocks until released, announcing when it has started.
struct GatedHandler {
  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();

  ApiHandler handler() {
    return [this](std::string_view, std::string_view) {
      entered.set_value();
      released.wait();
      return HttpReply::whole(200, "application/json", R"({"done":true})");
    };
  }
};

}  // namespace

TEST_CASE("a server destroyed without running releases its port") {
  std::uint16_t port = 0;
  {
    auto server = Server::start(ServerOptions{});
    REQUIRE(server.has_value());
    port = (*server)->port();
    HttpTestClient connected_but_never_accepted((*server)->port());
  }
  ServerOptions again;
  again.port = std::to_string(port);
  auto rebound = Server::start(std::move(again));
  CHECK_MESSAGE(rebound.has_value(), (rebound.has_value() ? "" : rebound.error().message));
}

TEST_CASE("stop lets a request in flight finish and then closes its connection") {
  GatedHandler gate;
  ServerOptions options;
  options.api = gate.handler();
  auto started = Server::start(std::move(options));
  REQUIRE(started.has_value());
  Server& server = **started;
  std::thread runner([&server] { server.run(); });

  auto in_flight = std::async(std::launch::async, [&server] {
    HttpTestClient client(server.port());
    return client.request("POST", prefix_of(server) + "/symbolicate/v5", "{}");
  });
  gate.entered.get_future().wait();
  server.stop();
  gate.release.set_value();
  const auto res = in_flight.get();
  CHECK(res.status == 200);
  CHECK(res.body == R"({"done":true})");
  CHECK_FALSE(res.keep_alive);  // "Connection: close" once shutdown has begun
  runner.join();
  CHECK_THROWS(HttpTestClient(server.port()));
}

TEST_CASE("the grace period bounds shutdown when a request does not finish in time") {
  GatedHandler gate;
  ServerOptions options;
  options.api = gate.handler();
  options.shutdown_grace = std::chrono::milliseconds(50);
  auto started = Server::start(std::move(options));
  REQUIRE(started.has_value());
  std::unique_ptr<Server> server = std::move(*started);
  std::thread runner([&server] { server->run(); });

  const std::uint16_t port = server->port();
  const std::string target = prefix_of(*server) + "/symbolicate/v5";
  auto stuck = std::async(std::launch::async, [port, target] {
    HttpTestClient client(port);
    return client.send_raw("POST " + target +
                           " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}");
  });
  gate.entered.get_future().wait();
  server->stop();
  runner.join();  // returns although the handler is still blocked
  gate.release.set_value();
  server.reset();  // joins the worker, then drops the abandoned session, closing its socket
  CHECK(stuck.get().empty());
}

TEST_CASE("SIGTERM stops a server that handles signals") {
  ServerOptions options;
  options.handle_signals = true;
  auto started = Server::start(std::move(options));
  REQUIRE(started.has_value());
  Server& server = **started;
  std::promise<void> running;
  std::thread runner([&] {
    running.set_value();
    server.run();
  });
  running.get_future().wait();
  // Delivered to the process; Asio's handler turns it into a graceful stop. Without the handler
  // the default action would kill the test binary, failing loudly.
  ::kill(::getpid(), SIGTERM);
  runner.join();
  // The listener is closed: new connections are refused.
  CHECK_THROWS(HttpTestClient(server.port()));
}
