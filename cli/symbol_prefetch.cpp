#include "symbol_prefetch.hpp"

#include <utility>

namespace sprof::cli {

void SymbolPrefetch::offer(recorder::Recording&& preview) {
  {
    const std::lock_guard lock(mutex_);
    if (closing_ || pending_) return;
    pending_.emplace(std::move(preview));
    if (!thread_.joinable()) thread_ = std::thread([this] { read_previews(); });
  }
  changed_.notify_all();
}

symbolicator::Symbolicator& SymbolPrefetch::finish(const profile::Profile& profile) {
  stop();
  return symbols_.for_profile(profile);
}

void SymbolPrefetch::stop() {
  {
    const std::lock_guard lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SymbolPrefetch::read_previews() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return closing_ || pending_.has_value(); });
    if (!pending_) return;  // closing, nothing being read
    // Kept in pending_ while read, so that offer() drops the next ones meanwhile.
    lock.unlock();
    symbols_.read_ahead(pending_->profile);
    lock.lock();
    pending_.reset();
  }
}

}  // namespace sprof::cli
