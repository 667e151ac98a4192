// The converter's CPU deltas from switch records and its off-CPU samples, from synthetic records:
// a thread runs, is preempted, blocks with a stack, wakes up and exits.
#include <doctest/doctest.h>

#include <numeric>
#include <string>

#include "fake_host_files.hpp"
#include "sprof/convert/profile_converter.hpp"
#include "synthetic_records.hpp"

using namespace sprof;
using namespace sprof::convert;

namespace {

constexpr uint64_t kOrigin = 1'000'000'000;
using test::kContextKernel;
using test::kContextUser;
constexpr uint32_t kPid = 50;
constexpr uint64_t kPeriodNs = 999'999;

uint64_t at_us(uint64_t us) { return kOrigin + us * 1000; }

perf::SampleId id(uint32_t tid, uint64_t us) { return test::sample_id(kPid, tid, at_us(us)); }

perf::CommRecord exec_comm(uint64_t us) {
  return test::comm_record(kPid, kPid, "app", true, at_us(us));
}

perf::SampleRecord sample(uint32_t tid, uint64_t us, std::vector<uint64_t> chain) {
  // The samples' period: 1 kHz cpu-clock, but 1 ns short, so that a check sees whether it or the
  // switch records gave a CPU delta (the converter bounds a long gap between ticks by it).
  return test::sample_record(kPid, tid, at_us(us), std::move(chain), kPeriodNs);
}

perf::SampleRecord on_cpu(uint32_t tid, uint64_t us) {
  return sample(tid, us, {kContextUser, 0x401000, 0x402000});
}

// What the context-switch event records as a thread blocks: kernel path into schedule(), then the
// user stack (a nanosleep wrapper called from 0x402000).
perf::SampleRecord switch_sample(uint32_t tid, uint64_t us) {
  auto s = sample(
      tid, us,
      {kContextKernel, 0xffffffff81000100, 0xffffffff81000200, kContextUser, 0x405000, 0x402000});
  s.context_switch_sample = true;
  return s;
}

perf::SwitchRecord switch_record(uint32_t tid, uint64_t us, bool out, bool preempted = false) {
  perf::SwitchRecord r;
  r.id = id(tid, us);
  r.out = out;
  r.preempted = preempted;
  return r;
}

// A CPU-wide switch-out (PERF_RECORD_SWITCH_CPU_WIDE): `prev_pid/tid` leaves the CPU, `next`
// was picked to run.
perf::SwitchRecord cpu_wide_out(uint32_t prev_pid, uint32_t prev_tid, uint32_t next, uint64_t us) {
  perf::SwitchRecord r;
  r.id = test::sample_id(prev_pid, prev_tid, at_us(us));
  r.out = true;
  r.cpu_wide = true;
  r.next_prev_pid = kPid;
  r.next_prev_tid = next;
  return r;
}

perf::ExitRecord exit_record(uint32_t tid, uint64_t us) {
  return test::exit_record(kPid, tid, at_us(us));
}

ConverterOptions options() {
  ConverterOptions o;
  o.origin_monotonic_ns = kOrigin;
  o.root_pid = kPid;
  o.interval_ms = 1;
  o.switch_records = true;
  return o;
}

// A per-task recording with the CPU-wide switch side band (pick times).
ConverterOptions side_band_options() {
  ConverterOptions o = options();
  o.switch_side_band = true;
  return o;
}

const profile::FrameEntry& leaf_frame(const profile::Thread& t, const profile::Sample& s) {
  return t.frames()[t.stacks()[*s.stack].frame];
}

uint64_t delta_sum(const profile::Thread& t) {
  return std::accumulate(
      t.samples().begin(), t.samples().end(), uint64_t{0},
      [](uint64_t sum, const profile::Sample& s) { return sum + s.cpu_delta_ns.value_or(0); });
}

}  // namespace

TEST_CASE(
    "converter gives each sample the CPU used since the previous one and blocked time as "
    "Idle samples without CPU") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(), cache);
  c.consume(exec_comm(0));                           // running from 0 (exec has no switch-in)
  c.consume(on_cpu(kPid, 1000));                     // 1000 us of CPU
  c.consume(switch_record(kPid, 1500, true, true));  // preempted: runnable, not blocked
  c.consume(switch_record(kPid, 2000, false));
  c.consume(on_cpu(kPid, 2500));  // 500 + 500
  c.consume(switch_sample(kPid, 3000));
  c.consume(switch_record(kPid, 3000, true));    // blocks at 3 ms ...
  c.consume(switch_record(kPid, 13000, false));  // ... until 13 ms
  c.consume(on_cpu(kPid, 14000));                // only the 1000 us since switch-in
  c.consume(exit_record(kPid, 14600));           // 600 us after the last sample
  auto p = c.finish(at_us(20000));
  const auto& t = p.processes.at(0).threads.at(0);
  const auto& s = t.samples();

  // A stackless zero sample at the thread's start, because the front end ignores delta[0]; two
  // on-CPU samples; ten off-CPU samples on the 1 ms grid in [3, 13) ms; one on-CPU sample; the
  // final sample at exit.
  REQUIRE(s.size() == 1 + 2 + 10 + 1 + 1);
  CHECK_FALSE(s[0].stack.has_value());
  CHECK(s[0].time_ms == doctest::Approx(0.0));
  CHECK(s[0].cpu_delta_ns == 0u);
  CHECK(s[1].cpu_delta_ns == 1'000'000u);
  CHECK(s[2].cpu_delta_ns == 1'000'000u);

  for (size_t i = 3; i < 13; ++i) {
    CAPTURE(i);
    CHECK(s[i].time_ms == doctest::Approx(static_cast<double>(i)));
    CHECK(leaf_frame(t, s[i]).category == profile::Category::kIdle);
    CHECK(t.strings()[leaf_frame(t, s[i]).location] == "0xffffffff81000100");
    CHECK(s[i].stack == s[3].stack);
    // The first one carries the CPU used between the previous sample and blocking.
    CHECK(s[i].cpu_delta_ns == (i == 3 ? 500'000u : 0u));
  }
  // The off-CPU stack keeps the frames under the Idle leaf with their own categories.
  const auto caller = t.stacks()[*s[3].stack].prefix;
  REQUIRE(caller.has_value());
  CHECK(t.frames()[t.stacks()[*caller].frame].category == profile::Category::kKernel);

  CHECK(s[13].cpu_delta_ns == 1'000'000u);
  CHECK(leaf_frame(t, s[13]).category == profile::Category::kUser);
  // The remainder after the last sample, with the last on-CPU stack.
  CHECK(s[14].time_ms == doctest::Approx(14.6));
  CHECK(s[14].cpu_delta_ns == 600'000u);
  CHECK(s[14].stack == s[13].stack);
  // On CPU: [0, 1.5] + [2, 3] + [13, 14.6] ms.
  CHECK(delta_sum(t) == 4'100'000u);
  CHECK(c.stats().off_cpu_samples == 10);
  CHECK(p.meta.has_cpu_deltas);
}

TEST_CASE("converter makes no off-CPU samples for a preempted thread or a switch without a stack") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(), cache);
  c.consume(exec_comm(0));
  c.consume(on_cpu(kPid, 500));
  c.consume(switch_sample(kPid, 1000));
  c.consume(switch_record(kPid, 1000, true, /*preempted=*/true));
  c.consume(switch_record(kPid, 5000, false));
  c.consume(switch_record(kPid, 6000, true));  // voluntary, but no context-switch sample
  c.consume(switch_record(kPid, 9000, false));
  c.consume(on_cpu(kPid, 9500));
  auto p = c.finish(at_us(10000));
  const auto& t = p.processes.at(0).threads.at(0);
  for (const auto& s : t.samples()) {
    if (s.stack) CHECK(leaf_frame(t, s).category != profile::Category::kIdle);
  }
  CHECK(c.stats().off_cpu_samples == 0);
  // [0, 1] + [5, 6] + [9, 9.5] ms.
  CHECK(delta_sum(t) == 2'500'000u);
}

TEST_CASE("converter carries a short thread's CPU after its last sample to a final sample") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(), cache);
  c.consume(exec_comm(0));
  c.consume(test::fork_record(kPid, kPid, 51, kPid, at_us(100)));
  c.consume(switch_record(51, 200, false));  // the new thread's first run
  c.consume(on_cpu(51, 1200));
  c.consume(switch_record(51, 1700, true, true));
  c.consume(switch_record(51, 1800, false));
  c.consume(exit_record(51, 2100));
  auto p = c.finish(at_us(3000));
  const auto& threads = p.processes.at(0).threads;
  REQUIRE(threads.size() == 2);
  const auto& t = threads[1];
  REQUIRE(t.samples().size() == 3);
  CHECK(t.samples()[0].time_ms == doctest::Approx(0.2));  // zero sample at the first switch-in
  CHECK(t.samples()[0].cpu_delta_ns == 0u);
  CHECK(t.samples()[1].cpu_delta_ns == 1'000'000u);
  CHECK(t.samples()[2].time_ms == doctest::Approx(2.1));
  CHECK(t.samples()[2].cpu_delta_ns == 800'000u);  // [1.2, 1.7] + [1.8, 2.1]
  CHECK(delta_sum(t) == 1'800'000u);
}

TEST_CASE("converter caps the off-CPU samples of a long sleep") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(), cache);
  c.consume(exec_comm(0));
  c.consume(on_cpu(kPid, 100));
  c.consume(switch_sample(kPid, 200));
  c.consume(switch_record(kPid, 200, true));
  c.consume(switch_record(kPid, 60'000'200, false));  // a 60 s sleep at 1 kHz
  c.consume(on_cpu(kPid, 60'001'000));
  auto p = c.finish(at_us(60'002'000));
  CHECK(c.stats().off_cpu_samples == 330);
  const auto& samples = p.processes.at(0).threads.at(0).samples();
  for (size_t i = 1; i < samples.size(); ++i) CHECK(samples[i].time_ms >= samples[i - 1].time_ms);
}

namespace {
// A thread that runs on one CPU with no switch: ticks at 1 and 2 ms, then none for 8.4 ms.
// `between` is fed after the second tick.
struct StallRun {
  profile::Profile profile;
  RecordingStats stats;
};
StallRun run_with_gap(const std::vector<perf::Record>& between, bool switch_records = true,
                      bool ticks_in_kernel = true) {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ConverterOptions o = options();
  o.switch_records = switch_records;
  o.ticks_in_kernel = ticks_in_kernel;
  ProfileConverter c(o, cache);
  c.consume(exec_comm(0));
  c.consume(on_cpu(kPid, 1000));
  c.consume(on_cpu(kPid, 2000));
  for (const perf::Record& r : between) c.consume(r);
  c.consume(on_cpu(kPid, 10'400));
  c.consume(on_cpu(kPid, 11'400));
  auto p = c.finish(at_us(11'400));
  return StallRun{std::move(p), c.stats()};
}
}  // namespace

TEST_CASE("converter leaves a stalled CPU's time out of a running thread's deltas") {
  const StallRun run = run_with_gap({});
  const auto& s = run.profile.processes.at(0).threads.at(0).samples();
  REQUIRE(s.size() == 5);  // a 0-CPU lead sample at exec, then the four ticks
  // The timer fires each period the thread runs: it could not fire, so the CPU was stopped.
  const uint64_t longest = kPeriodNs + CpuAccounting::timer_slack_ns(kPeriodNs);
  CHECK(s[3].cpu_delta_ns == longest);
  CHECK(s[4].cpu_delta_ns == 1'000'000u);
  CHECK(run.stats.cpu_stalls == 1u);
  CHECK(run.stats.cpu_stalled_ns == 8'400'000u - longest);
  CHECK(run.stats.cpu_stall_credited_ns == longest);
}

TEST_CASE("converter takes a stalled stretch's CPU from the scheduler's count where there is one") {
  // By 10.3 ms the scheduler counted 3.3 ms for the thread: it ran 2 ms to the last tick and
  // 1.3 ms since, so the CPU stood still for 7 ms of the 8.3 ms the switch records credit.
  perf::RuntimeRecord count;
  count.id = id(kPid, 10'300);
  count.runtime_ns = 3'300'000;
  const StallRun run = run_with_gap({count});
  const auto& s = run.profile.processes.at(0).threads.at(0).samples();
  REQUIRE(s.size() == 5);
  CHECK(s[3].cpu_delta_ns == 1'400'000u);  // 1.3 ms to the count, 0.1 ms to the tick
  CHECK(s[4].cpu_delta_ns == 1'000'000u);
  CHECK(run.stats.cpu_counts == 1u);
  CHECK(run.stats.cpu_count_removed_ns == 7'000'000u);
  CHECK(run.stats.cpu_count_added_ns == 0u);
  CHECK(run.stats.cpu_stalls == 0u);  // the count settled it before the bound could
}

TEST_CASE("converter credits a gap between ticks as CPU when sampling was throttled or lost") {
  perf::ThrottleRecord throttle;
  throttle.id = id(kPid, 2500);
  perf::LostRecord lost;
  lost.id = id(kPid, 2500);
  lost.lost = 7;
  for (const perf::Record& r : {perf::Record{throttle}, perf::Record{lost}}) {
    const StallRun run = run_with_gap({r});
    const auto& s = run.profile.processes.at(0).threads.at(0).samples();
    REQUIRE(s.size() == 5);
    CHECK(s[3].cpu_delta_ns == 8'400'000u);  // the thread ran on without samples
    CHECK(run.stats.cpu_stalls == 0u);
  }
}

TEST_CASE("converter sees no stall where no switch records say the thread kept running") {
  // perf record without --switch-events: the thread may have been off CPU in the gap.
  const StallRun run = run_with_gap({}, false);
  const auto& s = run.profile.processes.at(0).threads.at(0).samples();
  REQUIRE(s.size() == 4);
  CHECK(s[2].cpu_delta_ns == kPeriodNs);  // the period, as for every sample
  CHECK(run.stats.cpu_stalls == 0u);
}

TEST_CASE("converter sees no stall where kernel-mode ticks were not sampled") {
  // exclude_kernel (a user at perf_event_paranoid 2): the thread may have spent the gap in a
  // system call, where its ticks were dropped.
  const StallRun run = run_with_gap({}, true, false);
  const auto& s = run.profile.processes.at(0).threads.at(0).samples();
  REQUIRE(s.size() == 5);
  CHECK(s[3].cpu_delta_ns == 8'400'000u);
  CHECK(run.stats.cpu_stalls == 0u);
}

TEST_CASE("converter uses the sample period when no switch records are recorded") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ConverterOptions o = options();
  o.switch_records = false;
  ProfileConverter c(o, cache);
  c.consume(exec_comm(0));
  c.consume(on_cpu(kPid, 1000));
  c.consume(on_cpu(kPid, 2000));
  auto p = c.finish(at_us(3000));
  const auto& s = p.processes.at(0).threads.at(0).samples();
  REQUIRE(s.size() == 2);
  CHECK(s[0].cpu_delta_ns == kPeriodNs);
  CHECK(s[1].cpu_delta_ns == kPeriodNs);
}

TEST_CASE("converter falls back to the period for a thread whose start it did not see") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(), cache);
  c.consume(on_cpu(kPid, 1000));  // first record of the thread: CPU before it is unknown
  c.consume(on_cpu(kPid, 2000));
  auto p = c.finish(at_us(3000));
  const auto& s = p.processes.at(0).threads.at(0).samples();
  REQUIRE(s.size() == 2);
  CHECK(s[0].cpu_delta_ns == kPeriodNs);
  CHECK(s[1].cpu_delta_ns == 1'000'000u);
}

TEST_CASE(
    "converter ends an on-CPU interval at the off-CPU sample, which precedes the late "
    "switch-out record") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(), cache);
  c.consume(exec_comm(0));
  c.consume(on_cpu(kPid, 1000));
  c.consume(on_cpu(kPid, 2000));
  c.consume(switch_sample(kPid, 3000));        // taken as the thread leaves the CPU ...
  c.consume(switch_record(kPid, 3011, true));  // ... the record comes after its stack copy
  c.consume(switch_record(kPid, 13000, false));
  c.consume(exit_record(kPid, 14000));
  auto p = c.finish(at_us(20000));
  const auto& t = p.processes.at(0).threads.at(0);
  CHECK(delta_sum(t) == 4'000'000u);  // [0, 3] + [13, 14] ms, not 11 us more
  CHECK(c.stats().off_cpu_samples == 10);
}

TEST_CASE("converter starts an on-CPU interval at the CPU-wide switch-out that picked the thread") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(side_band_options(), cache);
  c.consume(exec_comm(0));
  c.consume(test::fork_record(kPid, kPid, 51, kPid, at_us(100)));
  c.consume(switch_sample(kPid, 1000));
  c.consume(switch_record(kPid, 1000, true));
  // Another process's task leaves CPU 0 for thread 51 at 1987; 51's own record is 13 us late.
  c.consume(cpu_wide_out(900, 901, 51, 1987));
  c.consume(switch_record(51, 2000, false));
  // 51 blocks at 3000 and hands the CPU to the main thread: the CPU-wide record follows 51's
  // off-CPU sample and its stack copy, so the pick happened at the sample's time.
  c.consume(switch_sample(51, 3000));
  c.consume(cpu_wide_out(kPid, 51, kPid, 3011));
  c.consume(switch_record(51, 3012, true));
  c.consume(switch_record(kPid, 3025, false));
  c.consume(exit_record(51, 3500));  // never runs again: exits from the block (test shortcut)
  c.consume(exit_record(kPid, 4000));
  auto p = c.finish(at_us(5000));
  const auto& threads = p.processes.at(0).threads;
  REQUIRE(threads.size() == 2);
  CHECK(delta_sum(threads[0]) == 2'000'000u);  // [0, 1] + [3, 4] ms
  CHECK(delta_sum(threads[1]) == 1'013'000u);  // [1.987, 3] ms
  // Both switch-ins had their pick: none read late.
  CHECK(c.stats().cpu_switch_ins == 2u);
  CHECK(c.stats().cpu_switch_ins_without_pick == 0u);
}

TEST_CASE("converter counts the switch-ins that had no pick, which start late at their record") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(side_band_options(), cache);
  c.consume(exec_comm(0));
  c.consume(test::fork_record(kPid, kPid, 51, kPid, at_us(100)));
  c.consume(switch_record(51, 1000, false));  // no CPU-wide record picked it
  c.consume(switch_record(51, 2000, true));
  c.consume(cpu_wide_out(900, 901, 51, 2987));
  c.consume(switch_record(51, 3000, false));  // picked at 2987
  c.consume(exit_record(51, 3500));
  c.consume(exit_record(kPid, 4000));
  auto p = c.finish(at_us(5000));
  CHECK(c.stats().cpu_switch_ins == 2u);
  CHECK(c.stats().cpu_switch_ins_without_pick == 1u);
  const auto& threads = p.processes.at(0).threads;
  REQUIRE(threads.size() == 2);
  CHECK(delta_sum(threads[1]) == 1'513'000u);  // [1, 2] + [2.987, 3.5] ms
}

TEST_CASE(
    "converter takes a system-wide recording's CPU-wide switch records as the threads' own, "
    "switch-ins starting at the pick") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(), cache);  // no side-band event: CPU-wide records are all there is
  c.consume(exec_comm(0));
  c.consume(on_cpu(kPid, 1000));
  perf::SwitchRecord out = cpu_wide_out(kPid, kPid, 0, 2000);  // to the idle task
  c.consume(out);
  c.consume(cpu_wide_out(900, 901, kPid, 5000));  // another task hands the CPU back at 5 ms ...
  perf::SwitchRecord in;
  in.id = id(kPid, 5013);  // ... and the switch-in record comes 13 us later
  in.cpu_wide = true;
  in.next_prev_pid = 900;
  in.next_prev_tid = 901;
  c.consume(in);
  c.consume(exit_record(kPid, 6000));
  auto p = c.finish(at_us(7000));
  CHECK(delta_sum(p.processes.at(0).threads.at(0)) == 3'000'000u);  // [0, 2] + [5, 6] ms
}

TEST_CASE(
    "converter ends an on-CPU interval at the CPU-wide switch-out that precedes the thread's "
    "own") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(side_band_options(), cache);
  c.consume(exec_comm(0));
  c.consume(on_cpu(kPid, 1000));
  c.consume(cpu_wide_out(kPid, kPid, 0, 2000));      // the CPU goes to another task at 2 ms ...
  c.consume(switch_record(kPid, 2001, true, true));  // ... the thread's own record 1 us later
  c.consume(cpu_wide_out(900, 901, kPid, 3000));
  c.consume(switch_record(kPid, 3013, false));
  c.consume(exit_record(kPid, 4000));
  auto p = c.finish(at_us(5000));
  CHECK(delta_sum(p.processes.at(0).threads.at(0)) == 3'000'000u);  // [0, 2] + [3, 4] ms
}
