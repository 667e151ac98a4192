#include "sprof/server/server.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <csignal>
#include <exception>
#include <optional>

#include "connection_registry.hpp"
#include "session.hpp"
#include "sprof/core/log.hpp"
#include "sprof/server/port_spec.hpp"
#include "sprof/server/token.hpp"

namespace sprof::server {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);
// Two workers: symbolication requests arrive in parallel chunks (docs/firefox-profiler-format.md,
// "symbolication API /symbolicate/v5"), and the machine sprof runs on is also running the profiled
// program's aftermath; more would buy little.
constexpr int kApiThreads = 2;
// Back-off after an accept error such as EMFILE, so the loop does not spin.
constexpr auto kAcceptRetryDelay = std::chrono::milliseconds(100);

// Last line of defence for a coroutine: our code does not throw, but a dependency might
// (std::bad_alloc aside). The coroutine frame, and with it the socket, is already gone.
auto log_escaped_exception(const char* what) {
  return [what](const std::exception_ptr& exception) {
    if (!exception) return;
    try {
      std::rethrow_exception(exception);
    } catch (const std::exception& e) {
      log::error(std::string(what) + ": " + e.what());
    } catch (...) {  // NOLINT: logging is all that is left to do
      log::error(std::string(what) + ": unknown exception");
    }
  };
}

std::string url_host(const asio::ip::address& address) {
  // A wildcard bind is reachable through loopback; browsers cannot connect to 0.0.0.0 reliably.
  if (address.is_unspecified()) return address.is_v6() ? "[::1]" : "127.0.0.1";
  return address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
}

std::string file_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

// Member order is teardown order, reversed: the pool joins first (its tasks post into `io`), then
// the I/O objects go, then `io` destroys the remaining session frames, whose destructors still
// use `connections` and whose requests still point into `config`.
struct Server::Impl {
  explicit Impl(const ServerOptions& options)
      : read_timeout(options.read_timeout),
        write_timeout(options.write_timeout),
        shutdown_grace(options.shutdown_grace),
        on_accepted_socket(options.on_accepted_socket) {}
  ~Impl() { connections.forget_drained_callback(); }

  Result<void> listen(const asio::ip::address& address, PortRange ports);
  asio::awaitable<void> accept_loop();
  void watch_signals();
  void begin_shutdown();

  RouterConfig config;
  detail::ConnectionRegistry connections;
  std::chrono::seconds read_timeout;
  std::chrono::seconds write_timeout;
  std::chrono::milliseconds shutdown_grace;
  std::function<void(int)> on_accepted_socket;
  std::uint16_t port = 0;
  std::string base_url;
  std::string profile_url;
  std::string profiler_url;
  bool shutting_down = false;

  asio::io_context io{1};
  asio::thread_pool api_pool{kApiThreads};
  detail::SessionContext session_context{config, api_pool, connections, read_timeout,
                                         write_timeout};
  tcp::acceptor acceptor{io};
  asio::steady_timer grace_timer{io};
  std::optional<asio::signal_set> signals;
};

Result<void> Server::Impl::listen(const asio::ip::address& address, PortRange ports) {
  boost::system::error_code ec;
  for (unsigned candidate = ports.first;; ++candidate) {
    const tcp::endpoint endpoint(address, static_cast<std::uint16_t>(candidate));
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (!ec) break;
    boost::system::error_code ignored;
    acceptor.close(ignored);
    if (ec != asio::error::address_in_use || candidate >= ports.last) {
      const std::string range = ports.first == ports.last ? std::to_string(ports.first)
                                                          : std::to_string(ports.first) + ".." +
                                                                std::to_string(ports.last);
      return fail(Errc::kIo, "cannot listen on " + address.to_string() + " port " + range + ": " +
                                 ec.message());
    }
  }
  port = acceptor.local_endpoint(ec).port();
  if (ec) return fail(Errc::kIo, "getsockname on the listening socket: " + ec.message());
  return ok();
}

asio::awaitable<void> Server::Impl::accept_loop() {
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(kNoThrow);
    if (shutting_down || !acceptor.is_open()) co_return;
    if (ec) {
      log::warn("accept: " + ec.message());
      asio::steady_timer delay(io, kAcceptRetryDelay);
      co_await delay.async_wait(kNoThrow);
      continue;
    }
    // Beast writes a response's header and body (or a file body's chunks) in separate writes.
    // With Nagle's algorithm the second waits for the ACK of the first, which a keep-alive
    // client delays by ~40 ms: every profile.json after the first stalled that long.
    boost::system::error_code option_ec;
    socket.set_option(tcp::no_delay(true), option_ec);
    if (option_ec) log::debug("TCP_NODELAY: " + option_ec.message());
    if (on_accepted_socket) on_accepted_socket(socket.native_handle());
    asio::co_spawn(io, detail::serve_connection(std::move(socket), session_context),
                   log_escaped_exception("HTTP session"));
  }
}

void Server::Impl::watch_signals() {
  signals->async_wait([this](const boost::system::error_code& ec, int signal_number) {
    if (ec) return;  // cancelled once the shutdown drained
    if (shutting_down) {
      log::warn("second signal: stopping now");
      io.stop();
      return;
    }
    log::info("signal " + std::to_string(signal_number) + ": shutting down the server");
    // Re-arm first: begin_shutdown may drain at once, and the drain cancels this wait so that
    // run() can return.
    watch_signals();
    begin_shutdown();
  });
}

void Server::Impl::begin_shutdown() {
  if (shutting_down) return;
  shutting_down = true;
  boost::system::error_code ignored;
  acceptor.close(ignored);
  grace_timer.expires_after(shutdown_grace);
  grace_timer.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // everything finished in time
    log::warn("requests still running at shutdown; closing them");
    io.stop();
  });
  connections.begin_shutdown([this] {
    grace_timer.cancel();
    if (signals) signals->cancel();
  });
}

Result<std::unique_ptr<Server>> Server::start(ServerOptions options) {
  SPROF_TRY(const PortRange ports, parse_port_spec(options.port));
  boost::system::error_code ec;
  const asio::ip::address address = asio::ip::make_address(options.bind_address, ec);
  if (ec) {
    return fail(Errc::kInvalidArgument,
                "invalid bind address '" + options.bind_address + "': " + ec.message());
  }
  std::string token = options.token;
  if (token.empty()) {
    SPROF_TRY(token, generate_token());
  }

  std::optional<PublicUrl> public_url;
  if (!options.public_url.empty()) {
    SPROF_TRY(public_url, parse_public_url(options.public_url));
  }

  auto impl = std::make_unique<Impl>(options);
  SPROF_TRY_VOID(impl->listen(address, ports));

  const std::string origin = public_url
                                 ? public_url->base
                                 : "http://" + url_host(address) + ":" + std::to_string(impl->port);
  impl->base_url = origin + "/" + token;
  impl->profile_url = impl->base_url + "/profile.json";
  const std::string_view profiler_base = options.profiler_base.empty()
                                             ? kDefaultProfilerBase
                                             : std::string_view(options.profiler_base);
  if (options.compare) {
    const std::string compared_url = impl->base_url + "/compared-profile.json";
    impl->profiler_url =
        compare_url(profiler_base, {impl->profile_url, options.compare->base_thread},
                    {compared_url, options.compare->compared_thread}, impl->base_url);
  } else {
    impl->profiler_url = server::profiler_url(profiler_base, impl->profile_url, impl->base_url);
  }

  RouterConfig& config = impl->config;
  config.token = std::move(token);
  config.bind_address = options.bind_address;
  if (public_url) config.public_host = public_url->host;
  config.profile_path = std::move(options.profile_path);
  if (options.compare) config.compared_profile_path = std::move(options.compare->path);
  config.api = std::move(options.api);
  config.views = std::move(options.views);
  config.assets = std::move(options.assets);
  config.body_limit_bytes = options.body_limit_bytes;
  config.page = std::move(options.page);
  config.page.insert_or_assign("BASE_URL", impl->base_url);
  config.page.insert_or_assign("SYMBOL_SERVER_URL", impl->base_url);
  config.page.insert_or_assign("PROFILE_URL", impl->profile_url);
  config.page.insert_or_assign("PROFILER_URL", impl->profiler_url);
  config.page.insert_or_assign("PROFILE_FILENAME", file_name(config.profile_path));

  asio::co_spawn(impl->io, impl->accept_loop(), log_escaped_exception("HTTP listener"));
  if (options.handle_signals) {
    impl->signals.emplace(impl->io, SIGINT, SIGTERM);
    impl->watch_signals();
  }
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

std::uint16_t Server::port() const { return impl_->port; }
const std::string& Server::base_url() const { return impl_->base_url; }
const std::string& Server::profile_url() const { return impl_->profile_url; }
const std::string& Server::profiler_url() const { return impl_->profiler_url; }

void Server::run() { impl_->io.run(); }

void Server::stop() {
  asio::post(impl_->io, [impl = impl_.get()] { impl->begin_shutdown(); });
}

}  // namespace sprof::server
