#include "debuginfod_fetcher.hpp"

#include "sprof/core/log.hpp"

namespace sprof::symbolicator::detail {
namespace {

using Clock = std::chrono::steady_clock;

elf::DebuginfodOptions client_options(const DebuginfodOptions& options) {
  return elf::DebuginfodOptions{options.urls, options.timeout};
}

}  // namespace

DebuginfodFetcher::DebuginfodFetcher(DebuginfodOptions options)
    : options_(std::move(options)), client_(client_options(options_)) {}

DebuginfodFetcher::~DebuginfodFetcher() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

const DebuginfodFetcher::Job* DebuginfodFetcher::job(const std::string& build_id,
                                                     elf::DebuginfodArtifact artifact) const {
  auto it = jobs_.find(Key{build_id, artifact});
  return it == jobs_.end() ? nullptr : &it->second;
}

std::optional<DebuginfodFetcher::Files> DebuginfodFetcher::files(const std::string& module,
                                                                 const std::string& build_id,
                                                                 bool debug_info, bool executable,
                                                                 std::chrono::milliseconds wait) {
  std::vector<elf::DebuginfodArtifact> wanted;
  if (debug_info) wanted.push_back(elf::DebuginfodArtifact::kDebugInfo);
  if (executable) wanted.push_back(elf::DebuginfodArtifact::kExecutable);
  std::unique_lock lock(mutex_);
  // Waiting for a download queued behind another module's would add that one's time too: a
  // request naming many modules must not wait for each in turn. Only a download that starts now
  // (or runs already) is worth waiting for.
  bool behind_others = running_.has_value() && running_->first != build_id;
  for (const Key& queued_key : queue_) behind_others |= queued_key.first != build_id;
  bool queued = false;
  for (const auto artifact : wanted) {
    const Key key{build_id, artifact};
    if (jobs_.contains(key) || stopping_) continue;
    jobs_.emplace(key, Job{module, build_id, artifact, false, {}});
    queue_.push_back(key);
    queued = true;
  }
  if (queued) {
    if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
    changed_.notify_all();
  }
  auto all_done = [&] {
    for (const auto artifact : wanted) {
      const Job* j = job(build_id, artifact);
      if (j == nullptr || !j->done) return false;
    }
    return true;
  };
  if (!changed_.wait_for(lock, behind_others ? std::chrono::milliseconds(0) : wait, all_done)) {
    return std::nullopt;
  }
  Files files;
  if (const Job* j = job(build_id, elf::DebuginfodArtifact::kDebugInfo)) {
    files.debug_info = j->path;
  }
  if (const Job* j = job(build_id, elf::DebuginfodArtifact::kExecutable)) {
    files.executable = j->path;
  }
  return files;
}

bool DebuginfodFetcher::wait_for_all(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return queue_.empty() && !running_; });
}

bool DebuginfodFetcher::finished(const std::string& build_id) const {
  std::lock_guard lock(mutex_);
  for (auto it = jobs_.lower_bound(Key{build_id, elf::DebuginfodArtifact::kDebugInfo});
       it != jobs_.end() && it->first.first == build_id; ++it) {
    if (!it->second.done) return false;
  }
  return true;
}

void DebuginfodFetcher::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    const Key key = queue_.front();
    queue_.pop_front();
    running_ = key;
    Job& job = jobs_.at(key);  // map nodes are stable; only this thread writes `done`/`path`
    Job copy = job;
    lock.unlock();
    DebuginfodEvent outcome = download(copy);
    lock.lock();
    job.path = std::move(copy.path);
    job.done = true;
    running_.reset();
    changed_.notify_all();
    // Reported once the outcome is visible to `files` and `finished`.
    lock.unlock();
    emit(outcome);
    lock.lock();
  }
}

DebuginfodEvent DebuginfodFetcher::download(Job& job) {
  const auto start = Clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  DebuginfodEvent event;
  event.module = job.module;
  event.build_id = job.build_id;
  event.artifact = elf::artifact_name(job.artifact);
  event.kind = DebuginfodEvent::Kind::kStarted;
  emit(event);

  auto result = client_.fetch(job.build_id, job.artifact, [&](const elf::DebuginfodProgress& p) {
    DebuginfodEvent progress = event;
    progress.kind = DebuginfodEvent::Kind::kProgress;
    progress.bytes = p.bytes;
    progress.total = p.total;
    progress.url = p.url;
    progress.seconds = seconds();
    emit(progress);
  });
  event.seconds = seconds();
  if (result) {
    job.path = result->path;
    event.kind = DebuginfodEvent::Kind::kFetched;
    event.path = result->path;
    event.url = result->url;
    log::info("debuginfod: " + event.artifact + " of " + job.module + " -> " + job.path);
  } else {
    event.kind = DebuginfodEvent::Kind::kFailed;
    event.message = result.error().message;
    log::info("debuginfod: " + job.module + ": " + event.message);
  }
  return event;
}

void DebuginfodFetcher::emit(const DebuginfodEvent& event) const {
  if (options_.on_event) options_.on_event(event);
}

}  // namespace sprof::symbolicator::detail
