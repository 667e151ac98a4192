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
  uint64_t switches = 0;  // its context switches, voluntary or not
};

// The "tid cpu_ns name [steal_ns switches]" lines the offcpu_* targets print (other lines are
// ignored).
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

// What a thread's deltas may be off by, beyond the stalls the profile states, where no
// scheduler counts correct them (with counts, nothing: they leave steal out, as the thread's
// clock does, and settle the switch records' lateness). Sums of threads add up.
struct DeltaBias {
  // The switch records cannot see a stopped vCPU: to them a stop shorter than the stall bound
  // (cpu_accounting.hpp) is time on CPU, so the deltas may hold the steal the thread measured.
  uint64_t steal_ns = 0;
  // A switch-in without a CPU-wide record of the pick starts at its own record, written after
  // the switch: the deltas may lack up to CpuAccounting::kSwitchInLatenessNs for each of the
  // thread's switch-ins (its context switches and its first start), where the profile says
  // such switch-ins were (meta.sprof.cpuSwitchInsWithoutPick), and never more than it says.
  uint64_t late_starts_ns = 0;
  DeltaBias& operator+=(const DeltaBias& other);
  friend DeltaBias operator+(DeltaBias a, const DeltaBias& b) { return a += b; }
};
DeltaBias delta_bias(const ProfileView& p, const ThreadCpu& real);

// The error of `profile_ns` against the thread's own clock, given the stalls and the bias: 0
// when the clock lies between the profile's figure less what it may hold of steal (stalls it
// credited or the measured steal, whichever is more: the stalls are steal, if they are, within
// what the thread measured) and that figure plus what it left out as stalls (they were the
// thread's) and what late switch-ins may have cost, else the relative distance to the nearer
// end.
double error_beyond_stalls(uint64_t profile_ns, uint64_t real_ns, const StatedStalls& stalls,
                           const DeltaBias& bias = {});
// error_beyond_stalls of one thread of `p` whose deltas add up to `profile_ns`: its clock, the
// stalls `p` states and the thread's bias.
double thread_cpu_error(const ProfileView& p, uint64_t profile_ns, const ThreadCpu& real);
// "real N ns, profile M ns, steal S ns, K switches": what a test's message says of a thread.
std::string cpu_comparison(uint64_t profile_ns, const ThreadCpu& real);

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
