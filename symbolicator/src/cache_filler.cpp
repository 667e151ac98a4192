#include "cache_filler.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <utility>

namespace sprof::symbolicator::detail {

void CacheFiller::add(Job job) {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_.load()) {
      unsaved_.push_back(std::move(job));
      return;
    }
    queue_.push_back(std::move(job));
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  changed_.notify_all();
}

void CacheFiller::wait_idle() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return (queue_.empty() || stopping_.load()) && !busy_; });
}

std::vector<SymbolCacheRequest> CacheFiller::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_.store(true);
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::vector<Job> unsaved;
  {
    const std::lock_guard lock(mutex_);
    for (Job& job : queue_) unsaved_.push_back(std::move(job));
    queue_.clear();
    unsaved = std::exchange(unsaved_, {});
  }
  std::vector<SymbolCacheRequest> requests;
  for (Job& job : unsaved) {
    if (job.encode_read_so_far) {
      if (const auto bytes = job.encode_read_so_far()) cache_.write(job.key, *bytes);
    }
    requests.push_back(std::move(job.request));
  }
  return requests;
}

void CacheFiller::run() {
  // The lowest priority for this thread and the reading threads it starts (Linux applies nice
  // per thread): the index is for a later run, and must not slow the program being recorded or
  // this run's own answers.
  ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19);
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_.load() || !queue_.empty(); });
    if (stopping_.load()) return;  // `stop` hands on what is queued
    Job job = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    if (const auto bytes = job.encode(stopping_)) {
      cache_.write(job.key, *bytes);
      lock.lock();
    } else {
      lock.lock();
      unsaved_.push_back(std::move(job));
    }
    job = {};  // the map goes with its job, before anyone is told the work is done
    busy_ = false;
    changed_.notify_all();
  }
}

}  // namespace sprof::symbolicator::detail
