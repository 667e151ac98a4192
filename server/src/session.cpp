#include "session.hpp"

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/file.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/file_body.hpp>
#include <boost/beast/http/message_generator.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <exception>
#include <optional>
#include <string>

#include "request_framing.hpp"
#include "sprof/core/log.hpp"

namespace sprof::server::detail {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

// Every Asio/Beast operation completes with (error_code, ...) as values: nothing throws.
constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);

// Request line plus headers. Beast's default (8 KiB) is small for browsers with many cookies;
// 64 KiB is still tiny next to the body limit.
constexpr std::uint32_t kHeaderLimitBytes = 64 * 1024;

using RequestParser = http::request_parser<http::string_body>;

// Errors that mean the client sent something that is not HTTP, as opposed to the client going
// away (end_of_stream, partial_message) or our own deadline/cancellation.
bool is_malformed_http(const beast::error_code& ec) {
  if (ec.category() != http::make_error_code(http::error::bad_target).category()) return false;
  return ec != http::error::end_of_stream && ec != http::error::partial_message;
}

Request request_from_header(const RequestParser& parser) {
  const auto& message = parser.get();
  Request request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  for (const auto& field : message) {
    request.headers.push_back({std::string(field.name_string()), std::string(field.value())});
  }
  if (auto length = parser.content_length()) request.content_length = *length;
  return request;
}

bool status_forbids_body(unsigned status) { return status < 200 || status == 204 || status == 304; }

template <class Body>
void fill_head(http::response<Body>& message, const Response& response, unsigned version,
               bool keep_alive) {
  message.result(response.status);
  message.version(version);
  for (const HttpHeader& h : response.headers) message.set(h.name, h.value);
  message.keep_alive(keep_alive);
}

Response internal_error(std::string what) {
  Response res;
  res.status = 500;
  res.set_header("Content-Type", "text/plain; charset=utf-8");
  res.body = std::move(what);
  return res;
}

// Converts the router's response to a Beast message. `head_only` answers a HEAD request: the same
// headers with the length of the body that GET would send, and no body.
http::message_generator to_message(Response response, unsigned version, bool keep_alive,
                                   bool head_only) {
  // Beast rejects status codes above 999; an API handler must not be able to trigger that.
  if (response.status < 100 || response.status > 599) {
    response = internal_error("invalid status " + std::to_string(response.status));
  }
  if (status_forbids_body(response.status)) {
    // RFC 9110 §15.3.5: no body and no Content-Length on 204 (or 1xx/304).
    http::response<http::empty_body> message;
    fill_head(message, response, version, keep_alive);
    return message;
  }
  if (head_only) {
    http::response<http::empty_body> message;
    fill_head(message, response, version, keep_alive);
    message.content_length(response.body_file.valid() ? response.body_file_size
                                                      : response.body.size());
    return message;
  }
  if (response.body_file.valid()) {
    beast::file file;
    file.native_handle(response.body_file.release());
    http::response<http::file_body> message;
    fill_head(message, response, version, keep_alive);
    beast::error_code ec;
    message.body().reset(std::move(file), ec);
    if (!ec) {
      message.prepare_payload();
      return message;
    }
    response = internal_error("cannot stream the file: " + ec.message());
  }
  http::response<http::string_body> message;
  fill_head(message, response, version, keep_alive);
  message.body() = std::move(response.body);
  message.prepare_payload();
  return message;
}

asio::awaitable<void> write_bad_request(beast::tcp_stream& stream, const SessionContext& context,
                                        std::string_view reason) {
  http::response<http::string_body> message{http::status::bad_request, 11};
  message.set(http::field::content_type, "text/plain; charset=utf-8");
  message.body() = reason.empty() ? "bad request\n" : "bad request: " + std::string(reason) + "\n";
  message.keep_alive(false);
  message.prepare_payload();
  stream.expires_after(context.write_timeout);
  co_await http::async_write(stream, message, kNoThrow);
}

// Closing a socket with unread input makes the kernel send RST, which can destroy the response
// before the client has read it (RFC 9112 section 9.6). So after an error response the sending
// side is shut down and the rest of the input is read and dropped, for a bounded time and size,
// until the client closes.
asio::awaitable<void> drain_before_close(beast::tcp_stream& stream) {
  constexpr auto kLinger = std::chrono::seconds(1);
  constexpr std::size_t kMaxDrainBytes = std::size_t{256} * 1024;
  stream.expires_after(kLinger);
  std::array<char, 4096> sink{};
  for (std::size_t drained = 0; drained < kMaxDrainBytes;) {
    auto [ec, n] = co_await stream.async_read_some(asio::buffer(sink), kNoThrow);
    if (ec) break;
    drained += n;
  }
}

std::string describe(const std::exception_ptr& exception) {
  try {
    std::rethrow_exception(exception);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {  // NOLINT: anything an ApiHandler throws ends that request only
  }
  return "unknown exception";
}

// Runs the router on the worker pool: the ApiHandler (symbolication) may take seconds. The
// coroutine resumes on the connection's io executor when it is done.
asio::awaitable<Response> route_on_pool(const Request& request, const SessionContext& context) {
  auto [exception, response] = co_await asio::co_spawn(
      context.api_pool,
      [&]() -> asio::awaitable<Response> { co_return handle_request(request, context.config); },
      kNoThrow);
  if (exception) {
    log::error("API handler for " + request.target + " threw: " + describe(exception));
    co_return internal_error("internal error\n");
  }
  co_return std::move(response);
}

// The next part of a produced body, made on the worker pool (producing may be slow); nullopt if
// the producer threw, which leaves nothing to do but close the connection mid-body.
asio::awaitable<std::optional<bool>> produce_on_pool(BodyProducer& producer, std::string& part,
                                                     const SessionContext& context) {
  auto [exception, more] = co_await asio::co_spawn(
      context.api_pool, [&]() -> asio::awaitable<bool> { co_return producer(part); }, kNoThrow);
  if (exception) {
    log::error("API reply producer threw: " + describe(exception));
    co_return std::nullopt;
  }
  co_return more;
}

// Sends a response whose body is produced in parts: the header, then each part as it is made,
// as HTTP/1.1 chunks, or for an HTTP/1.0 client as plain bytes ended by closing the connection
// (`keep_alive` must then be false). Only one part is held at a time, whatever the body's size.
asio::awaitable<beast::error_code> write_produced(beast::tcp_stream& stream, Response response,
                                                  unsigned version, bool keep_alive,
                                                  const SessionContext& context) {
  const bool chunked = version >= 11;
  http::response<http::empty_body> head;
  fill_head(head, response, version, keep_alive);
  if (chunked) head.chunked(true);
  http::response_serializer<http::empty_body> serializer(head);
  stream.expires_after(context.write_timeout);
  auto [header_ec, header_bytes] = co_await http::async_write_header(stream, serializer, kNoThrow);
  if (header_ec) co_return header_ec;
  std::string part;
  for (bool more = true; more;) {
    part.clear();
    const std::optional<bool> produced =
        co_await produce_on_pool(response.body_producer, part, context);
    if (!produced) co_return beast::error_code(asio::error::operation_aborted);
    more = *produced;
    if (part.empty()) continue;
    stream.expires_after(context.write_timeout);
    beast::error_code ec;
    // Plain statements, not `?:` around co_await (see serve_connection).
    if (chunked) {
      auto [chunk_ec, n] =
          co_await asio::async_write(stream, http::make_chunk(asio::buffer(part)), kNoThrow);
      ec = chunk_ec;
    } else {
      auto [raw_ec, n] = co_await asio::async_write(stream, asio::buffer(part), kNoThrow);
      ec = raw_ec;
    }
    if (ec) co_return ec;
  }
  if (chunked) {
    stream.expires_after(context.write_timeout);
    auto [last_ec, n] = co_await asio::async_write(stream, http::make_chunk_last(), kNoThrow);
    if (last_ec) co_return last_ec;
  }
  co_return beast::error_code();
}

// One request read off the connection, with what the response needs to know about it.
struct IncomingRequest {
  Request request;
  unsigned http_version = 11;
  bool head = false;
  // The client asked to keep the connection and every byte of the request was consumed; an
  // unread body (above the limit) would otherwise be parsed as the next request.
  bool reusable = false;
};

// Reads the next request. nullopt means the connection ends: the client closed it, a deadline
// passed, shutdown cancelled the wait, or the bytes were not usable HTTP (then a 400 has been
// sent and `rejected` is set: the client may have sent more that must not be read as requests).
asio::awaitable<std::optional<IncomingRequest>> read_request(beast::tcp_stream& stream,
                                                             beast::flat_buffer& buffer,
                                                             ScopedConnection& connection,
                                                             const SessionContext& context,
                                                             bool& rejected) {
  const std::uint64_t limit = context.config.body_limit_bytes;
  RequestParser parser;
  parser.header_limit(kHeaderLimitBytes);
  // Unlimited while reading the header so an oversized Content-Length reaches the router, which
  // answers 413 with CORS headers, instead of Beast failing the read.
  parser.body_limit(boost::none);

  connection.set_idle(true);
  stream.expires_after(context.read_timeout);
  auto [header_ec, header_bytes] =
      co_await http::async_read_header(stream, buffer, parser, kNoThrow);
  connection.set_idle(false);
  if (header_ec) {
    rejected = is_malformed_http(header_ec);
    if (rejected) co_await write_bad_request(stream, context, {});
    co_return std::nullopt;
  }

  IncomingRequest incoming;
  incoming.request = request_from_header(parser);
  if (auto reason = unusable_framing(incoming.request, parser.get().version())) {
    rejected = true;
    co_await write_bad_request(stream, context, *reason);
    co_return std::nullopt;
  }
  if (incoming.request.content_length.value_or(0) <= limit && !parser.is_done()) {
    parser.body_limit(limit);  // still applies to chunked bodies
    stream.expires_after(context.read_timeout);
    auto [body_ec, body_bytes] = co_await http::async_read(stream, buffer, parser, kNoThrow);
    if (body_ec == http::error::body_limit) {
      // A chunked body grew past the limit: report it as if it had been declared that large.
      incoming.request.content_length = limit + 1;
    } else if (body_ec) {
      rejected = is_malformed_http(body_ec);
      if (rejected) co_await write_bad_request(stream, context, {});
      co_return std::nullopt;
    } else {
      incoming.request.body = std::move(parser.get().body());
    }
  }
  incoming.http_version = parser.get().version();
  incoming.head = parser.get().method() == http::verb::head;
  incoming.reusable = parser.is_done() && parser.get().keep_alive();
  co_return incoming;
}

}  // namespace

asio::awaitable<void> serve_connection(asio::ip::tcp::socket socket,
                                       const SessionContext& context) {
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer;
  ScopedConnection connection(context.connections, [&stream] { stream.cancel(); });

  // Set when the connection closes with request bytes possibly left unread (400, 413).
  bool unread_input = false;
  while (!context.connections.stopping()) {
    std::optional<IncomingRequest> incoming =
        co_await read_request(stream, buffer, connection, context, unread_input);
    if (!incoming) break;

    // Plain statements rather than `cond ? co_await ... : ...`: GCC 12 miscompiles co_await
    // inside conditional expressions and on temporaries of the enclosing full-expression.
    Response response;
    if (may_call_api(incoming->request, context.config)) {
      response = co_await route_on_pool(incoming->request, context);
    } else {
      response = handle_request(incoming->request, context.config);
    }
    // The request body (megabytes for a large symbolication request) is no longer needed.
    incoming->request.body = std::string();
    const bool produced = response.body_producer && !incoming->head && response.status >= 200 &&
                          response.status <= 599 && !status_forbids_body(response.status);
    // A produced body has no length: an HTTP/1.0 client learns its end from the close.
    const bool keep_alive = incoming->reusable && !response.close_connection &&
                            !context.connections.stopping() &&
                            (!produced || incoming->http_version >= 11);
    if (log::enabled(log::Level::kDebug)) {
      log::debug("HTTP " + incoming->request.method + " " + incoming->request.target + " -> " +
                 std::to_string(response.status));
    }
    beast::error_code write_ec;
    if (produced) {
      write_ec = co_await write_produced(stream, std::move(response), incoming->http_version,
                                         keep_alive, context);
    } else {
      http::message_generator message =
          to_message(std::move(response), incoming->http_version, keep_alive, incoming->head);
      stream.expires_after(context.write_timeout);
      auto [ec, written] = co_await beast::async_write(stream, std::move(message), kNoThrow);
      write_ec = ec;
    }
    unread_input = !write_ec && !incoming->reusable;
    if (write_ec || !keep_alive) break;
  }

  beast::error_code ignored;
  stream.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  if (unread_input) {
    connection.set_idle(true);  // a shutdown may cut the drain short
    co_await drain_before_close(stream);
  }
}

}  // namespace sprof::server::detail
