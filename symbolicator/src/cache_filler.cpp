#include "cache_filler.hpp"

namespace sprof::symbolicator::detail {

CacheFiller::~CacheFiller() {
  {
    const std::lock_guard lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void CacheFiller::add(std::string key, std::shared_ptr<const ModuleSymbolMap> map) {
  {
    const std::lock_guard lock(mutex_);
    queue_.emplace_back(std::move(key), std::move(map));
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  changed_.notify_all();
}

void CacheFiller::wait_idle() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void CacheFiller::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return closing_ || !queue_.empty(); });
    if (queue_.empty()) return;  // closing, and all saved
    auto [key, map] = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    map->read_all();
    cache_.store(key, *map);
    map.reset();
    lock.lock();
    busy_ = false;
    changed_.notify_all();
  }
}

}  // namespace sprof::symbolicator::detail
