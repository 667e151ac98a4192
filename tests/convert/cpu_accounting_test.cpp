// CPU time per thread from switch records (CpuAccounting) and the off-CPU sample grid
// (off_cpu_sample_times), without a kernel.
#include "sprof/convert/cpu_accounting.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "sprof/convert/off_cpu.hpp"

using namespace sprof::convert;

TEST_CASE("cpu accounting sums the on-CPU intervals between two takes") {
  CpuAccounting cpu;
  cpu.switched_in(5, 1000);
  CHECK(cpu.take(5, 1500).cpu_ns == 500u);
  cpu.switched_out(5, 1800);  // 300 more
  cpu.switched_in(5, 5000);   // off CPU for 3200: not counted
  cpu.switched_out(5, 5100);  // 100 more
  cpu.switched_in(5, 9000);
  const auto taken = cpu.take(5, 9050);  // 50 more
  CHECK(taken.cpu_ns == 450u);
  CHECK(taken.since_ns == 1500u);
}

TEST_CASE("cpu accounting does not know the CPU time of a thread first seen at a take") {
  CpuAccounting cpu;
  const auto first = cpu.take(7, 100);
  CHECK_FALSE(first.cpu_ns.has_value());
  // From then on the thread counts as running.
  CHECK(cpu.take(7, 400).cpu_ns == 300u);
}

TEST_CASE("cpu accounting treats a thread seen in its own context as running since then") {
  CpuAccounting cpu;
  cpu.running(9, 100);  // e.g. its comm record after exec, which has no switch-in
  cpu.running(9, 150);  // still running: does not restart the interval
  cpu.switched_out(9, 400);
  const auto taken = cpu.take(9, 1000);
  CHECK(taken.cpu_ns == 300u);
  CHECK(taken.since_ns == 100u);
  CHECK(cpu.last_seen(9) == 1000u);
}

TEST_CASE("cpu accounting starts a switch-in at the thread's pick time") {
  CpuAccounting cpu;
  CHECK(cpu.switched_in(6, 1000) == CpuAccounting::SwitchInStart::kAtRecord);
  cpu.switched_out(6, 2000);  // 1000
  cpu.picked(6, 4987);        // the CPU-wide switch-out that chose it ...
  // ... 13 ns before its own switch-in record
  CHECK(cpu.switched_in(6, 5000) == CpuAccounting::SwitchInStart::kAtPick);
  cpu.switched_out(6, 6000);  // 1013
  CHECK(cpu.take(6, 7000).cpu_ns == 2013u);
}

TEST_CASE("cpu accounting ignores a pick older than the thread's last switch-out") {
  CpuAccounting cpu;
  cpu.switched_in(6, 1000);
  cpu.picked(6, 1500);        // its switch-in record was lost ...
  cpu.switched_out(6, 2000);  // ... so this pick belongs to no switch-in to come
  CHECK(cpu.switched_in(6, 5000) == CpuAccounting::SwitchInStart::kAtRecord);
  cpu.switched_out(6, 6000);
  CHECK(cpu.take(6, 7000).cpu_ns == 2000u);  // [1000, 2000] + [5000, 6000]
}

TEST_CASE("cpu accounting ignores records older than the thread's state") {
  CpuAccounting cpu;
  cpu.switched_in(3, 1000);
  CHECK(cpu.take(3, 2000).cpu_ns == 1000u);
  CHECK(cpu.take(3, 1900).cpu_ns == 0u);  // a late record adds nothing, never wraps around
  cpu.switched_out(3, 1950);
  CHECK(cpu.take(3, 2500).cpu_ns == 0u);
}

TEST_CASE("cpu accounting forgets exited threads so a reused tid starts fresh") {
  CpuAccounting cpu;
  cpu.switched_in(4, 0);
  cpu.forget(4);
  CHECK_FALSE(cpu.last_seen(4).has_value());
  CHECK_FALSE(cpu.take(4, 100).cpu_ns.has_value());
}

namespace {
constexpr uint64_t kMs = 1'000'000;
constexpr CpuAccounting::ClockTick kTick{kMs};  // cpu-clock at 1 kHz
}  // namespace

TEST_CASE("a clock tick far after the previous one, with no switch between, credits one period") {
  CpuAccounting cpu;
  cpu.switched_in(8, 0);
  CHECK(cpu.take(8, 1 * kMs, kTick).cpu_ns == kMs);
  CHECK(cpu.take(8, 2 * kMs, kTick).cpu_ns == kMs);
  // A timer armed for a running thread fires within a period: 8.4 ms without a tick or a switch
  // means the CPU itself stopped (a VM's steal) for all but about one period of it.
  const auto stalled = cpu.take(8, 10'400'000, kTick);
  const uint64_t longest = kMs + CpuAccounting::timer_slack_ns(kMs);
  CHECK(stalled.cpu_ns == longest);
  CHECK(stalled.stalled_ns == 8'400'000 - longest);
  CHECK(stalled.stall_credited_ns == longest);  // steal, or the thread's if a timer was late
  CHECK(stalled.stalls == 1u);
  CHECK(stalled.since_ns == 2 * kMs);
  // Timer latency within the slack is the thread's: nothing is taken away.
  const auto late = cpu.take(8, 10'400'000 + kMs + 300'000, kTick);
  CHECK(late.cpu_ns == kMs + 300'000);
  CHECK(late.stalled_ns == 0u);
}

TEST_CASE("a stretch from a switch-in to a tick is bounded, the time before the switch is not") {
  CpuAccounting cpu;
  cpu.switched_in(8, 0);
  CHECK(cpu.take(8, 1 * kMs, kTick).cpu_ns == kMs);
  // Runs 1.4 ms more without a tick before it is preempted (within the timer's slack).
  cpu.switched_out(8, 2'400'000);
  // Back 0.6 ms later; what is left of a timer's period is at most one, yet the tick comes
  // 8 ms later: the CPU stalled for most of it. The 9.4 ms since the previous tick are not one
  // bound: perf may have handed the thread a sibling's events at the switch-in, timers included.
  cpu.switched_in(8, 3'000'000);
  const auto taken = cpu.take(8, 11'000'000, kTick);
  const uint64_t longest = kMs + CpuAccounting::timer_slack_ns(kMs);
  CHECK(taken.cpu_ns == 1'400'000 + longest);
  CHECK(taken.stalled_ns == 8'000'000 - longest);
}

TEST_CASE("a stretch from a switch-in or a tick to a switch-out is bounded as one to a tick") {
  const uint64_t longest = kMs + CpuAccounting::timer_slack_ns(kMs);
  SUBCASE("from a tick: the timer re-armed there would have fired within a period") {
    CpuAccounting cpu;
    cpu.switched_in(8, 0);
    CHECK(cpu.take(8, kMs, kTick).cpu_ns == kMs);
    cpu.switched_out(8, kMs + 7 * kMs);  // 7 ms on CPU by the records, no tick: a stall
    const auto taken = cpu.take(8, 20 * kMs);
    CHECK(taken.cpu_ns == longest);
    CHECK(taken.stalled_ns == 7 * kMs - longest);
    CHECK(taken.stall_credited_ns == longest);
    CHECK(taken.stalls == 1u);
    // Reported once: the next take has no stall left to report.
    cpu.switched_in(8, 21 * kMs);
    const auto next = cpu.take(8, 22 * kMs, kTick);
    CHECK(next.cpu_ns == kMs);
    CHECK(next.stalled_ns == 0u);
    CHECK(next.stalls == 0u);
  }
  SUBCASE("from a switch-in, once a tick said the timer's period") {
    CpuAccounting cpu;
    cpu.switched_in(8, 0);
    CHECK(cpu.take(8, kMs, kTick).cpu_ns == kMs);
    cpu.switched_out(8, 1'200'000);
    cpu.switched_in(8, 2 * kMs);
    cpu.switched_out(8, 12 * kMs);  // 10 ms
    cpu.switched_in(8, 13 * kMs);
    cpu.switched_out(8, 18 * kMs);  // 5 ms: a second stall before the next take
    const auto taken = cpu.take(8, 19 * kMs);
    CHECK(taken.cpu_ns == 200'000 + 2 * longest);
    CHECK(taken.stalled_ns == 15 * kMs - 2 * longest);
    CHECK(taken.stall_credited_ns == 2 * longest);
    CHECK(taken.stalls == 2u);
  }
  SUBCASE("within the bound, a stretch to a switch-out is credited whole") {
    CpuAccounting cpu;
    cpu.switched_in(8, 0);
    CHECK(cpu.take(8, kMs, kTick).cpu_ns == kMs);
    cpu.switched_out(8, kMs + longest);
    const auto taken = cpu.take(8, 5 * kMs);
    CHECK(taken.cpu_ns == longest);
    CHECK(taken.stalled_ns == 0u);
  }
}

TEST_CASE("a long stretch to a switch-out is the thread's CPU when no timer bounds it") {
  const uint64_t gap = 8 * kMs;
  SUBCASE("no tick was seen yet: the timer's period is not known") {
    CpuAccounting cpu;
    cpu.switched_in(8, 0);
    cpu.switched_out(8, gap);
    CHECK(cpu.take(8, gap + kMs).cpu_ns == gap);
  }
  SUBCASE("the thread was found running (no switch-in or tick started the stretch)") {
    CpuAccounting cpu;
    cpu.switched_in(8, 0);
    CHECK(cpu.take(8, kMs, kTick).cpu_ns == kMs);
    cpu.switched_out(8, 2 * kMs);
    cpu.running(8, 3 * kMs);
    cpu.switched_out(8, 3 * kMs + gap);
    CHECK(cpu.take(8, 20 * kMs).cpu_ns == kMs + gap);
  }
  SUBCASE("records were lost or sampling throttled in between") {
    CpuAccounting cpu;
    cpu.switched_in(8, 0);
    CHECK(cpu.take(8, kMs, kTick).cpu_ns == kMs);
    cpu.forget_ticks();
    cpu.switched_out(8, kMs + gap);
    CHECK(cpu.take(8, 20 * kMs).cpu_ns == gap);
  }
  SUBCASE("the previous take was not a tick (an off-CPU sample)") {
    CpuAccounting cpu;
    cpu.switched_in(8, 0);
    CHECK(cpu.take(8, kMs, kTick).cpu_ns == kMs);
    CHECK(cpu.take(8, 2 * kMs).cpu_ns == kMs);
    cpu.switched_out(8, 2 * kMs + gap);
    CHECK(cpu.take(8, 20 * kMs).cpu_ns == gap);
  }
}

TEST_CASE("a long stretch to a tick is the thread's CPU when its start is not a timer's") {
  const uint64_t gap = 8 * kMs;
  SUBCASE("the thread was found running (no switch-in seen)") {
    CpuAccounting cpu;
    cpu.running(8, 0);
    CHECK(cpu.take(8, gap, kTick).cpu_ns == gap);
  }
  SUBCASE("the previous sample was not a tick (an off-CPU or exit sample)") {
    CpuAccounting cpu;
    cpu.switched_in(8, 0);
    CHECK(cpu.take(8, kMs).cpu_ns == kMs);
    CHECK(cpu.take(8, kMs + gap, kTick).cpu_ns == gap);
  }
  SUBCASE("records were lost or sampling throttled in between") {
    CpuAccounting cpu;
    cpu.switched_in(8, 0);
    CHECK(cpu.take(8, kMs, kTick).cpu_ns == kMs);
    cpu.forget_ticks();
    CHECK(cpu.take(8, kMs + gap, kTick).cpu_ns == gap);
  }
  SUBCASE("the event's period is not known") {
    CpuAccounting cpu;
    cpu.switched_in(8, 0);
    CHECK(cpu.take(8, kMs, CpuAccounting::ClockTick{0}).cpu_ns == kMs);
    CHECK(cpu.take(8, kMs + gap, CpuAccounting::ClockTick{0}).cpu_ns == gap);
  }
}

TEST_CASE("off-CPU samples fall on the sampling grid inside the blocked interval") {
  const SampleGrid grid{1'000'000'000, 1'000'000};  // 1 ms interval
  std::vector<uint64_t> times;
  // Blocked from 2.3 ms to 6.0 ms after the origin: grid points 3, 4, 5 ms (6 ms is the end).
  off_cpu_sample_times(grid.origin_ns + 2'300'000, grid.origin_ns + 6'000'000, grid, times);
  CHECK(times == std::vector<uint64_t>{grid.origin_ns + 3'000'000, grid.origin_ns + 4'000'000,
                                       grid.origin_ns + 5'000'000});
  // A block shorter than the interval and spanning no grid point gets no sample.
  times.clear();
  off_cpu_sample_times(grid.origin_ns + 7'100'000, grid.origin_ns + 7'900'000, grid, times);
  CHECK(times.empty());
}

TEST_CASE("off-CPU samples of a long block are dense at first, then sparser per decade") {
  const SampleGrid grid{0, 1'000'000};
  std::vector<uint64_t> times;
  off_cpu_sample_times(0, 60'000'000'000ULL, grid, times);  // 60 s at 1 kHz
  // 100 dense, then every 10th up to 1000, every 100th up to 10000, every 1000th after.
  CHECK(times.size() == 100 + 90 + 90 + 50);
  CHECK(times[99] == 99'000'000);
  CHECK(times[100] == 100'000'000);
  CHECK(times[101] == 110'000'000);
  CHECK(times[190] == 1'000'000'000);
  CHECK(times.back() == 59'000'000'000ULL);
  for (size_t i = 1; i < times.size(); ++i) CHECK(times[i] > times[i - 1]);
}
