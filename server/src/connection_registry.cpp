#include "connection_registry.hpp"

#include <utility>
#include <vector>

namespace sprof::server::detail {

ConnectionRegistry::Id ConnectionRegistry::add(std::function<void()> close) {
  const Id id = next_id_++;
  entries_.emplace(id, Entry{std::move(close), false});
  return id;
}

void ConnectionRegistry::set_idle(Id id, bool idle) {
  if (auto it = entries_.find(id); it != entries_.end()) it->second.idle = idle;
}

void ConnectionRegistry::remove(Id id) {
  entries_.erase(id);
  notify_if_drained();
}

void ConnectionRegistry::begin_shutdown(std::function<void()> on_drained) {
  stopping_ = true;
  on_drained_ = std::move(on_drained);
  // Collect first: a close callback may complete synchronously and remove entries.
  std::vector<std::function<void()>> to_close;
  for (auto& [id, entry] : entries_) {
    if (entry.idle && entry.close) to_close.push_back(std::exchange(entry.close, nullptr));
  }
  for (auto& close : to_close) close();
  notify_if_drained();
}

void ConnectionRegistry::notify_if_drained() {
  if (stopping_ && entries_.empty() && on_drained_) std::exchange(on_drained_, nullptr)();
}

}  // namespace sprof::server::detail
