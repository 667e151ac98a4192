// Loads profiles written by sprof's Gecko writer with the Firefox Profiler's own code
// (profiler-cli) and checks that every process, thread, sample and marker arrives.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "profiler_cli.hpp"
#include "sprof/profile/gecko_writer.hpp"
#include "sprof_test/gecko_validator.hpp"
#include "sprof_test/json_query.hpp"
#include "sprof_test/sample_profile.hpp"

namespace fs = std::filesystem;
using sprof::test::JsonDoc;
using sprof::test::ProcessResult;
using sprof::test::ProfilerCli;
using F = sprof::test::SampleProfileFacts;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("sprof-conformance-" + std::to_string(getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

// Writes the sample profile to `name` in `dir` and checks it statically first, so a CLI failure
// is not a static-rule violation in disguise.
std::string write_sample(const TempDir& dir, const std::string& name) {
  const std::string path = (dir.path / name).string();
  REQUIRE(sprof::profile::write_gecko_file(sprof::test::make_sample_profile(), path).has_value());
  const auto problems = sprof::test::check_gecko_profile_file(path);
  INFO(sprof::test::join_problems(problems));
  REQUIRE(problems.empty());
  return path;
}

ProfilerCli locate_cli() {
  auto cli = ProfilerCli::locate();
  REQUIRE_MESSAGE(cli.has_value(), (cli ? "" : cli.error().message));
  return std::move(*cli);
}

void require_ok(const ProcessResult& r, const ProfilerCli& cli) {
  INFO("exit ", r.exit_code, "\nstdout:\n", r.out, "\nstderr:\n", r.err, "\nlog:\n",
       cli.session_log());
  REQUIRE(r.exit_code == 0);
}

struct ThreadSeen {
  std::string handle;
  std::string name;
  std::string pid;
};

// tid -> thread, from `profile info --json`.
std::map<int64_t, ThreadSeen> threads_by_tid(const JsonDoc& info) {
  std::map<int64_t, ThreadSeen> out;
  const size_t processes = info.size("/processes").value_or(0);
  for (size_t p = 0; p < processes; ++p) {
    const std::string proc = "/processes/" + std::to_string(p);
    const size_t threads = info.size(proc + "/threads").value_or(0);
    for (size_t t = 0; t < threads; ++t) {
      const std::string th = proc + "/threads/" + std::to_string(t);
      out[info.integer(th + "/tid").value_or(-1)] =
          ThreadSeen{std::string(info.string(th + "/threadHandle").value_or("")),
                     std::string(info.string(th + "/name").value_or("")),
                     std::string(info.string(proc + "/pid").value_or(""))};
    }
  }
  return out;
}

}  // namespace

TEST_CASE("profiler-cli loads every process and thread of a gzipped multi-process profile") {
  TempDir dir;
  const std::string path = write_sample(dir, "sample.json.gz");
  ProfilerCli cli = locate_cli();
  require_ok(cli.load(path), cli);

  const ProcessResult info_run = cli.profile_info();
  require_ok(info_run, cli);
  JsonDoc info(info_run.out);
  REQUIRE(info.ok());
  CHECK(info.integer("/processCount") == static_cast<int64_t>(F::kProcessCount));
  CHECK(info.integer("/threadCount") == 4);
  CHECK(info.string("/platform") == "Linux x86_64");
  CHECK(info.string("/name") == "sprof: sample \xE2\x80\x93 Linux x86_64");

  std::map<std::string, std::string> process_names;  // pid -> name
  for (size_t p = 0; p < info.size("/processes").value_or(0); ++p) {
    const std::string proc = "/processes/" + std::to_string(p);
    process_names[std::string(info.string(proc + "/pid").value_or(""))] =
        std::string(info.string(proc + "/name").value_or(""));
  }
  CHECK(process_names == std::map<std::string, std::string>{
                             {"4242", "demo"}, {"4300", "child-cmd"}, {"4301", "grandchild"}});

  const auto threads = threads_by_tid(info);
  REQUIRE(threads.size() == 4);
  CHECK(threads.at(F::kRootPid).name == "GeckoMain");
  CHECK(threads.at(F::kRootPid).pid == "4242");
  CHECK(threads.at(F::kWorkerTid).name == F::kWorkerWrittenName);
  CHECK(threads.at(F::kWorkerTid).pid == "4242");
  CHECK(threads.at(F::kChildPid).pid == "4300");
  CHECK(threads.at(F::kGrandchildPid).pid == "4301");
}

TEST_CASE("profiler-cli counts each thread's samples and markers as written") {
  TempDir dir;
  const std::string path = write_sample(dir, "sample.json");
  ProfilerCli cli = locate_cli();
  require_ok(cli.load(path), cli);
  const ProcessResult info_run = cli.profile_info();
  require_ok(info_run, cli);
  JsonDoc info(info_run.out);
  const auto threads = threads_by_tid(info);
  REQUIRE(threads.size() == 4);

  struct Expected {
    int64_t tid;
    size_t samples;
    size_t markers;
  };
  // `thread info`'s markerCount counts raw marker rows: an IntervalStart/IntervalEnd pair is 2.
  for (const Expected& e : {Expected{F::kRootPid, F::kRootMainSamples, F::kRootMainMarkerRows},
                            Expected{F::kWorkerTid, F::kWorkerSamples, F::kWorkerMarkerRows},
                            Expected{F::kChildPid, F::kChildSamples, F::kChildMarkers},
                            Expected{F::kGrandchildPid, F::kGrandchildSamples, 0}}) {
    CAPTURE(e.tid);
    const std::string& handle = threads.at(e.tid).handle;
    const int index = std::stoi(handle.substr(2));  // "t-N"
    const ProcessResult run = cli.thread_info(index);
    require_ok(run, cli);
    JsonDoc thread(run.out);
    REQUIRE(thread.ok());
    CHECK(thread.integer("/tid") == e.tid);
    CHECK(thread.integer("/sampleCount") == static_cast<int64_t>(e.samples));
    CHECK(thread.integer("/markerCount") == static_cast<int64_t>(e.markers));
  }

  // Idle samples (leaf frame in the "Idle" category) are excluded unless asked for.
  const int main_index = std::stoi(threads.at(F::kRootPid).handle.substr(2));
  const ProcessResult active = cli.thread_samples(main_index);
  require_ok(active, cli);
  JsonDoc active_doc(active.out);
  CHECK(active_doc.integer("/categoryBreakdown/totalSamples") ==
        static_cast<int64_t>(F::kRootMainSamples - F::kRootMainIdleSamples));
  const ProcessResult all = cli.thread_samples(main_index, /*include_idle=*/true);
  require_ok(all, cli);
  JsonDoc all_doc(all.out);
  CHECK(all_doc.integer("/categoryBreakdown/totalSamples") ==
        static_cast<int64_t>(F::kRootMainSamples));
}

TEST_CASE("profiler-cli resolves marker payloads, schemas and unique-string fields") {
  TempDir dir;
  const std::string path = write_sample(dir, "sample.json.gz");
  ProfilerCli cli = locate_cli();
  require_ok(cli.load(path), cli);
  JsonDoc info(cli.profile_info().out);
  const auto threads = threads_by_tid(info);
  REQUIRE(threads.contains(F::kRootPid));
  const ProcessResult run = cli.thread_markers(std::stoi(threads.at(F::kRootPid).handle.substr(2)));
  require_ok(run, cli);
  JsonDoc markers(run.out);
  REQUIRE(markers.ok());
  // `thread markers` pairs IntervalStart/IntervalEnd by name into one marker.
  CHECK(markers.integer("/totalMarkerCount") == static_cast<int64_t>(F::kRootMainMarkers));
  const size_t count = markers.size("/flatMarkers").value_or(0);
  REQUIRE(count == F::kRootMainMarkers);
  bool saw_syscall = false;
  for (size_t i = 0; i < count; ++i) {
    const std::string m = "/flatMarkers/" + std::to_string(i);
    if (markers.string(m + "/name") != "read") continue;
    saw_syscall = true;
    CHECK(markers.string(m + "/markerType") == "Syscall");
    CHECK(markers.string(m + "/category") == "Kernel");
    CHECK(markers.string(m + "/label") == "read(3) = 4,096");
    CHECK(markers.number(m + "/duration").value_or(0) == doctest::Approx(1.8));
    // The unique-string field arrives as its text, not as the string index written.
    CHECK(markers.string(m + "/data/path") == "/etc/hosts");
  }
  CHECK(saw_syscall);
}

TEST_CASE("profiler-cli rejects a profile of a newer Gecko version") {
  TempDir dir;
  const std::string path = (dir.path / "v37.json").string();
  std::string json = sprof::profile::gecko_json_string(sprof::test::make_sample_profile());
  json.replace(json.find("\"version\":36"), 12, "\"version\":37");
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    std::fwrite(json.data(), 1, json.size(), f);
    std::fclose(f);
  }
  ProfilerCli cli = locate_cli();
  const ProcessResult run = cli.load(path);
  CHECK(run.exit_code != 0);
  CHECK(run.err.find("version 37") != std::string::npos);
}
