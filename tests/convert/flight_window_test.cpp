// The flight recorder's converter side (flight_window.hpp): evicting what aged out of the window
// keeps the tables of stacks, and cutting a window leaves the converter recording as before.
#include "sprof/convert/flight_window.hpp"

#include <doctest/doctest.h>

#include <string>

#include "fake_host_files.hpp"
#include "sprof/convert/profile_converter.hpp"
#include "synthetic_records.hpp"

using namespace sprof;
using namespace sprof::convert;

namespace {

constexpr uint64_t kOrigin = 1'000'000'000;
constexpr uint32_t kPid = 100;

uint64_t at_ms(uint64_t ms) { return kOrigin + ms * 1'000'000; }

// A sample of the root process's main thread at `ms`, in one of two kernel stacks.
perf::SampleRecord sample_at(uint64_t ms) {
  const uint64_t leaf = ms % 2 == 0 ? 0xffffffff81000100 : 0xffffffff81000200;
  return test::sample_record(kPid, kPid, at_ms(ms),
                             {test::kContextKernel, leaf, 0xffffffff81000010}, 1'000'000);
}

ConverterOptions options() {
  ConverterOptions o;
  o.origin_monotonic_ns = kOrigin;
  o.origin_wall_ms = 1.7e12;
  o.root_pid = kPid;
  return o;
}

const profile::Thread& main_thread(const profile::Profile& p) {
  return p.processes.at(0).threads.at(0);
}

double earliest_sample_ms(const profile::Thread& t) {
  double earliest = 1e300;
  for (const profile::Sample s : t.samples()) earliest = std::min(earliest, s.time_ms);
  return earliest;
}

profile::Marker instant(const std::string& name, double ms) {
  profile::Marker m;
  m.name = name;
  m.start_ms = ms;
  return m;
}

}  // namespace

TEST_CASE("trim_before drops samples, markers, allocation rows and counter samples before it") {
  profile::Profile p;
  p.processes.emplace_back();
  profile::Thread& t = p.processes[0].threads.emplace_back();
  for (int ms = 0; ms < 10; ++ms) t.add_sample({std::nullopt, static_cast<double>(ms), 1000});
  t.add_marker(instant("early", 2));
  t.add_marker(instant("late", 7));
  profile::Marker spanning = instant("spanning", 1);
  spanning.end_ms = 6;  // reaches into the window: kept
  spanning.phase = profile::MarkerPhase::kInterval;
  t.add_marker(spanning);
  t.add_native_allocation({3, 64, std::nullopt, 0x1000, 1});
  t.add_native_allocation({8, -64, std::nullopt, 0x1000, 1});
  p.processes[0].counters.push_back({"malloc", "Memory", "", {{1, 64, 1}, {9, -64, 1}}});

  const WindowTrim dropped = trim_before(p, 5);
  CHECK(dropped.samples == 5);
  CHECK(dropped.markers == 1);
  CHECK(dropped.allocations == 1);
  CHECK(dropped.counter_samples == 1);
  CHECK(t.samples().size() == 5);
  CHECK(t.samples().front().time_ms == 5);
  REQUIRE(t.markers().size() == 2);
  CHECK(t.markers()[0].name == "late");
  CHECK(t.markers()[1].name == "spanning");
  CHECK(t.native_allocations().size() == 1);
  CHECK(p.processes[0].counters[0].samples.size() == 1);
  CHECK(trim_before(p, 5).samples == 0);  // nothing more to drop
}

TEST_CASE("drop_ended_before removes threads and child processes that ended empty before it") {
  profile::Profile p;
  profile::Process& root = p.processes.emplace_back();
  root.shutdown_time_ms = 1;  // the root stays, even ended and empty
  profile::Thread& gone = root.threads.emplace_back();
  gone.name = "gone";
  gone.unregister_time_ms = 2;
  profile::Thread& running = root.threads.emplace_back();
  running.name = "running";
  profile::Thread& ended_with_marker = root.threads.emplace_back();
  ended_with_marker.name = "ended-with-marker";
  ended_with_marker.unregister_time_ms = 2;
  ended_with_marker.add_marker(instant("reaches in", 6));
  profile::Process& old_child = p.processes.emplace_back();
  old_child.pid = 2;
  old_child.shutdown_time_ms = 3;
  old_child.threads.emplace_back().unregister_time_ms = 3;
  profile::Process& late_child = p.processes.emplace_back();
  late_child.pid = 3;
  late_child.shutdown_time_ms = 7;

  drop_ended_before(p, 5);
  REQUIRE(p.processes.size() == 2);
  CHECK(p.processes[1].pid == 3);
  REQUIRE(p.processes[0].threads.size() == 2);
  CHECK(p.processes[0].threads[0].name == "running");
  CHECK(p.processes[0].threads[1].name == "ended-with-marker");
}

TEST_CASE("describe_window states the range and what was dropped under meta.sprof") {
  profile::Meta meta;
  WindowTrim dropped;
  dropped.samples = 12;
  dropped.markers = 3;
  describe_window(meta, 30000, 1500, 31500, dropped);
  CHECK(meta.profiling_start_ms == 1500);
  CHECK(meta.profiling_end_ms == 31500);
  auto value = [&meta](const std::string& key) -> std::variant<int64_t, double, std::string> {
    for (const auto& [k, v] : meta.extra) {
      if (k == key) return v;
    }
    return std::string("missing");
  };
  CHECK(std::get<double>(value("flightWindowMs")) == 30000);
  CHECK(std::get<double>(value("flightStartMs")) == 1500);
  CHECK(std::get<double>(value("flightEndMs")) == 31500);
  CHECK(std::get<int64_t>(value("flightDroppedSamples")) == 12);
  CHECK(std::get<int64_t>(value("flightDroppedMarkers")) == 3);
  CHECK(std::get<int64_t>(value("flightDroppedAllocations")) == 0);
}

TEST_CASE("evicting keeps the stack table, and a window is cut without disturbing the recording") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(), cache);
  c.seed_process(kPid, {kPid});
  for (uint64_t ms = 1; ms <= 100; ++ms) c.consume(sample_at(ms));

  c.evict_before(at_ms(40));
  // Samples 1..39 went (and the stackless one the converter puts before a thread's first).
  CHECK(c.evicted().samples >= 39);
  CHECK(c.evicted().samples <= 40);

  const ProfileConverter::Window w = c.window(at_ms(60), at_ms(100));
  const profile::Thread& wt = main_thread(w.profile);
  CHECK(wt.samples().size() == 41);  // 60..100
  CHECK(earliest_sample_ms(wt) == doctest::Approx(60));
  CHECK(w.dropped.samples == c.evicted().samples + 20);  // and 40..59 from the copy
  CHECK(w.profile.meta.profiling_start_ms == doctest::Approx(60));
  CHECK(w.profile.meta.profiling_end_ms == doctest::Approx(100));
  const size_t stacks_at_cut = wt.stacks().size();

  // The converter goes on: its own profile still holds 40..100, and new samples join it.
  for (uint64_t ms = 101; ms <= 120; ++ms) c.consume(sample_at(ms));
  profile::Profile rest = c.finish(at_ms(121));
  const profile::Thread& t = main_thread(rest);
  CHECK(earliest_sample_ms(t) == doctest::Approx(40));
  CHECK(t.samples().size() >= 81);  // 40..120, and the thread's last CPU at the end
  // The same two stacks as before the eviction: nothing was interned again.
  CHECK(t.stacks().size() == stacks_at_cut);
}
