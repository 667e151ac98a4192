// Importing perf.data files built in memory: the profile a live recording of the same run gives
// (processes, threads, names, libs named by the file's build-ids, the kernel lib, the root
// process), the build-id check of local binaries, --pid/--name, the start time, and the meta.
#include "sprof/perfdata/perf_data_import.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>

#include "fake_host_files.hpp"
#include "perf_data_fixture.hpp"

using namespace sprof;
using namespace sprof::perfdata;
using test::PerfDataWriter;

namespace {

constexpr uint32_t kPid = 100;
constexpr uint32_t kWorker = 101;
constexpr uint64_t kBase = 0x555500000000;
constexpr uint64_t kKernelText = 0xffffffff81000000;
const char* const kAppPath = "/opt/app/bin/app";

std::vector<uint8_t> own_executable() {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

BuildId own_build_id() {
  static const BuildId id =
      elf::read_module_identity(std::span<const uint8_t>(own_executable()))->build_id;
  return id;
}

const test::RecordBuilder& builder() {
  static const test::RecordBuilder b(test::default_layout());
  return b;
}

std::vector<uint8_t> kernel_text_mmap() {
  auto m =
      test::mmap2(0xFFFFFFFFu, kKernelText, 0x1200000, kKernelText, "[kernel.kallsyms]_text", 0);
  m.tid = 0;
  m.id = test::sample_id(0xFFFFFFFFu, 0, 0);
  return builder().mmap(m);
}

// `perf record -g -- app` as perf 6.1 writes it: the launched command (pid 100) execs, starts a
// worker thread named "worker", both are sampled in the app and in the kernel, both exit.
PerfDataWriter launched_app_file() {
  PerfDataWriter w;
  w.add_event(test::cpu_clock_attr(), {1, 2});
  w.feature_string(PerfDataWriter::kVersion, "6.1.187");
  w.feature_string(PerfDataWriter::kHostname, "buildhost");
  w.feature_string(PerfDataWriter::kOsRelease, "6.1.0-test");
  w.feature_string(PerfDataWriter::kArch, "x86_64");
  w.feature_strings(PerfDataWriter::kCmdline, {"perf", "record", "-g", "--", "app"});
  w.build_id("[kernel.kallsyms]", *BuildId::from_hex("e4f18d9dc1d0e6fc2b17e93e885a647b3c0a6fc1"),
             true);
  w.build_id(kAppPath, own_build_id());
  w.add_record(kernel_text_mmap());
  w.thread_map({kPid});
  w.add_record(builder().comm(test::comm_record(kPid, kPid, "perf-exec", false, 0)));
  w.add_record(PerfDataWriter::user_record(PerfDataWriter::kFinishedInit, {}));
  w.add_record(builder().comm(test::comm_record(kPid, kPid, "app", true, 1000)));
  w.add_record(builder().mmap2(test::mmap2(kPid, kBase, 0x100000, 0, kAppPath, 1100)));
  w.add_record(builder().fork(test::fork_record(kPid, kPid, kWorker, kPid, 1200)));
  w.add_record(builder().comm(test::comm_record(kPid, kWorker, "worker", false, 1300)));
  const std::vector<uint64_t> chain{test::kContextKernel, kKernelText + 0x1234, test::kContextUser,
                                    kBase + 0x2000, kBase + 0x3000};
  for (uint64_t t = 2000; t < 5000; t += 250) {
    w.add_record(test::sample_bytes(kPid, kPid, t, chain));
    w.add_record(test::sample_bytes(kPid, kWorker, t + 100, chain));
  }
  w.finished_round();
  w.add_record(builder().exit(test::exit_record(kPid, kWorker, 5000)));
  w.add_record(builder().exit(test::exit_record(kPid, kPid, 6000)));
  w.finished_round();
  return w;
}

struct Imported {
  Result<ImportedProfile> result;
  test::FakeHostFiles files;
};

Result<ImportedProfile> import(const std::vector<uint8_t>& bytes, test::FakeHostFiles& files,
                               ImportOptions options = {},
                               std::optional<double> mtime_ms = std::nullopt) {
  MemoryBytes source(bytes, "test.data", mtime_ms);
  return import_perf_data(source, files, options);
}

test::FakeHostFiles files_with_app() {
  test::FakeHostFiles files;
  files.add_binary(kAppPath, own_executable());
  return files;
}

std::string extra_string(const profile::Meta& meta, const std::string& key) {
  for (const auto& [k, v] : meta.extra) {
    if (k == key) {
      if (const auto* s = std::get_if<std::string>(&v)) return *s;
      if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
    }
  }
  return "<absent>";
}

const profile::Library* lib_named(const profile::Process& p, const std::string& name) {
  const auto it = std::find_if(p.libs.begin(), p.libs.end(),
                               [&](const profile::Library& l) { return l.name == name; });
  return it == p.libs.end() ? nullptr : &*it;
}

std::vector<int64_t> pids_of(const profile::Profile& p) {
  std::vector<int64_t> pids;
  for (const auto& proc : p.processes) pids.push_back(proc.pid);
  return pids;
}

}  // namespace

TEST_CASE("a launched command's file gives its process, threads, names, libs and meta") {
  auto files = files_with_app();
  auto imported = import(launched_app_file().file_bytes(), files);
  REQUIRE_MESSAGE(imported.has_value(), (imported ? "" : imported.error().message));
  const auto& profile = imported->profile;
  // The kernel's own mmap (pid -1) names no process.
  REQUIRE(pids_of(profile) == std::vector<int64_t>{kPid});
  const auto& app = profile.processes[0];
  CHECK(app.name == "app");
  REQUIRE(app.threads.size() == 2);
  CHECK(app.threads[0].name == "GeckoMain");
  CHECK(app.threads[1].name == "worker");
  CHECK(app.threads[0].samples().size() == 12);
  CHECK(app.threads[1].samples().size() == 12);
  CHECK(app.threads[1].unregister_time_ms.has_value());
  CHECK(profile.meta.product == "sprof: app");

  const auto* lib = lib_named(app, "app");
  REQUIRE(lib != nullptr);
  CHECK(lib->breakpad_id == own_build_id().breakpad_id());
  CHECK(lib->code_id == own_build_id().code_id());
  CHECK(lib->start == kBase);
  const auto* kernel = lib_named(app, "[kernel.kallsyms]");
  REQUIRE(kernel != nullptr);
  CHECK(kernel->start == kKernelText);
  CHECK(kernel->code_id == "e4f18d9dc1d0e6fc2b17e93e885a647b3c0a6fc1");

  // Time zero is the first timestamped record (the exec at 1000 ns).
  CHECK(profile.meta.start_time_monotonic_ns == 1000);
  CHECK(app.threads[0].samples().front().time_ms == doctest::Approx(0.001));

  CHECK(extra_string(profile.meta, "source") == "perf.data");
  CHECK(extra_string(profile.meta, "perfVersion") == "6.1.187");
  CHECK(extra_string(profile.meta, "hostname") == "buildhost");
  CHECK(extra_string(profile.meta, "osRelease") == "6.1.0-test");
  CHECK(extra_string(profile.meta, "perfCommandLine") == "perf record -g -- app");
  CHECK(extra_string(profile.meta, "binariesMatched") == "1");
  CHECK(extra_string(profile.meta, "event") == "cpu-clock");
  CHECK(profile.meta.oscpu == "Linux x86_64");

  const auto& report = imported->report;
  REQUIRE(report.binaries.size() == 1);
  CHECK(report.binaries[0].outcome == BinaryCheck::Outcome::kMatched);
  CHECK(report.data.unused_by_type.at(PerfDataWriter::kFinishedInit) == 1);
  CHECK(imported->stats.samples == 24);
  CHECK(imported->stats.threads == 2);
}

TEST_CASE("a local binary with another build-id than the recorded one is refused, not used") {
  PerfDataWriter w = launched_app_file();
  w.build_id(kAppPath, *BuildId::from_hex("00000000000000000000000000000000deadbeef"));
  auto files = files_with_app();
  SUBCASE("recorded build-id differs") {
    // launched_app_file() recorded the right one; a file recording only a wrong one:
    PerfDataWriter wrong;
    wrong.add_event(test::cpu_clock_attr(), {});
    wrong.build_id(kAppPath, *BuildId::from_hex("00000000000000000000000000000000deadbeef"));
    wrong.add_record(builder().comm(test::comm_record(kPid, kPid, "app", true, 1000)));
    wrong.add_record(builder().mmap2(test::mmap2(kPid, kBase, 0x100000, 0, kAppPath, 1100)));
    wrong.add_record(test::sample_bytes(kPid, kPid, 2000, {test::kContextUser, kBase + 0x2000}));
    auto imported = import(wrong.file_bytes(), files);
    REQUIRE(imported.has_value());
    CHECK(lib_named(imported->profile.processes[0], "app") == nullptr);
    REQUIRE(imported->report.binaries.size() == 1);
    const auto& check = imported->report.binaries[0];
    CHECK(check.outcome == BinaryCheck::Outcome::kRefused);
    CHECK(check.detail.find("deadbeef") != std::string::npos);
    CHECK(check.detail.find(own_build_id().code_id()) != std::string::npos);
    CHECK(extra_string(imported->profile.meta, "binariesRefused") == "1");
  }
  SUBCASE("no build-id recorded: used, unverified") {
    PerfDataWriter none;
    none.add_event(test::cpu_clock_attr(), {});
    none.add_record(builder().comm(test::comm_record(kPid, kPid, "app", true, 1000)));
    none.add_record(builder().mmap2(test::mmap2(kPid, kBase, 0x100000, 0, kAppPath, 1100)));
    none.add_record(test::sample_bytes(kPid, kPid, 2000, {test::kContextUser, kBase + 0x2000}));
    auto imported = import(none.file_bytes(), files);
    REQUIRE(imported.has_value());
    CHECK(lib_named(imported->profile.processes[0], "app") != nullptr);
    REQUIRE(imported->report.binaries.size() == 1);
    CHECK(imported->report.binaries[0].outcome == BinaryCheck::Outcome::kUnverified);
  }
  SUBCASE("missing here") {
    test::FakeHostFiles empty;
    auto imported = import(launched_app_file().file_bytes(), empty);
    REQUIRE(imported.has_value());
    REQUIRE(imported->report.binaries.size() == 1);
    CHECK(imported->report.binaries[0].outcome == BinaryCheck::Outcome::kMissing);
  }
}

TEST_CASE("the same file in pipe mode gives the same processes and samples") {
  auto files = files_with_app();
  auto from_pipe = import(launched_app_file().pipe_bytes(), files);
  REQUIRE_MESSAGE(from_pipe.has_value(), (from_pipe ? "" : from_pipe.error().message));
  CHECK(from_pipe->report.pipe_mode);
  CHECK(pids_of(from_pipe->profile) == std::vector<int64_t>{kPid});
  CHECK(from_pipe->stats.samples == 24);
  CHECK(from_pipe->profile.processes[0].threads[1].name == "worker");
}

namespace {

// Two processes sampled: 100 "app" (the launched one) and 200 "other".
PerfDataWriter two_process_file(const std::vector<int64_t>& thread_map) {
  PerfDataWriter w;
  w.add_event(test::cpu_clock_attr(), {});
  w.thread_map(thread_map);
  w.add_record(builder().comm(test::comm_record(200, 200, "other", false, 0)));
  w.add_record(builder().comm(test::comm_record(300, 300, "idle-daemon", false, 0)));
  w.add_record(builder().comm(test::comm_record(kPid, kPid, "app", true, 1000)));
  for (uint64_t t = 2000; t < 3000; t += 250) {
    w.add_record(test::sample_bytes(kPid, kPid, t, {test::kContextUser, 0x1000}));
    w.add_record(test::sample_bytes(200, 200, t + 10, {test::kContextUser, 0x2000}));
    w.add_record(test::sample_bytes(0, 0, t + 20, {test::kContextKernel, kKernelText + 1}));
  }
  return w;
}

}  // namespace

TEST_CASE("--pid and --name keep only the processes asked for") {
  test::FakeHostFiles files;
  const auto bytes = two_process_file({kPid}).file_bytes();
  SUBCASE("by pid") {
    ImportOptions o;
    o.pids = {200};
    auto imported = import(bytes, files, o);
    REQUIRE(imported.has_value());
    CHECK(pids_of(imported->profile) == std::vector<int64_t>{200});
    CHECK(imported->profile.processes[0].name == "other");
    CHECK(imported->report.filtered_out_records > 0);
  }
  SUBCASE("by name") {
    ImportOptions o;
    o.names = {"app"};
    auto imported = import(bytes, files, o);
    REQUIRE(imported.has_value());
    CHECK(pids_of(imported->profile) == std::vector<int64_t>{kPid});
    CHECK(imported->stats.samples == 4);
  }
  SUBCASE("both, and nothing selected") {
    ImportOptions o;
    o.pids = {kPid};
    o.names = {"other"};
    auto both = import(bytes, files, o);
    REQUIRE(both.has_value());
    auto pids = pids_of(both->profile);
    std::sort(pids.begin(), pids.end());
    CHECK(pids == std::vector<int64_t>{kPid, 200});
    ImportOptions none;
    none.pids = {999};
    auto nothing = import(bytes, files, none);
    REQUIRE_FALSE(nothing.has_value());
    CHECK(nothing.error().code == Errc::kNotFound);
  }
}

TEST_CASE("a system-wide file's top level is the idle process; idle processes stay out") {
  test::FakeHostFiles files;
  auto imported = import(two_process_file({-1}).file_bytes(), files);
  REQUIRE(imported.has_value());
  const auto& p = imported->profile;
  REQUIRE(p.processes.size() == 3);
  CHECK(p.processes[0].pid == 0);
  CHECK(p.processes[0].name == "System");
  CHECK(p.processes[0].threads.at(0).samples().size() == 4);
  // Named from perf's start-of-recording snapshot, as live -a names from /proc.
  const auto other = std::find_if(p.processes.begin(), p.processes.end(),
                                  [](const profile::Process& pr) { return pr.pid == 200; });
  REQUIRE(other != p.processes.end());
  CHECK(other->name == "other");
  // "idle-daemon" did nothing while recording.
  CHECK(std::none_of(p.processes.begin(), p.processes.end(),
                     [](const profile::Process& pr) { return pr.pid == 300; }));
  CHECK(p.meta.product == "sprof: system");
}

TEST_CASE(
    "the start time is exact with HEADER_CLOCK_DATA, estimated from the file time otherwise") {
  test::FakeHostFiles files;
  SUBCASE("clock data") {
    PerfDataWriter w;
    perf_event_attr a = test::cpu_clock_attr();
    a.use_clockid = 1;
    a.clockid = 1;  // CLOCK_MONOTONIC
    w.add_event(a, {});
    test::ByteWriter clock;
    clock.put(uint32_t{1})
        .put(uint32_t{1})
        .put(uint64_t{1'700'000'000'000'000'000})
        .put(uint64_t{500});
    w.feature_bytes(PerfDataWriter::kClockData, clock.bytes());
    w.add_record(builder().comm(test::comm_record(kPid, kPid, "app", true, 1'000'500)));
    w.add_record(test::sample_bytes(kPid, kPid, 2'000'000, {test::kContextUser, 0x1000}));
    auto imported = import(w.file_bytes(), files, {}, 5e12);
    REQUIRE(imported.has_value());
    // 1'000'000 ns after the reference: 1 ms after 1.7e12 ms.
    CHECK(imported->profile.meta.start_time_ms == doctest::Approx(1.7e12 + 1.0));
    CHECK(imported->report.start_time == StartTimeSource::kClockData);
  }
  SUBCASE("file time") {
    PerfDataWriter w;
    w.add_event(test::cpu_clock_attr(), {});
    test::ByteWriter times;
    times.put(uint64_t{2'000'000}).put(uint64_t{501'000'000});
    w.feature_bytes(PerfDataWriter::kSampleTime, times.bytes());
    w.add_record(builder().comm(test::comm_record(kPid, kPid, "app", true, 1'000'000)));
    w.add_record(test::sample_bytes(kPid, kPid, 501'000'000, {test::kContextUser, 0x1000}));
    auto imported = import(w.file_bytes(), files, {}, 5e12);
    REQUIRE(imported.has_value());
    // The file was written at the last sample, 500 ms after the start.
    CHECK(imported->profile.meta.start_time_ms == doctest::Approx(5e12 - 500.0));
    CHECK(imported->report.start_time == StartTimeSource::kFileTime);
    CHECK(extra_string(imported->profile.meta, "startTimeSource") == "file time");
  }
}

TEST_CASE("switch records give CPU deltas: the on-CPU time between switch-in and switch-out") {
  PerfDataWriter w;
  perf_event_attr a = test::cpu_clock_attr();
  a.context_switch = 1;
  w.add_event(a, {});
  perf::SwitchRecord in, out;
  in.id = test::sample_id(kPid, kPid, 2'000'000);
  out.id = test::sample_id(kPid, kPid, 5'000'000);
  out.out = true;
  w.add_record(builder().comm(test::comm_record(kPid, kPid, "app", true, 1'000'000)));
  w.add_record(builder().context_switch(in, false));
  // Ticks within a period of the switch-in, of each other and of the switch-out, as the clock's
  // timer fires (a longer stretch without one would mean a stalled CPU; cpu_accounting.hpp).
  for (uint64_t t = 2'200'000; t < 5'000'000; t += a.sample_period) {
    w.add_record(test::sample_bytes(kPid, kPid, t, {test::kContextUser, 0x1000}));
  }
  w.add_record(builder().context_switch(out, false));
  w.add_record(builder().exit(test::exit_record(kPid, kPid, 9'000'000)));
  test::FakeHostFiles files;
  auto imported = import(w.file_bytes(), files);
  REQUIRE(imported.has_value());
  uint64_t cpu_ns = 0;
  for (const auto& s : imported->profile.processes[0].threads[0].samples()) {
    cpu_ns += s.cpu_delta_ns.value_or(0);
  }
  CHECK(cpu_ns == 3'000'000);
  CHECK(imported->profile.meta.has_cpu_deltas);
}

TEST_CASE("samples of other events are skipped and said; compressed files are refused") {
  test::FakeHostFiles files;
  SUBCASE("page faults beside the clock") {
    perf_event_attr clock = test::cpu_clock_attr(test::kPerfSampleType | PERF_SAMPLE_IDENTIFIER);
    perf_event_attr faults = clock;
    faults.config = PERF_COUNT_SW_PAGE_FAULTS;
    const auto layout = *perf::SampleLayout::from_attr(clock);
    PerfDataWriter w;
    w.add_event(faults, {21});  // first in the file; still not the sampling event
    w.add_event(clock, {11});
    w.add_record(test::sample_bytes(kPid, kPid, 100, {test::kContextUser, 0x1}, layout, 11));
    w.add_record(test::sample_bytes(kPid, kPid, 200, {test::kContextUser, 0x2}, layout, 21));
    auto imported = import(w.file_bytes(), files);
    REQUIRE(imported.has_value());
    CHECK(imported->stats.samples == 1);
    CHECK(imported->report.stream.other_event_samples == 1);
    CHECK(imported->report.event_names.front() == "cpu-clock");
  }
  SUBCASE("perf record -z") {
    PerfDataWriter w = launched_app_file();
    w.feature_bytes(PerfDataWriter::kCompressed, std::vector<uint8_t>(20, 0));
    auto imported = import(w.file_bytes(), files);
    REQUIRE_FALSE(imported.has_value());
    CHECK(imported.error().code == Errc::kUnsupported);
    CHECK(imported.error().message.find("-z") != std::string::npos);
  }
}
