// A real `debuginfod` (elfutils' server, Debian package `debuginfod`) for the tests, on
// 127.0.0.1 at a free port, serving the ELF files under one directory, with an in-memory index.
// `start` returns nullopt (the caller skips, saying why) only when the program is not installed.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "subprocess.hpp"

namespace sprof::test {

class DebuginfodServer {
 public:
  // Starts the server on `directory` and waits until it has indexed `expected_files` files.
  // Fails the test if it does not come up.
  static std::optional<DebuginfodServer> start(const std::string& directory, int expected_files,
                                               const std::string& log_path);

  const std::string& url() const { return url_; }
  // A Prometheus counter from /metrics ("http_requests_total{type=\"buildid\"}"), 0 if absent.
  uint64_t metric(const std::string& name) const;

  // A port on 127.0.0.1 that nothing listens on (for "no server reachable").
  static uint16_t closed_port();

 private:
  DebuginfodServer(std::unique_ptr<BackgroundProcess> process, uint16_t port);

  std::unique_ptr<BackgroundProcess> process_;
  uint16_t port_ = 0;
  std::string url_;
};

// The body of GET (or, with a body, POST) http://127.0.0.1:<port><path>, or "" when the server
// does not answer.
std::string http_get(uint16_t port, const std::string& path);
std::string http_post(uint16_t port, const std::string& path, const std::string& body);

}  // namespace sprof::test
