// cache_filler.hpp (private)
//
// Saves modules' symbol maps to the symbol cache on a thread of its own. A module seen for the
// first time is answered from a map that reads its DWARF lazily, a unit at a time, as without a
// cache; the cache needs the whole index (every unit and inline tree), which costs 1.5-5x the
// lazy reading. Done on the request's path it made every first symbolication that much slower;
// here it runs beside the answers (the map is shared: its units are read once, whoever reads
// them first), and only the next run, which finds the module in the cache, gains by it.
//
// Nor may it delay the end of a command: a user who rebuilds and records again meets a new
// build-id every time, and would wait for the whole index of each build. `stop` cuts the work
// short between DWARF units, saves what each unsaved module's map has read so far (a partial
// index: what this run's lookups built, so that the next run reads no DWARF for the same
// addresses) and says which modules were left unsaved, so that the caller can hand them on (the
// command line starts `sprof cache fill` for them in the background, which completes the
// partial files).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sprof/symbolicator/symbolicator.hpp"
#include "symbol_cache.hpp"

namespace sprof::symbolicator::detail {

class CacheFiller {
 public:
  struct Job {
    SymbolCacheRequest request;  // what another process needs to do the same work
    std::string key;
    // The file's bytes; nullopt when `stop` was set before they were whole.
    std::function<std::optional<std::string>(const std::atomic<bool>& stop)> encode;
    // The bytes of what was read so far, for `stop`; nullopt: nothing worth saving. May be
    // empty (nothing saved).
    std::function<std::optional<std::string>()> encode_read_so_far;
  };

  explicit CacheFiller(const SymbolCache& cache) : cache_(cache) {}
  ~CacheFiller() { stop(); }
  CacheFiller(const CacheFiller&) = delete;
  CacheFiller& operator=(const CacheFiller&) = delete;

  void add(Job job);
  // Returns when every job queued so far is saved (or failed to be).
  void wait_idle();
  // Ends the work: the job under way stops at its next DWARF unit, the queued ones are not
  // started. Each job not saved whole saves what it read so far (encode_read_so_far). Returns
  // the requests of the jobs that were not saved whole. Later calls return nothing.
  std::vector<SymbolCacheRequest> stop();

 private:
  void run();

  const SymbolCache& cache_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> queue_;
  std::vector<Job> unsaved_;  // jobs `stop` cut short
  std::atomic<bool> stopping_{false};
  bool busy_ = false;   // the thread is working on a job it took off the queue
  std::thread thread_;  // started by the first add
};

}  // namespace sprof::symbolicator::detail
