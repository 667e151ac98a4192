// cache_filler.hpp (private)
//
// Saves modules' symbol maps to the symbol cache on a thread of its own. A module seen for the
// first time is answered from a map that reads its DWARF lazily, a unit at a time, as without a
// cache; the cache needs the whole index (every unit and inline tree), which costs 1.5-5x the
// lazy reading. Done on the request's path it made every first symbolication that much slower;
// here it runs beside the answers (the map is shared: its units are read once, whoever reads
// them first), and only the next run, which finds the module in the cache, gains by it.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "module_symbol_map.hpp"
#include "symbol_cache.hpp"

namespace sprof::symbolicator::detail {

class CacheFiller {
 public:
  explicit CacheFiller(const SymbolCache& cache) : cache_(cache) {}
  // Finishes what was queued: a short-lived command (record -s, symbolicate) leaves the cache
  // filled for the next one. Its output is written by then.
  ~CacheFiller();
  CacheFiller(const CacheFiller&) = delete;
  CacheFiller& operator=(const CacheFiller&) = delete;

  // Queues `map` to be read whole and saved under `key`.
  void add(std::string key, std::shared_ptr<const ModuleSymbolMap> map);
  // Returns when every map queued so far is saved (or failed to be).
  void wait_idle();

 private:
  void run();

  const SymbolCache& cache_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::pair<std::string, std::shared_ptr<const ModuleSymbolMap>>> queue_;
  bool busy_ = false;  // the thread is saving one it took off the queue
  bool closing_ = false;
  std::thread thread_;  // started by the first add
};

}  // namespace sprof::symbolicator::detail
