// sprof/server/server.hpp
//
// sprof's local HTTP server: serves the recorded profile, the landing page and the symbolication
// APIs to the Firefox Profiler, under a secret token prefix on 127.0.0.1
// (docs/firefox-profiler-format.md, "from-url and symbolServer URLs"). It knows nothing about
// symbols or perf; the cli plugs content in through `ServerOptions`.
//
// Threading: `start` binds synchronously; `run` drives all I/O on the calling thread until the
// server stops; `ApiHandler` calls run on a 2-thread worker pool so a slow symbolication never
// blocks the page or the profile download. `stop` may be called from any thread. Shutdown is
// graceful and bounded: the listener closes, idle connections close, and requests in flight get up
// to `shutdown_grace` to finish.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "sprof/core/result.hpp"
#include "sprof/server/handlers.hpp"
#include "sprof/server/page.hpp"
#include "sprof/server/profiler_url.hpp"
#include "sprof/server/router.hpp"

namespace sprof::server {

// `sprof compare`: a second profile beside `profile_path`, and the thread of each that the Firefox
// Profiler's compare view puts side by side (the view takes exactly one thread per profile, by its
// index in the file's `threads`).
struct ComparedProfile {
  std::string path;  // served as /TOKEN/compared-profile.json
  std::uint32_t base_thread = 0;
  std::uint32_t compared_thread = 0;
};

struct ServerOptions {
  std::string bind_address = "127.0.0.1";
  std::string port = "0";    // "N", or "N+" to try N..N+99; "0" = ephemeral (see port_spec.hpp)
  std::string profile_path;  // served as /TOKEN/profile.json (raw bytes; .json or .json.gz)
  // When set, profiler_url() opens the compare view of profile_path and this one.
  std::optional<ComparedProfile> compare;
  ApiHandler api;        // POST /TOKEN/{symbolicate/v5,source/v1,asm/v1}
  ViewHandler views;     // GET /TOKEN/view/NAME
  AssetProvider assets;  // the page template "index.html" and its files
  PageInfo page;         // cli-computed placeholder values (COMMAND, DURATION, ...)
  std::string profiler_base = std::string(kDefaultProfilerBase);
  // How the browser reaches this server, when not by the address it listens on
  // (parse_public_url; empty: http://<bind address>:<port>).
  std::string public_url;
  std::string token;  // empty: generate a random one (set only in tests)
  std::uint64_t body_limit_bytes = kDefaultBodyLimitBytes;
  std::chrono::seconds read_timeout{30};    // per read of a request
  std::chrono::seconds write_timeout{300};  // per response (a large profile on a slow reader)
  std::chrono::milliseconds shutdown_grace{2000};
  bool handle_signals = false;  // stop gracefully on SIGINT/SIGTERM (a second signal stops now)
  // Test seam: called on the io thread with each accepted connection's socket descriptor, after
  // the server has set its options and before the first read.
  std::function<void(int fd)> on_accepted_socket;
};

class Server {
 public:
  // Binds and listens. Errors: kInvalidArgument (bad address or port spec), kIo (bind/listen
  // failed, e.g. "127.0.0.1 ports 8000..8099: Address already in use").
  static Result<std::unique_ptr<Server>> start(ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  std::uint16_t port() const;
  // "http://127.0.0.1:PORT/TOKEN": the symbol server base URL (no trailing slash).
  const std::string& base_url() const;
  // base_url() + "/profile.json".
  const std::string& profile_url() const;
  // The Firefox Profiler URL loading this profile with this server as symbol server (with
  // `ServerOptions::compare`: the compare view of both profiles).
  const std::string& profiler_url() const;

  // Serves until stop() or a handled signal, then returns after the bounded graceful shutdown.
  void run();
  // Thread-safe and idempotent; run() returns once shutdown completes.
  void stop();

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sprof::server
