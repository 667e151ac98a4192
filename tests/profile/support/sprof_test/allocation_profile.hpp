// sprof_test/allocation_profile.hpp
//
// A small hand-built profile with native allocations and a memory counter, as `record --heap`
// makes them: one process "allocapp" with a main thread and a worker. Three allocation sites
// in the app's module, each frame a return address (allocation stacks are stack walks):
//   - leaky (main thread): two blocks, 6,000 + 4,000 B, never freed: 10,000 B retained;
//   - churn (main thread): a 6,000 B block freed by the worker (so its free is a row of the
//     main thread's table with the worker's threadId) and a 2,000 B block freed by main;
//   - work (worker): 3,000 B, freed by the worker.
// The memory counter goes up and down with them and ends at 10,000 B.
#pragma once

#include <cstdint>

#include "sprof/profile/native_symbols.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::test {

struct AllocationProfileFacts {
  static constexpr int64_t kPid = 5000;
  static constexpr int64_t kWorkerTid = 5001;
  static constexpr uint64_t kAppStart = 0x400000;  // "allocapp", offset 0
  static constexpr uint64_t kAppEnd = 0x410000;
  // Function starts (relative = AVMA here); each is 0x100 long.
  static constexpr uint64_t kMain = 0x1000;
  static constexpr uint64_t kLeaky = 0x1100;
  static constexpr uint64_t kChurn = 0x1200;
  static constexpr uint64_t kWork = 0x1300;
  static constexpr uint64_t kThreadStart = 0x1400;
  static constexpr int64_t kLeakyBytes = 10000;
  static constexpr int64_t kChurnBytes = 8000;
  static constexpr int64_t kWorkBytes = 3000;
  static constexpr size_t kMainRows = 6;    // 4 allocations, 2 frees (one by the worker)
  static constexpr size_t kWorkerRows = 2;  // 1 allocation, its free
  static constexpr int64_t kFinalLiveBytes = 10000;
};

profile::Profile make_allocation_profile();
// Names every address of the app: "main", "leaky", "churn", "work", "thread_start".
profile::ProfileSymbols make_allocation_symbols(const profile::Profile& profile);

}  // namespace sprof::test
