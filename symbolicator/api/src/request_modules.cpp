#include "request_modules.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <utility>

#include "sprof/core/log.hpp"

namespace sprof::api::detail {

namespace {

using MapPtr = std::shared_ptr<const symbolicator::SymbolMap>;

// Runs `work(i)` for every i < count on up to one thread per core (the calling thread included).
template <class Work>
void on_threads(size_t count, Work work) {
  std::atomic<size_t> next{0};
  auto run = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < count;) work(i);
  };
  const size_t threads = std::min<size_t>(std::max(std::thread::hardware_concurrency(), 1u), count);
  std::vector<std::jthread> helpers;
  for (size_t t = 1; t < threads; ++t) helpers.emplace_back(run);
  run();
}

}  // namespace

RequestModules::RequestModules(ModuleSource& source, const std::vector<V5Job>& jobs) {
  // Distinct modules, in order of first mention.
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::vector<const V5Module*> distinct;
  std::vector<std::vector<size_t>> distinct_of(jobs.size());  // per job, per memoryMap entry
  for (size_t j = 0; j < jobs.size(); ++j) {
    for (const V5Module& module : jobs[j].modules) {
      auto [it, added] =
          index.try_emplace({module.debug_name, module.breakpad_id}, distinct.size());
      if (added) distinct.push_back(&module);
      distinct_of[j].push_back(it->second);
    }
  }

  std::vector<MapPtr> resolved(distinct.size());
  on_threads(distinct.size(), [&](size_t i) {
    auto map = source.module(distinct[i]->debug_name, distinct[i]->breakpad_id);
    if (map && *map) {
      resolved[i] = std::move(*map);
    } else if (!map) {
      log::debug("symbolicate/v5: " + map.error().message);
    }
  });

  std::vector<std::vector<RelativeAddress>> addresses(distinct.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    for (const V5Frame& frame : jobs[j].frames) {
      if (frame.module_index < 0) continue;
      const size_t d = distinct_of[j][static_cast<size_t>(frame.module_index)];
      if (resolved[d]) addresses[d].push_back(RelativeAddress{frame.offset});
    }
  }
  for (size_t d = 0; d < distinct.size(); ++d) {
    if (resolved[d] && !addresses[d].empty()) resolved[d]->prepare(addresses[d]);
  }

  maps_.resize(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    for (const size_t d : distinct_of[j]) maps_[j].push_back(resolved[d]);
  }
}

}  // namespace sprof::api::detail
