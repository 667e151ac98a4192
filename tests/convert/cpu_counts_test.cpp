// The scheduler's runtime counts settle the CPU deltas the switch records estimate
// (CpuAccounting::counted), without a kernel.
#include <doctest/doctest.h>

#include "sprof/convert/cpu_accounting.hpp"

using namespace sprof::convert;

namespace {
constexpr uint64_t kMs = 1'000'000;
constexpr uint32_t kTid = 8;
constexpr CpuAccounting::ClockTick kTick{kMs};  // cpu-clock at 1 kHz
// What a count may run ahead of the switch records (CpuAccounting::count_slack_ns): its own
// slack, and the SWITCH(in) record's lateness per switch-in since the previous count.
constexpr uint64_t kCountSlackNs = 20'000;
constexpr uint64_t kSwitchInSlackNs = 50'000;
}  // namespace

TEST_CASE("a count below what the switch records credited takes the difference out") {
  CpuAccounting cpu;
  cpu.running(kTid, 0, 0);  // found running: no bound on its stretch
  CHECK(cpu.take(kTid, 1 * kMs).cpu_ns == 1 * kMs);
  // By 5 ms the switch records say 5 ms on CPU; the scheduler counted 2 ms (3 ms stolen).
  cpu.counted(kTid, 0, 5 * kMs, 2 * kMs);
  const auto taken = cpu.take(kTid, 6 * kMs);
  CHECK(taken.cpu_ns == 2 * kMs);  // 1 ms up to the count, 1 ms after it
  CHECK(taken.corrected_ns == static_cast<int64_t>(3 * kMs));
  // Settled once: the next take is the switch records' again.
  CHECK(cpu.take(kTid, 7 * kMs).cpu_ns == 1 * kMs);
}

TEST_CASE("a count above what the switch records credited adds the difference") {
  CpuAccounting cpu;
  cpu.switched_in(kTid, 0, 0);
  CHECK(cpu.take(kTid, 1 * kMs, kTick).cpu_ns == kMs);
  // 8 ms to the next tick: bounded as a stall ...
  const auto bounded = cpu.take(kTid, 9 * kMs, kTick);
  CHECK(bounded.stalled_ns > 0);
  // ... but the scheduler counted the whole 9.5 ms: the timer was late, the thread ran.
  cpu.counted(kTid, 0, 9'500'000, 9'500'000);
  const auto taken = cpu.take(kTid, 10 * kMs, kTick);
  CHECK(taken.corrected_ns == -static_cast<int64_t>(bounded.stalled_ns));
  CHECK(kMs + *bounded.cpu_ns + *taken.cpu_ns == 10 * kMs);
}

TEST_CASE("a correction larger than the next deltas is spread over the following ones") {
  CpuAccounting cpu;
  cpu.running(kTid, 0, 0);
  cpu.counted(kTid, 0, 4 * kMs, 1 * kMs);  // credited 4 ms, counted 1 ms: 3 ms to take out
  CHECK(cpu.take(kTid, 4 * kMs).cpu_ns == 1 * kMs);  // 4 ms reported, 3 ms taken out
  cpu.counted(kTid, 0, 5 * kMs, 1 * kMs);  // the CPU stopped for another whole millisecond
  CHECK(cpu.take(kTid, 5 * kMs).cpu_ns == 0u);
  CHECK(cpu.take(kTid, 5'500'000).cpu_ns == 500'000u);
}

TEST_CASE("a correction that does not fit in one take waits for the next") {
  CpuAccounting cpu;
  cpu.running(kTid, 0, 0);
  CHECK(cpu.take(kTid, 1 * kMs).cpu_ns == 1 * kMs);
  cpu.counted(kTid, 0, 5 * kMs, 1'500'000);  // 3.5 ms credited in excess
  const auto first = cpu.take(kTid, 5 * kMs);
  CHECK(first.cpu_ns == 500'000u);  // 4 ms reported, 3.5 ms taken out
  cpu.switched_out(kTid, 6 * kMs);
  CHECK(cpu.take(kTid, 7 * kMs).cpu_ns == 1 * kMs);
  // Repeating a count that agrees adds nothing.
  cpu.switched_in(kTid, 8 * kMs, 0);
  cpu.counted(kTid, 0, 9 * kMs, 3'500'000);
  CHECK(cpu.take(kTid, 9 * kMs).cpu_ns == 1 * kMs);
}

TEST_CASE("each CPU's count settles only the time credited on that CPU") {
  CpuAccounting cpu;
  cpu.switched_in(kTid, 0, 0);
  cpu.counted(kTid, 0, 4 * kMs, 4 * kMs);  // CPU 0 agrees
  cpu.switched_out(kTid, 5 * kMs);         // 1 ms more on CPU 0, not counted yet
  cpu.switched_in(kTid, 6 * kMs, 1);
  cpu.counted(kTid, 1, 10 * kMs, 2 * kMs);  // 4 ms on CPU 1, of which 2 ms stolen
  const auto taken = cpu.take(kTid, 10 * kMs);
  // 4 + 1 on CPU 0 as credited (its last count was right), 2 on CPU 1 as counted.
  CHECK(taken.cpu_ns == 7 * kMs);
  CHECK(taken.corrected_ns == static_cast<int64_t>(2 * kMs));
}

TEST_CASE("a count is a record of the thread's own: it runs on that CPU from then on") {
  CpuAccounting cpu;
  cpu.switched_in(kTid, 0, 0);
  cpu.switched_out(kTid, 1 * kMs);
  // Its switch-in was lost; the count shows it running again.
  cpu.counted(kTid, 1, 3 * kMs, 0);
  const auto taken = cpu.take(kTid, 4 * kMs);
  CHECK(taken.cpu_ns == 2 * kMs);  // 1 ms before, 1 ms since the count
}

TEST_CASE("threads are counted apart") {
  CpuAccounting cpu;
  cpu.running(1, 0, 0);
  cpu.running(2, 0, 1);
  cpu.counted(1, 0, 2 * kMs, 1 * kMs);
  CHECK(cpu.take(2, 2 * kMs).cpu_ns == 2 * kMs);
  CHECK(cpu.take(1, 2 * kMs).cpu_ns == 1 * kMs);
}

TEST_CASE("a count that grew more than the thread was on that CPU holds other tasks' time") {
  CpuAccounting cpu;
  cpu.switched_in(kTid, 0, 0);
  cpu.counted(kTid, 0, 4 * kMs, 4 * kMs);
  // 4 ms more on CPU, but the count grew by 7 ms: the thread woke a task on another CPU and its
  // event counted that CPU's running task's 3 ms. Only the switch records' error may pass: no
  // switch-in since the previous count, so a count's own.
  cpu.counted(kTid, 0, 8 * kMs, 11 * kMs);
  const auto taken = cpu.take(kTid, 8 * kMs);
  const uint64_t slack = kCountSlackNs;
  CHECK(taken.cpu_ns == 8 * kMs + slack);
  CHECK(taken.corrected_ns == -static_cast<int64_t>(slack));
  // The excess is not held against later counts either: a count that agrees changes nothing.
  cpu.counted(kTid, 0, 9 * kMs, 12 * kMs);
  CHECK(cpu.take(kTid, 9 * kMs).cpu_ns == kMs);
}

TEST_CASE("a thread's count from before it was first seen is not added") {
  CpuAccounting cpu;
  // Attached while it ran: the count began when the event was opened, 30 ms before its first
  // record here.
  cpu.running(kTid, 30 * kMs, 0);
  cpu.counted(kTid, 0, 34 * kMs, 34 * kMs);
  CHECK(cpu.take(kTid, 34 * kMs).cpu_ns == 4 * kMs + kCountSlackNs);
}

TEST_CASE("other tasks' time in small pieces, one per count, does not add up") {
  // A busy thread's context updates other tasks' time a little at a time (seen under load: up
  // to ~140 us per 4 ms count), each piece within what one count may run ahead.
  CpuAccounting cpu;
  cpu.switched_in(kTid, 0, 0);
  uint64_t count = 0;
  uint64_t reported = 0;
  for (int i = 1; i <= 75; ++i) {
    count += 4 * kMs + 15'000;
    cpu.counted(kTid, 0, i * 4 * kMs, count);
    reported += *cpu.take(kTid, i * 4 * kMs).cpu_ns;
  }
  // 300 ms on CPU: the count may be ahead by one count's slack (the first had a switch-in), not
  // by 75 x 15 us.
  CHECK(reported <= 300 * kMs + kCountSlackNs + kSwitchInSlackNs);
  CHECK(reported >= 300 * kMs);
}

TEST_CASE("a count ahead by the switch-in's lateness is the thread's own") {
  // The count starts at the scheduler's pick, the switch records at the SWITCH(in) record after
  // the switch: the thread ran that much more than they say.
  CpuAccounting cpu;
  cpu.switched_in(kTid, 30'000, 0);
  cpu.counted(kTid, 0, 2 * kMs, 2 * kMs);
  const auto taken = cpu.take(kTid, 2 * kMs);
  CHECK(taken.cpu_ns == 2 * kMs);
  CHECK(taken.corrected_ns == -30'000);
}

TEST_CASE("a count that fell behind (a stall) is not made up by other tasks' time later") {
  CpuAccounting cpu;
  cpu.switched_in(kTid, 0, 0);
  cpu.counted(kTid, 0, 4 * kMs, 2 * kMs);  // 2 ms stolen
  // The next 4 ms: the count grew by 6 ms, 2 of them another task's.
  cpu.counted(kTid, 0, 8 * kMs, 8 * kMs);
  const auto taken = cpu.take(kTid, 8 * kMs);
  CHECK(taken.cpu_ns == 6 * kMs + kCountSlackNs);
}

namespace {
// 100 stretches of 1 ms by the count, each 15 us shorter by the switch records (their start is
// late), counted every 4 stretches; with `picks`, each switch-in's start comes from a pick.
uint64_t reported_over_late_switch_ins(bool picks) {
  CpuAccounting cpu;
  uint64_t reported = 0;
  constexpr uint64_t kLateNs = 15'000;
  for (uint64_t i = 0; i < 100; ++i) {
    const uint64_t start = i * 2 * kMs;
    // With a pick the records start on time (the pick), the switch-in record a little later;
    // a count ahead of them then holds other tasks' time.
    if (picks) cpu.picked(kTid, start + kLateNs);
    cpu.switched_in(kTid, start + kLateNs + (picks ? 5'000 : 0), 0);
    cpu.switched_out(kTid, start + kMs);
    if (i % 4 == 3) cpu.counted(kTid, 0, start + kMs, (i + 1) * kMs);
    reported += cpu.take(kTid, start + kMs).cpu_ns.value_or(0);
  }
  return reported;
}
}  // namespace

TEST_CASE("switch-ins that start at their own record are late each time: the count makes it up") {
  // Without a pick, each switch-in's record comes after the switch: the count's lead adds up
  // (1.5 ms here) and is the thread's.
  CHECK(reported_over_late_switch_ins(false) == 100 * kMs);
}

TEST_CASE("switch-ins that start at a pick are not late: a count that keeps running ahead is not") {
  // The same lead with picks is not lateness: it is held to one count's slack over the share.
  const uint64_t reported = reported_over_late_switch_ins(true);
  CHECK(reported < 100 * kMs - 1'000'000);
  CHECK(reported <= 100 * kMs - 1'500'000 + kCountSlackNs + 4 * kSwitchInSlackNs);
}
