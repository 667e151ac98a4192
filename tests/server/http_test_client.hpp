// A small blocking HTTP/1.1 client over 127.0.0.1 for the loopback tests. Every operation has a
// deadline (kTimeout), so a server bug makes a test fail instead of hanging. Failures throw, which
// doctest reports as the test's error. Beast stays inside http_test_client.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sprof::test {

struct HttpResult {
  unsigned status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  bool keep_alive = false;

  bool has_header(const std::string& lower_name) const { return headers.count(lower_name) != 0; }
  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
  }
};

class HttpTestClient {
 public:
  explicit HttpTestClient(std::uint16_t port);  // connects
  ~HttpTestClient();
  HttpTestClient(const HttpTestClient&) = delete;
  HttpTestClient& operator=(const HttpTestClient&) = delete;

  // One request on this connection (keep-alive unless the server closes it).
  HttpResult request(const std::string& method, const std::string& target,
                     const std::string& body = {},
                     const std::vector<std::pair<std::string, std::string>>& headers = {});

  // Writes `bytes` as they are and returns everything the server sends until it closes.
  std::string send_raw(std::string_view bytes);

  // True when the server has closed the connection (a read returns end of stream).
  bool server_closed();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sprof::test
