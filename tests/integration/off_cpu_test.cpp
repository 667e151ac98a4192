// CPU usage and off-CPU samples of real recordings (docs/firefox-profiler-format.md, "CPU deltas"):
// each thread's CPU deltas add up to the CPU time the thread measured itself
// (CLOCK_THREAD_CPUTIME_ID), short-lived threads included, and blocked threads get Idle samples
// without CPU.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <optional>

#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"
#include "thread_cpu.hpp"

using namespace sprof::test;

namespace {

constexpr double kCpuTolerance = 0.02;  // the 2 % the brief allows

}  // namespace

TEST_CASE(
    "CPU deltas add up to each thread's CPU time within 2 % (1 % by the scheduler's counts), "
    "short-lived threads included") {
  skip_without_perf();
  const auto dir = make_temp_dir("offcpu-cpu");
  const auto out = dir + "/p.json.gz";
  // Two threads of 300 ms CPU, then fifty threads of 2 ms CPU each.
  auto r = sprof_record(out, {}, {target_path("offcpu_cpu_threads"), "2", "300", "50", "2"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto measured = measured_threads(r.out);
  REQUIRE(measured.size() == 52);
  const auto profile = read_profile(out);

  // What the profile says it left out as stalls (a VM's vCPU stopped) widens the check upward
  // by that much; see error_beyond_stalls.
  const StatedStalls stalled = stated_stalls(profile);
  // Where the scheduler's own counts are recorded they settle the deltas (cpu_accounting.hpp): a
  // long thread's CPU is then its count but for the last few ms per CPU after its final count,
  // so it meets the 1 % fidelity target. The short threads run less than one count period.
  const bool counted = profile.sprof_meta_cpu_counts.value_or(0) > 0;
  if (scheduler_counts_expected()) CHECK(counted);
  const double long_tolerance = counted ? 0.01 : kCpuTolerance;
  // A thread's own last reading misses its print and its exit path, which the profile rightly
  // counts, so the short threads together are held to their whole CPU as the process clock saw
  // it (offcpu_cpu_threads.cpp). Measured here under sprof: the whole is ~42 us a thread above
  // the readings (2 % of a 2 ms thread), the profile ~22 us: no perf event sees what a thread
  // runs after the kernel tears down its events on exit, so the profile reads ~1 % low of the
  // whole where it had read 1-3 % high of the readings.
  const std::optional<uint64_t> short_whole = measured_total(r.out, "short-threads");
  REQUIRE(short_whole.has_value());
  // Where no counts were recorded, the deltas may be off by what the threads measured.
  uint64_t short_read = 0, short_profile = 0, long_real = 0, long_profile = 0;
  DeltaBias short_bias, long_bias;
  for (const auto& [tid, real] : measured) {
    CAPTURE(real.name);
    const ThreadView* t = thread_with_tid(profile, tid);
    REQUIRE(t != nullptr);
    const uint64_t cpu = front_end_cpu_ns(*t);
    // The leading sample carries nothing, so the file's sum is what the front end shows.
    CHECK(cpu == t->cpu_delta_ns);
    const DeltaBias bias = delta_bias(profile, real);
    MESSAGE(real.name << ": " << cpu_comparison(cpu, real) << " ("
                      << 100 * relative_error(cpu, real.cpu_ns) << " %)");
    if (real.name.rfind("long-", 0) == 0) {
      CHECK(std::abs(thread_cpu_error(profile, cpu, real)) < long_tolerance);
      long_real += real.cpu_ns;
      long_profile += cpu;
      long_bias += bias;
    } else {
      short_read += real.cpu_ns;
      short_profile += cpu;
      short_bias += bias;
    }
  }
  MESSAGE("short threads: " << short_read << " ns by their own last readings, " << *short_whole
                            << " ns whole, profile " << short_profile << " ns ("
                            << 100 * relative_error(short_profile, *short_whole) << " %)");
  // What the threads read of themselves is part of the whole.
  CHECK(short_read <= *short_whole);
  CHECK(std::abs(error_beyond_stalls(short_profile, *short_whole, stalled, short_bias)) <
        kCpuTolerance);
  CHECK(std::abs(error_beyond_stalls(long_profile + short_profile, long_real + *short_whole,
                                     stalled, long_bias + short_bias)) < kCpuTolerance);
}

TEST_CASE("blocked threads get Idle samples with no CPU while their CPU time stays exact") {
  skip_without_perf();
  const auto dir = make_temp_dir("offcpu-blocked");
  const auto out = dir + "/p.json.gz";
  // "sleeper": 10 x (20 ms CPU, 20 ms nanosleep); the mutex and pipe waiters block ~300 ms.
  auto r = sprof_record(out, {}, {target_path("offcpu_blockers"), "10", "20", "20", "300"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto measured = measured_threads(r.out);
  const auto profile = read_profile(out);
  CHECK(profile.json.find("\"offCpuSamples\":0") == std::string::npos);

  for (const auto& [tid, real] : measured) {
    if (real.name != "sleeper") continue;
    const ThreadView* t = thread_with_tid(profile, tid);
    REQUIRE(t != nullptr);
    const uint64_t cpu = front_end_cpu_ns(*t);
    MESSAGE("sleeper: " << cpu_comparison(cpu, real));
    CHECK(std::abs(thread_cpu_error(profile, cpu, real)) < kCpuTolerance);
  }

  check_blockers_idle(profile);
  const ThreadView* sleeper = thread_named(profile, "sleeper");
  REQUIRE(sleeper != nullptr);
  const size_t idle = idle_samples(profile, *sleeper);
  size_t idle_without_cpu = 0;
  // Only the first sample of a blocked interval may carry CPU: what ran before blocking, less
  // than about one sampling interval (1 ms) of CPU, and what the scheduler's counts added. Time
  // the stall bound left out that a count says was the thread's (cpu_accounting.hpp) comes back
  // in the first sample after that count, which may be the first of a block: 3.4 ms with 2.9 ms
  // added, once in 8 runs beside other tests.
  const auto added_ns =
      static_cast<uint64_t>(profile.sprof_meta_cpu_count_added_ms.value_or(0) * 1e6);
  CAPTURE(added_ns);
  for (size_t i = 0; i < sleeper->samples; ++i) {
    if (!is_idle_sample(profile, *sleeper, i)) continue;
    CHECK(sleeper->cpu_deltas[i].value_or(0) < 2'000'000u + added_ns);
    idle_without_cpu += sleeper->cpu_deltas[i] == 0u ? 1 : 0;
  }
  CHECK(idle_without_cpu >= idle * 9 / 10);
  // Samples stay in time order.
  for (size_t i = 1; i < sleeper->times_ms.size(); ++i) {
    CHECK(sleeper->times_ms[i] >= sleeper->times_ms[i - 1]);
  }
}

TEST_CASE("--no-off-cpu records CPU time but no Idle samples") {
  skip_without_perf();
  const auto dir = make_temp_dir("offcpu-off");
  const auto out = dir + "/p.json.gz";
  auto r =
      sprof_record(out, {"--no-off-cpu"}, {target_path("offcpu_blockers"), "5", "20", "20", "100"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto profile = read_profile(out);
  CHECK(profile.json.find("\"offCpuSamples\":0") != std::string::npos);
  for (const auto& proc : profile.processes) {
    for (const auto& t : proc.threads) {
      CAPTURE(t.name);
      CHECK(idle_samples(profile, t) == 0);
    }
  }
  for (const auto& [tid, real] : measured_threads(r.out)) {
    if (real.name != "sleeper") continue;
    const ThreadView* t = thread_with_tid(profile, tid);
    REQUIRE(t != nullptr);
    CHECK(std::abs(thread_cpu_error(profile, front_end_cpu_ns(*t), real)) < kCpuTolerance);
  }
}

TEST_CASE("a thread with more samples than fit in memory blocks keeps every one, in order") {
  // 10 kHz for 1.5 s of CPU: ~15,000 samples, so full blocks of 4,096 go to the spill file
  // (profile/sample_list.hpp) and come back when the profile is written.
  skip_without_perf();
  const auto dir = make_temp_dir("offcpu-spill");
  const auto out = dir + "/p.json.gz";
  auto r = sprof_record(out, {"-r", "10000"},
                        {target_path("offcpu_cpu_threads"), "1", "1500", "0", "0"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto measured = measured_threads(r.out);
  REQUIRE(measured.size() == 1);
  const auto profile = read_profile(out);
  const auto& [tid, real] = *measured.begin();
  const ThreadView* t = thread_with_tid(profile, tid);
  REQUIRE(t != nullptr);
  CHECK(t->samples > 3 * 4096);
  for (size_t i = 1; i < t->times_ms.size(); ++i) {
    CAPTURE(i);
    REQUIRE(t->times_ms[i] >= t->times_ms[i - 1]);
  }
  size_t with_stack = 0;
  for (const auto& stack : t->stacks) with_stack += stack.empty() ? 0 : 1;
  CHECK(with_stack >= t->samples - 1);  // the leading sample alone may have none
  CHECK(std::abs(thread_cpu_error(profile, front_end_cpu_ns(*t), real)) < kCpuTolerance);
}

TEST_CASE(
    "--cpu-counts off records CPU time from switch records alone, --cpu-counts on asks for "
    "counts") {
  skip_without_perf();
  const auto dir = make_temp_dir("offcpu-counts");
  for (const std::string mode : {"off", "on"}) {
    CAPTURE(mode);
    const auto out = dir + "/" + mode + ".json.gz";
    auto r = sprof_record(out, {"--cpu-counts", mode},
                          {target_path("offcpu_cpu_threads"), "1", "100", "0", "0"});
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    const auto profile = read_profile(out);
    const int64_t counts = profile.sprof_meta_cpu_counts.value_or(0);
    if (mode == "off") {
      CHECK(counts == 0);
      CHECK(r.err.find("--cpu-counts") == std::string::npos);
    } else if (scheduler_counts_possible()) {
      CHECK(counts > 0);  // ~25 for 100 ms of CPU, one per 4 ms
    } else {
      // Not root, an older kernel, or no tracefs: said, not silently dropped.
      CHECK(r.err.find("--cpu-counts") != std::string::npos);
    }
    for (const auto& [tid, real] : measured_threads(r.out)) {
      const ThreadView* t = thread_with_tid(profile, tid);
      REQUIRE(t != nullptr);
      // Off, the deltas are the switch records' time on CPU, which may hold steal, and lack the
      // lateness of switch-ins without a pick.
      MESSAGE(mode << " " << real.name << ": " << cpu_comparison(front_end_cpu_ns(*t), real));
      CHECK(std::abs(thread_cpu_error(profile, front_end_cpu_ns(*t), real)) < kCpuTolerance);
    }
  }
}
