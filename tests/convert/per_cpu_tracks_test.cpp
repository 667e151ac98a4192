// --per-cpu-threads from synthetic records: a "CPUs" process with one track per CPU holding the
// samples taken there under labels naming their thread, CPU deltas from the switch records, and
// a marker per stretch a thread ran when asked.
#include "sprof/convert/per_cpu_tracks.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "fake_host_files.hpp"
#include "sprof/convert/marker_schemas.hpp"
#include "sprof/convert/profile_converter.hpp"
#include "synthetic_records.hpp"

using namespace sprof;
using namespace sprof::convert;

namespace {

constexpr uint64_t kOrigin = 1'000'000'000;
uint64_t at_ms(uint64_t ms) { return kOrigin + ms * 1'000'000; }

perf::SwitchRecord switch_record(uint32_t pid, uint32_t tid, uint32_t cpu, bool out, uint64_t ms) {
  perf::SwitchRecord r;
  r.id = perf::SampleId{pid, tid, at_ms(ms), cpu};
  r.out = out;
  return r;
}

perf::SampleRecord sample_on(uint32_t pid, uint32_t tid, uint32_t cpu, uint64_t ms, uint64_t leaf) {
  auto s = test::sample_record(pid, tid, at_ms(ms), {test::kContextUser, leaf, 0x1000}, 1'000'000);
  s.id.cpu = cpu;
  return s;
}

const profile::Process* find_process(const profile::Profile& p, const std::string& name) {
  for (const auto& proc : p.processes) {
    if (proc.name == name) return &proc;
  }
  return nullptr;
}

// The samples that have a stack: a track's first sample may be a stackless one that only marks
// when its CPU time began (docs/firefox-profiler-format.md, "CPU deltas").
std::vector<profile::Sample> with_stacks(const profile::Thread& t) {
  std::vector<profile::Sample> out;
  for (const auto& s : t.samples()) {
    if (s.stack) out.push_back(s);
  }
  return out;
}

// Root first: the location strings of a sample's stack.
std::vector<std::string> stack_of(const profile::Thread& t, const profile::Sample& s) {
  std::vector<std::string> out;
  for (std::optional<uint32_t> i = s.stack; i; i = t.stacks()[*i].prefix) {
    out.insert(out.begin(), t.strings()[t.frames()[t.stacks()[*i].frame].location]);
  }
  return out;
}

// Process 10 ("app") with its main thread on CPU 0 and "worker" (tid 11) on CPU 1 for 10 ms,
// then the worker moves to CPU 0 after the main thread blocked.
profile::Profile record_two_cpus(bool markers) {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ConverterOptions o;
  o.origin_monotonic_ns = kOrigin;
  o.root_pid = 10;
  o.switch_records = true;
  o.per_cpu_threads = true;
  o.cswitch_markers = markers;
  ProfileConverter c(o, cache);
  c.consume(test::comm_record(10, 10, "app", true, at_ms(0)));
  c.consume(switch_record(10, 10, 0, false, 0));
  c.consume(test::fork_record(10, 10, 11, 10, at_ms(0)));
  c.consume(switch_record(10, 11, 1, false, 0));
  auto named = test::comm_record(10, 11, "worker", false, at_ms(0));
  named.id.cpu = 1;  // the thread names itself, where it runs
  c.consume(named);
  for (uint64_t ms = 1; ms <= 10; ++ms) {
    c.consume(sample_on(10, 10, 0, ms, 0x2000));
    c.consume(sample_on(10, 11, 1, ms, 0x3000));
  }
  c.consume(switch_record(10, 10, 0, true, 10));
  c.consume(switch_record(10, 11, 1, true, 10));
  c.consume(switch_record(10, 11, 0, false, 11));
  c.consume(sample_on(10, 11, 0, 12, 0x3000));
  c.consume(switch_record(10, 11, 0, true, 13));
  return c.finish(at_ms(20));
}

}  // namespace

TEST_CASE("each CPU's track holds the samples taken there, under the thread that ran") {
  const profile::Profile p = record_two_cpus(false);
  const profile::Process* cpus = find_process(p, "CPUs");
  REQUIRE(cpus != nullptr);
  CHECK(cpus->pid == kCpusProcessPid);
  REQUIRE(cpus->threads.size() == 2);
  const profile::Thread& cpu0 = cpus->threads[0];
  const profile::Thread& cpu1 = cpus->threads[1];
  CHECK(cpu0.name == "CPU 0");
  CHECK(cpu1.name == "CPU 1");
  const auto on_cpu0 = with_stacks(cpu0);
  const auto on_cpu1 = with_stacks(cpu1);
  CHECK(on_cpu0.size() == 11);  // 10 of the main thread, 1 of the worker
  CHECK(on_cpu1.size() == 10);
  CHECK(stack_of(cpu0, on_cpu0.front()) ==
        std::vector<std::string>{"app (pid 10)", "app (tid 10)", "0x1000", "0x2000"});
  CHECK(stack_of(cpu0, on_cpu0.back()) ==
        std::vector<std::string>{"app (pid 10)", "worker (tid 11)", "0x1000", "0x3000"});
  CHECK(stack_of(cpu1, on_cpu1.back()) ==
        std::vector<std::string>{"app (pid 10)", "worker (tid 11)", "0x1000", "0x3000"});
  // Busy time from the switch records: 1 ms before each sample; the worker's sample on CPU 0
  // at 12 ms counts the 1 ms it ran there, not the 1 ms (10..11) the CPU ran nothing recorded.
  CHECK(on_cpu1[1].cpu_delta_ns == 1'000'000);
  CHECK(on_cpu0.back().cpu_delta_ns == 1'000'000);
  // The first sample's CPU time is kept by a stackless sample where the CPU began running.
  REQUIRE_FALSE(cpu0.samples().front().stack.has_value());
  CHECK(cpu0.samples().front().time_ms == doctest::Approx(0.0));
  CHECK(on_cpu0.front().cpu_delta_ns == 1'000'000);
  // The thread tracks keep their own samples: the worker's 11, and the one that closes its CPU
  // time when the recording ends (12..13 ms).
  const profile::Process* app = find_process(p, "app");
  REQUIRE(app != nullptr);
  CHECK(app->threads.size() == 2);
  CHECK(with_stacks(app->threads[1]).size() == 12);
  CHECK(cpu0.markers().empty());
}

TEST_CASE("with switch markers each stretch a thread ran on a CPU is an interval marker") {
  const profile::Profile p = record_two_cpus(true);
  const profile::Process* cpus = find_process(p, "CPUs");
  REQUIRE(cpus != nullptr);
  const profile::Thread& cpu0 = cpus->threads.at(0);
  REQUIRE(cpu0.markers().size() == 2);
  CHECK(cpu0.markers()[0].name == "app (tid 10)");
  CHECK(cpu0.markers()[0].start_ms == doctest::Approx(0.0));
  CHECK(cpu0.markers()[0].end_ms == doctest::Approx(10.0));
  CHECK(cpu0.markers()[1].name == "worker (tid 11)");
  CHECK(cpu0.markers()[1].start_ms == doctest::Approx(11.0));
  CHECK(cpu0.markers()[1].end_ms == doctest::Approx(13.0));
  CHECK(cpu0.markers()[1].type == kOnCpuMarkerType);
}

TEST_CASE("without --per-cpu-threads there is no CPUs process") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ConverterOptions o;
  o.origin_monotonic_ns = kOrigin;
  o.root_pid = 10;
  ProfileConverter c(o, cache);
  c.consume(test::comm_record(10, 10, "app", true, at_ms(0)));
  c.consume(sample_on(10, 10, 0, 1, 0x2000));
  const profile::Profile p = c.finish(at_ms(2));
  CHECK(find_process(p, "CPUs") == nullptr);
}
