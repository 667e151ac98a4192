// debuginfod_fetcher.hpp (private)
//
// Downloads the files modules lack, one at a time, on a thread of its own, so that a lookup
// never waits for the network longer than it chooses to. Each (build-id, artifact) is fetched
// at most once per fetcher; its outcome, success or failure, is kept and reported through
// `DebuginfodOptions::on_event`.
//
// Threading: all methods are thread-safe. The destructor drops queued downloads and waits for
// the one running (bounded by the download timeout): libdebuginfod 0.188 would record a
// cancelled download as "not found" in its cache for 10 minutes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "sprof/elf/debuginfod_client.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::symbolicator::detail {

class DebuginfodFetcher {
 public:
  explicit DebuginfodFetcher(DebuginfodOptions options);
  ~DebuginfodFetcher();
  DebuginfodFetcher(const DebuginfodFetcher&) = delete;
  DebuginfodFetcher& operator=(const DebuginfodFetcher&) = delete;

  // What the downloads for one module gave: cache paths, empty where nothing came.
  struct Files {
    std::string debug_info;
    std::string executable;
  };

  // Starts the downloads of the artifacts wanted for `build_id` that were never started, then
  // waits up to `wait` for all of them, but not at all when they are queued behind another
  // module's download. The files once every wanted download has finished (failed ones give
  // empty paths); nullopt while any is still queued or running.
  std::optional<Files> files(const std::string& module, const std::string& build_id,
                             bool debug_info, bool executable, std::chrono::milliseconds wait);

  // Waits until no download is queued or running, at most `timeout`; true if none is.
  bool wait_for_all(std::chrono::milliseconds timeout);

  // Whether every download ever started for `build_id` has finished.
  bool finished(const std::string& build_id) const;

 private:
  struct Job {
    std::string module;
    std::string build_id;
    elf::DebuginfodArtifact artifact;
    bool done = false;
    std::string path;  // on success
  };
  using Key = std::pair<std::string, elf::DebuginfodArtifact>;

  void run();
  // Fetches `job`'s file (setting `path` on success) and returns the outcome to report.
  DebuginfodEvent download(Job& job);
  void emit(const DebuginfodEvent& event) const;
  const Job* job(const std::string& build_id, elf::DebuginfodArtifact artifact) const;

  const DebuginfodOptions options_;
  const elf::DebuginfodClient client_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;  // a job finished, one was queued, or stop
  std::map<Key, Job> jobs_;          // never erased: outcomes are kept
  std::deque<Key> queue_;
  std::optional<Key> running_;
  bool stopping_ = false;
  std::thread worker_;  // started with the first job
};

}  // namespace sprof::symbolicator::detail
