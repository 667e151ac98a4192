// The open connections, for graceful shutdown: idle connections (waiting for a request) are
// closed at once, busy ones finish their current response and then close. Used only on the
// server's io thread, so it needs no locking.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>

namespace sprof::server::detail {

class ConnectionRegistry {
 public:
  using Id = std::uint64_t;

  // `close` aborts the connection's pending read; called at most once, only while it is idle.
  Id add(std::function<void()> close);
  void set_idle(Id id, bool idle);
  void remove(Id id);

  // Closes idle connections now and calls `on_drained` once no connection is left (immediately
  // if there is none).
  void begin_shutdown(std::function<void()> on_drained);
  bool stopping() const { return stopping_; }
  // Drops the callback, for teardown when what it refers to is being destroyed.
  void forget_drained_callback() { on_drained_ = nullptr; }

 private:
  struct Entry {
    std::function<void()> close;
    bool idle = false;
  };
  void notify_if_drained();

  std::unordered_map<Id, Entry> entries_;
  Id next_id_ = 0;
  bool stopping_ = false;
  std::function<void()> on_drained_;
};

// Registers a connection for the lifetime of a session coroutine frame.
class ScopedConnection {
 public:
  ScopedConnection(ConnectionRegistry& registry, std::function<void()> close)
      : registry_(registry), id_(registry.add(std::move(close))) {}
  ~ScopedConnection() { registry_.remove(id_); }
  ScopedConnection(const ScopedConnection&) = delete;
  ScopedConnection& operator=(const ScopedConnection&) = delete;

  void set_idle(bool idle) { registry_.set_idle(id_, idle); }

 private:
  ConnectionRegistry& registry_;
  ConnectionRegistry::Id id_;
};

}  // namespace sprof::server::detail
