// The scheduler's runtime counts settle the CPU deltas the switch records estimate
// (CpuAccounting::counted), without a kernel.
#include <doctest/doctest.h>

#include "sprof/convert/cpu_accounting.hpp"

using namespace sprof::convert;

namespace {
constexpr uint64_t kMs = 1'000'000;
constexpr uint32_t kTid = 8;
constexpr CpuAccounting::ClockTick kTick{kMs};  // cpu-clock at 1 kHz
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
  // event counted that CPU's running task's 3 ms. Only the switch records' error may pass.
  cpu.counted(kTid, 0, 8 * kMs, 11 * kMs);
  const auto taken = cpu.take(kTid, 8 * kMs);
  const uint64_t slack = 4 * kMs / 16 + 20'000;
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
  const uint64_t slack = 4 * kMs / 16 + 20'000;
  CHECK(cpu.take(kTid, 34 * kMs).cpu_ns == 4 * kMs + slack);
}
