#include "http_test_client.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cctype>
#include <chrono>

namespace sprof::test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

constexpr auto kTimeout = std::chrono::seconds(20);

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

struct HttpTestClient::Impl {
  asio::io_context io;
  beast::tcp_stream stream{io};
  beast::flat_buffer buffer;

  struct Outcome {
    beast::error_code ec;
    std::size_t bytes = 0;
  };

  // Starts an asynchronous operation, runs it to completion on this thread (bounded by the
  // stream's deadline) and returns its error code and byte count.
  template <class Start>
  Outcome run(Start start) {
    stream.expires_after(kTimeout);
    Outcome outcome;
    start([&outcome](beast::error_code ec, auto... bytes) {
      outcome.ec = ec;
      ((outcome.bytes = bytes), ...);
    });
    io.restart();
    io.run();
    return outcome;
  }

  // For operations that must succeed: a failure ends the test with the error's message.
  template <class Start>
  void run_or_throw(Start start) {
    const Outcome outcome = run(start);
    if (outcome.ec) throw beast::system_error(outcome.ec);
  }
};

HttpTestClient::HttpTestClient(std::uint16_t port) : impl_(std::make_unique<Impl>()) {
  const asio::ip::tcp::endpoint endpoint(asio::ip::address_v4::loopback(), port);
  impl_->run_or_throw([&](auto handler) { impl_->stream.async_connect(endpoint, handler); });
}

HttpTestClient::~HttpTestClient() = default;

HttpResult HttpTestClient::request(
    const std::string& method, const std::string& target, const std::string& body,
    const std::vector<std::pair<std::string, std::string>>& headers) {
  http::request<http::string_body> req;
  req.method_string(method);
  req.target(target);
  req.version(11);
  req.set(http::field::host, "127.0.0.1");
  for (const auto& [name, value] : headers) req.set(name, value);
  req.body() = body;
  if (!body.empty() || method == "POST") req.prepare_payload();
  impl_->run_or_throw([&](auto handler) { http::async_write(impl_->stream, req, handler); });

  http::response_parser<http::string_body> parser;
  parser.body_limit(1ull << 30);
  parser.skip(method == "HEAD");  // a HEAD response announces a body it does not send
  impl_->run_or_throw(
      [&](auto handler) { http::async_read(impl_->stream, impl_->buffer, parser, handler); });
  const auto& res = parser.get();
  HttpResult result;
  result.status = res.result_int();
  for (const auto& field : res)
    result.headers[lower(field.name_string())] = std::string(field.value());
  result.body = res.body();
  result.keep_alive = res.keep_alive();
  return result;
}

std::string HttpTestClient::send_raw(std::string_view bytes) {
  impl_->run_or_throw([&](auto handler) {
    asio::async_write(impl_->stream, asio::buffer(bytes.data(), bytes.size()), handler);
  });
  std::string received;
  for (;;) {
    char chunk[4096];
    const auto outcome = impl_->run(
        [&](auto handler) { impl_->stream.async_read_some(asio::buffer(chunk), handler); });
    received.append(chunk, outcome.bytes);
    if (outcome.ec) break;  // end of stream (or reset) once the server closes
  }
  return received;
}

bool HttpTestClient::server_closed() {
  char byte;
  const auto outcome = impl_->run(
      [&](auto handler) { impl_->stream.async_read_some(asio::buffer(&byte, 1), handler); });
  return outcome.ec == asio::error::eof || outcome.ec == asio::error::connection_reset;
}

}  // namespace sprof::test
