// Markers the converter adds: process and thread lifecycle, user marker files, and the schemas
// they are written with (checked with the Gecko validator).
#include "sprof/convert/lifecycle_markers.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>

#include "fake_host_files.hpp"
#include "sprof/convert/marker_schemas.hpp"
#include "sprof/convert/profile_converter.hpp"
#include "sprof/profile/gecko_writer.hpp"
#include "sprof_test/gecko_validator.hpp"
#include "synthetic_records.hpp"

using namespace sprof;
using namespace sprof::convert;

namespace {

constexpr uint64_t kOrigin = 1'000'000'000;

uint64_t at_ms(uint64_t ms) { return kOrigin + ms * 1'000'000; }

perf::SampleId id(uint32_t pid, uint32_t tid, uint64_t ms) {
  return test::sample_id(pid, tid, at_ms(ms));
}

ConverterOptions options(uint32_t root) {
  ConverterOptions o;
  o.origin_monotonic_ns = kOrigin;
  o.origin_wall_ms = 1.7e12;
  o.root_pid = root;
  o.proc.read_argv = [](uint32_t pid) -> std::optional<std::vector<std::string>> {
    if (pid == 100) return std::vector<std::string>{"/bin/app", "--flag", "value"};
    return std::nullopt;  // gone: the exec marker falls back to the comm
  };
  return o;
}

perf::CommRecord exec(uint32_t pid, std::string comm, uint64_t ms) {
  return test::comm_record(pid, pid, std::move(comm), true, at_ms(ms));
}

perf::ForkRecord fork_record(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
                             uint64_t ms) {
  return test::fork_record(pid, ppid, tid, ptid, at_ms(ms));
}

perf::ExitRecord exit_record(uint32_t pid, uint32_t tid, uint64_t ms) {
  return test::exit_record(pid, tid, at_ms(ms));
}

const profile::Marker* find_marker(const profile::Thread& t, const std::string& name) {
  const auto& ms = t.markers();
  auto it = std::find_if(ms.begin(), ms.end(), [&](const auto& m) { return m.name == name; });
  return it == ms.end() ? nullptr : &*it;
}

std::map<std::string, profile::FieldValue> fields(const profile::Marker& m) {
  std::map<std::string, profile::FieldValue> out;
  for (const auto& f : m.fields) out.emplace(f.key, f.value);
  return out;
}

const profile::Thread& thread_with_tid(const profile::Profile& p, int64_t tid) {
  for (const auto& proc : p.processes) {
    for (const auto& t : proc.threads) {
      if (t.tid == tid) return t;
    }
  }
  FAIL("no thread " << tid);
  return p.processes.at(0).threads.at(0);
}

// Records a small process tree: root 100 execs, creates thread 101 (exits), forks 200 (exits).
profile::Profile record_lifecycle(std::optional<ExitStatus> root_status) {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(100), cache);
  c.consume(exec(100, "app", 1));
  c.consume(fork_record(100, 100, 101, 100, 2));
  c.consume(fork_record(200, 100, 200, 100, 3));
  c.consume(exec(200, "child", 4));
  c.consume(exit_record(100, 101, 5));
  c.consume(exit_record(200, 200, 6));
  c.consume(exit_record(100, 100, 7));
  if (root_status) c.set_root_exit_status(*root_status);
  return c.finish(kOrigin + 10'000'000);
}

}  // namespace

TEST_CASE("process and thread lifecycle records become instant markers with their facts") {
  const auto p = record_lifecycle(ExitStatus{false, 3, 0});
  const auto& root = thread_with_tid(p, 100);
  const auto* exec_marker = find_marker(root, "exec");
  REQUIRE(exec_marker != nullptr);
  CHECK(exec_marker->type == "Exec");
  CHECK(exec_marker->start_ms == doctest::Approx(1.0));
  CHECK(exec_marker->phase == profile::MarkerPhase::kInstant);
  CHECK(std::get<std::string>(fields(*exec_marker).at("command")) == "/bin/app --flag value");

  const auto& worker = thread_with_tid(p, 101);
  const auto* start = find_marker(worker, "Thread start");
  REQUIRE(start != nullptr);
  CHECK(std::get<int64_t>(fields(*start).at("creator")) == 100);
  const auto* thread_exit = find_marker(worker, "Thread exit");
  REQUIRE(thread_exit != nullptr);
  CHECK(thread_exit->start_ms == doctest::Approx(5.0));

  const auto& child = thread_with_tid(p, 200);
  const auto* proc_start = find_marker(child, "Process start");
  REQUIRE(proc_start != nullptr);
  CHECK(std::get<int64_t>(fields(*proc_start).at("ppid")) == 100);
  CHECK(std::get<std::string>(fields(*proc_start).at("name")) == "app");
  // The child's command line is unknown here: the comm stands in.
  const auto* child_exec = find_marker(child, "exec");
  REQUIRE(child_exec != nullptr);
  CHECK(std::get<std::string>(fields(*child_exec).at("command")) == "child");
  const auto* child_exit = find_marker(child, "Process exit");
  REQUIRE(child_exit != nullptr);
  CHECK(child_exit->start_ms == doctest::Approx(6.0));
  CHECK(fields(*child_exit).count("exitCode") == 0);

  // The root's exit comes at its EXIT time, with the status the session knows.
  const auto* root_exit = find_marker(root, "Process exit");
  REQUIRE(root_exit != nullptr);
  CHECK(root_exit->start_ms == doctest::Approx(7.0));
  CHECK(std::get<std::string>(fields(*root_exit).at("status")) == "exit code 3");
  CHECK(std::get<int64_t>(fields(*root_exit).at("exitCode")) == 3);
  CHECK(std::count_if(root.markers().begin(), root.markers().end(),
                      [](const auto& m) { return m.name == "Process exit"; }) == 1);
}

TEST_CASE("a root process killed by a signal says which") {
  const auto p = record_lifecycle(ExitStatus{true, 0, 9});
  const auto* root_exit = find_marker(thread_with_tid(p, 100), "Process exit");
  REQUIRE(root_exit != nullptr);
  CHECK(std::get<std::string>(fields(*root_exit).at("status")) == "killed by signal 9 (KILL)");
  CHECK(std::get<int64_t>(fields(*root_exit).at("signal")) == 9);
}

TEST_CASE("without a known status the root's exit marker still marks the time") {
  const auto p = record_lifecycle(std::nullopt);
  const auto* root_exit = find_marker(thread_with_tid(p, 100), "Process exit");
  REQUIRE(root_exit != nullptr);
  CHECK(root_exit->start_ms == doctest::Approx(7.0));
  CHECK(fields(*root_exit).count("exitCode") == 0);
}

TEST_CASE("user marker files named by data mmaps become markers on their threads") {
  const std::string dir = "/tmp/sprof-um-test";
  const uint64_t ms = 1'000'000;
  // Thread 51's own file, and a per-process file that goes to the main thread.
  test::FakeHostFiles files;
  files.add_file(
      dir + "/marker-50-51.txt",
      std::to_string(kOrigin + 2 * ms) + " " + std::to_string(kOrigin + 4 * ms) + " worker work\n");
  files.add_file(dir + "/marker-50.txt", std::to_string(kOrigin + 3 * ms) + " " +
                                             std::to_string(kOrigin + 3 * ms) + " main tick\n");
  ModuleCache cache(files);
  ProfileConverter c(options(50), cache);
  c.consume(exec(50, "app", 1));
  c.consume(fork_record(50, 50, 51, 50, 1));
  for (const char* name : {"/marker-50-51.txt", "/marker-50.txt"}) {
    perf::Mmap2Record m;
    m.id = id(50, 51, 2);
    m.pid = 50;
    m.tid = 51;
    m.addr = 0x7f0000000000;
    m.len = 4096;
    m.prot = 1;  // PROT_READ: a data mapping
    m.executable = false;
    m.filename = dir + name;
    c.consume(m);
  }
  const auto p = c.finish(kOrigin + 10 * ms);

  const auto* work = find_marker(thread_with_tid(p, 51), "worker work");
  REQUIRE(work != nullptr);
  CHECK(work->phase == profile::MarkerPhase::kInterval);
  CHECK(work->start_ms == doctest::Approx(2.0));
  CHECK(work->end_ms == doctest::Approx(4.0));
  CHECK(work->type == "UserMarker");
  const auto* tick = find_marker(thread_with_tid(p, 50), "main tick");
  REQUIRE(tick != nullptr);
  CHECK(tick->phase == profile::MarkerPhase::kInstant);
  CHECK(tick->start_ms == doctest::Approx(3.0));
  // Data mappings are not libraries.
  CHECK(p.processes.at(0).libs.empty());
}

TEST_CASE("every marker type sprof writes has a schema and the profile passes the validator") {
  auto p = record_lifecycle(ExitStatus{false, 0, 0});
  // The converter's lost/throttle markers use the same schema list.
  std::vector<std::string> schema_names;
  for (const auto& s : p.meta.marker_schema) schema_names.push_back(s.name);
  for (const char* type :
       {kProcessStartMarkerType, kExecMarkerType, kProcessExitMarkerType, kThreadStartMarkerType,
        kThreadExitMarkerType, kLostSamplesMarkerType, kThrottleMarkerType, kUserMarkerType}) {
    CHECK_MESSAGE(std::count(schema_names.begin(), schema_names.end(), type) == 1, type);
  }
  // Each marker's payload keys are fields of its schema, and each schema has a description.
  for (const auto& proc : p.processes) {
    for (const auto& t : proc.threads) {
      for (const auto& m : t.markers()) {
        auto s = std::find_if(p.meta.marker_schema.begin(), p.meta.marker_schema.end(),
                              [&](const auto& schema) { return schema.name == m.type; });
        REQUIRE_MESSAGE(s != p.meta.marker_schema.end(), m.type);
        for (const auto& f : m.fields) {
          CHECK_MESSAGE(std::any_of(s->data.begin(), s->data.end(),
                                    [&](const auto& d) { return d.key == f.key; }),
                        (m.type + "." + f.key));
        }
      }
    }
  }
  for (const auto& s : p.meta.marker_schema) {
    const bool described = std::any_of(s.data.begin(), s.data.end(), [](const auto& f) {
      return f.key.empty() && f.label == "Description";
    });
    CHECK_MESSAGE(described, s.name);
  }
  const std::string json = profile::gecko_json_string(p);
  const auto problems = test::check_gecko_profile(json);
  CHECK_MESSAGE(problems.empty(), test::join_problems(problems));
  CHECK(json.find("\"markerSchema\":[{\"name\":\"ProcessStart\"") != std::string::npos);
}
