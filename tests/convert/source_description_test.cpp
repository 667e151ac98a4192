// The one place where a source's description becomes converter options and profile meta.
#include "sprof/convert/source_description.hpp"

#include <doctest/doctest.h>

#include <string>
#include <variant>

#include "fake_host_files.hpp"
#include "sprof/unwind/frame_pointer_unwinder.hpp"

using namespace sprof;
using namespace sprof::convert;

namespace {

perf::EventSpec cpu_clock(bool dwarf, bool switches) {
  perf::EventSpec e;
  e.attr.type = PERF_TYPE_SOFTWARE;
  e.attr.config = PERF_COUNT_SW_CPU_CLOCK;
  e.attr.freq = 1;
  e.attr.sample_freq = 4000;
  e.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
  if (dwarf) e.attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
  e.attr.context_switch = switches ? 1 : 0;
  return e;
}

SourceDescription described(perf::EventSpec sampling) {
  SourceDescription d;
  d.events = {sampling};
  d.origin_monotonic_ns = 5'000'000'000;
  d.origin_wall_ms = 1.7e12;
  d.root_pid = 42;
  d.product = "sprof: app";
  d.logical_cpus = 8;
  d.oscpu = "Linux x86_64";
  return d;
}

using ExtraValue = decltype(profile::Meta::extra)::value_type::second_type;

const ExtraValue* extra(const profile::Meta& meta, const std::string& key) {
  for (const auto& [k, v] : meta.extra) {
    if (k == key) return &v;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a DWARF cpu-clock source with switch records: CPU-time periods, unwound stacks") {
  const SourceDescription d = described(cpu_clock(true, true));
  test::FakeHostFiles files;
  const auto unwinder = make_unwinder(d, files);
  REQUIRE(unwinder != nullptr);
  CHECK(unwinds_user_stacks(d));

  ProcAccess proc;
  using Argv = std::vector<std::string>;
  proc.read_argv = [](uint32_t) { return std::optional<Argv>(Argv{"app", "--x"}); };
  const ConverterOptions o = converter_options(d, proc, unwinder.get());
  CHECK(o.event_name == "cpu-clock");
  CHECK(o.interval_ms == doctest::Approx(0.25));
  CHECK(o.period_is_cpu_ns);
  CHECK(o.switch_records);
  CHECK(o.unwinder == unwinder.get());
  CHECK(o.origin_monotonic_ns == 5'000'000'000);
  CHECK(o.origin_wall_ms == 1.7e12);
  CHECK(o.root_pid == 42);
  CHECK(o.product == "sprof: app");
  REQUIRE(o.proc.read_argv);
  CHECK(o.proc.read_argv(1) == std::optional<Argv>(Argv{"app", "--x"}));
}

TEST_CASE("a frame-pointer cycles source: no CPU time in periods, user frames from callchains") {
  perf::EventSpec cycles = cpu_clock(false, false);
  cycles.attr.type = PERF_TYPE_HARDWARE;
  cycles.attr.config = PERF_COUNT_HW_CPU_CYCLES;
  const SourceDescription d = described(cycles);
  test::FakeHostFiles files;
  CHECK(make_unwinder(d, files) == nullptr);
  CHECK_FALSE(unwinds_user_stacks(d));
  // An unwinder handed in anyway is not used: these samples have no registers to start from.
  unwind::FramePointerUnwinder fp;
  const ConverterOptions o = converter_options(d, ProcAccess{}, &fp);
  CHECK(o.event_name == "cycles");
  CHECK_FALSE(o.period_is_cpu_ns);
  CHECK_FALSE(o.switch_records);
  CHECK(o.unwinder == nullptr);
}

TEST_CASE("the profile's meta names the machine, the event, the rate and the unwinding") {
  const SourceDescription d = described(cpu_clock(true, true));
  RecordingStats stats;
  stats.event_name = "cpu-clock";
  stats.lost_records = 3;
  stats.cpu_switch_ins = 7;
  stats.cpu_switch_ins_without_pick = 2;
  stats.unwound_samples = 10;
  stats.unwind_stops[0] = 9;
  profile::Meta meta;
  describe_recording(meta, d, stats);
  CHECK(meta.logical_cpus == 8);
  CHECK(meta.oscpu == "Linux x86_64");
  REQUIRE(extra(meta, "event") != nullptr);
  CHECK(std::get<std::string>(*extra(meta, "event")) == "cpu-clock");
  CHECK(std::get<int64_t>(*extra(meta, "frequencyHz")) == 4000);
  CHECK(std::get<std::string>(*extra(meta, "unwind")) == "dwarf");
  CHECK(std::get<int64_t>(*extra(meta, "lostRecords")) == 3);
  CHECK(std::get<int64_t>(*extra(meta, "cpuSwitchIns")) == 7);
  CHECK(std::get<int64_t>(*extra(meta, "cpuSwitchInsWithoutPick")) == 2);
  CHECK(std::get<int64_t>(*extra(meta, "unwindStop.complete")) == 9);

  profile::Meta fp_meta;
  describe_recording(fp_meta, described(cpu_clock(false, false)), RecordingStats{});
  CHECK(std::get<std::string>(*extra(fp_meta, "unwind")) == "fp");
  CHECK(extra(fp_meta, "unwoundSamples") == nullptr);
}

TEST_CASE(
    "a rate no int64 holds (an attr read from a file) is written as 0, found by the perf.data "
    "fuzzer") {
  perf::EventSpec sampling = cpu_clock(false, false);
  sampling.attr.sample_freq = ~uint64_t{0};
  profile::Meta meta;
  describe_recording(meta, described(sampling), RecordingStats{});
  CHECK(std::get<int64_t>(*extra(meta, "frequencyHz")) == 0);
}
