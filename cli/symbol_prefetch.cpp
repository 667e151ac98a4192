#include "symbol_prefetch.hpp"

#include <string>
#include <utility>

#include "sprof/core/clock.hpp"
#include "sprof/core/log.hpp"
#include "sprof/presymbolicate/presymbolicate.hpp"

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
    const uint64_t start = clock_ns(CLOCK_MONOTONIC);
    // The answers are dropped: what is kept is what the symbolicator read to give them.
    presymbolicate::presymbolicate(pending_->profile, symbols_.for_profile(pending_->profile));
    log::info("preview: symbols read in " +
              std::to_string((clock_ns(CLOCK_MONOTONIC) - start) / 1'000'000) + " ms");
    lock.lock();
    pending_.reset();
  }
}

}  // namespace sprof::cli
