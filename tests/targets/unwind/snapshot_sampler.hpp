// tests/targets/unwind/snapshot_sampler.hpp
//
// A self-sampler for the `unwind_snapshots` target: a per-thread CLOCK_MONOTONIC timer sends
// SIGPROF to the calling thread; the handler stores the interrupted registers and a stack copy
// (snapshot_format.hpp) in a preallocated buffer, using only async-signal-safe operations.
#pragma once

#include "snapshot_format.hpp"

namespace unwind_target {

// Records the current thread's stack top and arms its sampling timer (`interval_us`).
void start_sampling_this_thread(long interval_us);
void stop_sampling_this_thread();
// Tags subsequent samples.
void set_phase(sprof::test::unwind_snapshot::Phase phase);
// Writes samples.bin, maps.txt and vdso.bin into `dir`; false on I/O failure.
bool write_snapshots(const char* dir);

}  // namespace unwind_target
