// tests/integration/thread_cpu.hpp
//
// CPU time and off-CPU samples of a profile's threads, compared with what the offcpu_* targets
// (tests/targets) measured themselves and printed as "tid cpu_ns name" lines. Used by the
// recording and the import tests, which must agree.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "recorded_profile.hpp"

namespace sprof::test {

struct ThreadCpu {
  uint64_t cpu_ns = 0;
  std::string name;
  // Time the thread was on a CPU that its clock left out, as its busy work measured it
  // (tests/targets/offcpu/thread_cpu.hpp): a VM's host ran something else meanwhile.
  uint64_t steal_ns = 0;
};

// The "tid cpu_ns name [steal_ns]" lines the offcpu_* targets print (other lines are ignored).
std::map<int64_t, ThreadCpu> measured_threads(const std::string& out);
// The "total NAME cpu_ns" line of a group of threads' whole CPU, exit paths included
// (offcpu_cpu_threads.cpp), or nullopt.
std::optional<uint64_t> measured_total(const std::string& out, const std::string& name);

const ThreadView* thread_with_tid(const ProfileView& p, int64_t tid);
const ThreadView* thread_named(const ProfileView& p, const std::string& name);

// (profile - real) / real.
double relative_error(uint64_t profile_ns, uint64_t real_ns);

// What a recording says of its stalls (meta.sprof): a stretch on CPU longer than a clock
// timer allows is steal, or a timer interrupt the host delivered late while the thread ran; the
// records cannot tell which (cpu_accounting.hpp). The deltas left `left_out_ns` of such
// stretches out and still count `credited_ns` of them.
struct StatedStalls {
  uint64_t left_out_ns = 0;
  uint64_t credited_ns = 0;
};
StatedStalls stated_stalls(const ProfileView& p);

// Of `steal_ns` that a thread measured, what the profile's deltas may hold. Where the profile
// has the scheduler's counts, none: they leave steal out, as the thread's clock does. Else all
// of it: the switch records cannot see a stopped vCPU, and a stop shorter than the stall bound
// (cpu_accounting.hpp) is time on CPU to them. The thread's clock is then the truth only less
// the steal, and the profile's figure, the time it was on a CPU, lies between the two.
uint64_t steal_in_deltas_ns(const ProfileView& p, uint64_t steal_ns);

// The error of `profile_ns` against the thread's own clock, given the stalls and the steal the
// deltas may hold: 0 when the clock lies between the profile's figure less what it may hold of
// steal (stalls it credited or `steal_ns`, whichever is more: the stalls are steal, if they are,
// within what the thread measured) and that figure plus what it left out as stalls (they were
// the thread's), else the relative distance to the nearer end.
double error_beyond_stalls(uint64_t profile_ns, uint64_t real_ns, const StatedStalls& stalls,
                           uint64_t steal_ns = 0);

// Whether sprof can record the scheduler's runtime counts here (recorder/src/perf/
// runtime_events.cpp): as root, with the sched_stat_runtime tracepoint in tracefs (mounted, or
// mountable where sprof mounts it privately), on Linux 6.12 or later (inherited events with
// PERF_SAMPLE_READ).
bool scheduler_counts_possible();
// Whether it records them by default (--cpu-counts=auto): where possible, on a VM.
bool scheduler_counts_expected();

// The CPU the front end counts: threadCPUDelta[1..] (it ignores delta[0]).
uint64_t front_end_cpu_ns(const ThreadView& t);

// Sample `i` of `t` has an Idle leaf (an off-CPU sample).
bool is_idle_sample(const ProfileView& p, const ThreadView& t, size_t i);
size_t idle_samples(const ProfileView& p, const ThreadView& t);

// Checks (doctest) a profile of `offcpu_blockers N 20 20 300`: "sleeper" (20 ms CPU, 20 ms
// nanosleep, repeated) has about half Idle samples; the threads that wait ~300 ms for a mutex or
// a pipe have mostly Idle samples.
void check_blockers_idle(const ProfileView& p);

}  // namespace sprof::test
