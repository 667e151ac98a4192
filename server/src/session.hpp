// One HTTP connection: a thin coroutine that reads requests (keep-alive, with a deadline on every
// read), hands them to the pure router, and writes the responses. Requests that may call the
// ApiHandler run on the worker pool so the io thread stays responsive. Errors end this
// connection only; no exception leaves the coroutine by design (Asio errors are values here).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>

#include "connection_registry.hpp"
#include "sprof/server/router.hpp"

namespace sprof::server::detail {

// Shared by all sessions; owned by the server and outliving every session.
struct SessionContext {
  const RouterConfig& config;
  boost::asio::thread_pool& api_pool;
  ConnectionRegistry& connections;
  std::chrono::seconds read_timeout;
  std::chrono::seconds write_timeout;
};

boost::asio::awaitable<void> serve_connection(boost::asio::ip::tcp::socket socket,
                                              const SessionContext& context);

}  // namespace sprof::server::detail
