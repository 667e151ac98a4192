#include "debuginfod_server.hpp"

#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "sprof/core/unique_fd.hpp"

namespace sprof::test {
namespace {

sockaddr_in loopback(uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

// A port the kernel just handed out for 127.0.0.1; free again once the socket is closed.
uint16_t ephemeral_port() {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  REQUIRE(fd.valid());
  sockaddr_in address = loopback(0);
  REQUIRE(::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  socklen_t length = sizeof address;
  REQUIRE(::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &length) == 0);
  return ntohs(address.sin_port);
}

bool program_exists(const std::string& name) {
  return run_process({"sh", "-c", "command -v " + name}).exit_code == 0;
}

}  // namespace

namespace {

std::string http_request(uint16_t port, const std::string& head, const std::string& body) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return {};
  timeval timeout{5, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  sockaddr_in address = loopback(port);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return {};
  const std::string request = head + "Host: 127.0.0.1\r\n\r\n" + body;
  if (::send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    return {};
  }
  std::string response;
  char buffer[8192];
  for (ssize_t n; (n = ::recv(fd.get(), buffer, sizeof buffer, 0)) > 0;) response.append(buffer, n);
  const size_t start = response.find("\r\n\r\n");
  return start == std::string::npos ? std::string() : response.substr(start + 4);
}

}  // namespace

std::string http_get(uint16_t port, const std::string& path) {
  return http_request(port, "GET " + path + " HTTP/1.0\r\n", "");
}

std::string http_post(uint16_t port, const std::string& path, const std::string& body) {
  return http_request(port,
                      "POST " + path + " HTTP/1.0\r\nContent-Type: application/json\r\n" +
                          "Content-Length: " + std::to_string(body.size()) + "\r\n",
                      body);
}

uint16_t DebuginfodServer::closed_port() { return ephemeral_port(); }

DebuginfodServer::DebuginfodServer(std::unique_ptr<BackgroundProcess> process, uint16_t port)
    : process_(std::move(process)), port_(port), url_("http://127.0.0.1:" + std::to_string(port)) {}

std::optional<DebuginfodServer> DebuginfodServer::start(const std::string& directory,
                                                        int expected_files,
                                                        const std::string& log_path) {
  if (!program_exists("debuginfod")) return std::nullopt;
  // The port is free when chosen but could be taken before debuginfod binds it: try again then.
  for (int attempt = 0; attempt < 5; ++attempt) {
    const uint16_t port = ephemeral_port();
    auto process = std::make_unique<BackgroundProcess>(
        std::vector<std::string>{"debuginfod", "--port=" + std::to_string(port), "-d",
                                 ":memory:", "-F", directory, "-v"},
        log_path);
    DebuginfodServer server(std::move(process), port);
    // Indexing runs in the background after the HTTP server is up; /metrics says how far.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      if (server.metric("scanned_files_total{source=\"file\"}") >=
          static_cast<uint64_t>(expected_files)) {
        return server;
      }
      if (server.process_->log().find("cannot") != std::string::npos) break;  // bind failed
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    MESSAGE("debuginfod did not come up on port " << port << ":\n" << server.process_->log());
  }
  FAIL("debuginfod did not start");
  return std::nullopt;
}

uint64_t DebuginfodServer::metric(const std::string& name) const {
  std::istringstream metrics(http_get(port_, "/metrics"));
  for (std::string line; std::getline(metrics, line);) {
    if (line.starts_with(name + " ")) return std::stoull(line.substr(name.size() + 1));
  }
  return 0;
}

}  // namespace sprof::test
