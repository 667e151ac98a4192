// Attach-mode logic that needs no perf events: listing targets from a fake /proc, finding threads
// born after a listing, the system-wide /proc snapshot and its fallback, the drain loop's poll
// timeout, and the validation of record options.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "attach/attach_targets.hpp"
#include "drain_loop.hpp"
#include "process/proc_access.hpp"
#include "sprof/recorder/options.hpp"

using namespace sprof::convert;
using namespace sprof::recorder;
namespace fs = std::filesystem;

namespace {

// A fake /proc: process 42 with threads 42 ("app") and 45 ("worker"), and process 50 ("daemon").
struct FakeProc {
  fs::path root = fs::temp_directory_path() / ("sprof-attach-proc-" + std::to_string(::getpid()));
  FakeProc() {
    fs::remove_all(root);
    add_thread(42, 42, "app");
    add_thread(42, 45, "worker");
    std::ofstream(root / "42" / "maps") << "1000-2000 r-xp 00000000 08:01 12 /bin/app\n"
                                           "3000-4000 rw-p 00000000 08:01 12 /bin/app\n";
    add_thread(50, 50, "daemon");
    std::ofstream(root / "50" / "maps") << "";
  }
  ~FakeProc() { fs::remove_all(root); }
  void add_thread(int pid, int tid, const std::string& name) {
    const auto dir = root / std::to_string(pid) / "task" / std::to_string(tid);
    fs::create_directories(dir);
    std::ofstream(dir / "comm") << name << "\n";
  }
  std::string str() const { return root.string(); }
};

RecordOptions with_command() {
  RecordOptions o;
  o.command = {"true"};
  return o;
}

}  // namespace

TEST_CASE("attach targets list every thread of each pid, once per pid") {
  FakeProc proc;
  auto targets = list_attach_targets({42, 50, 42}, proc.str());
  REQUIRE(targets.has_value());
  REQUIRE(targets->size() == 2);
  CHECK((*targets)[0].pid == 42);
  CHECK((*targets)[0].tids == std::vector<pid_t>{42, 45});
  CHECK((*targets)[1].tids == std::vector<pid_t>{50});
  CHECK(all_tids(*targets) == std::vector<pid_t>{42, 45, 50});
}

TEST_CASE("attaching to a pid that does not exist names the pid") {
  FakeProc proc;
  auto targets = list_attach_targets({42, 7}, proc.str());
  REQUIRE_FALSE(targets.has_value());
  CHECK(targets.error().code == sprof::Errc::kNotFound);
  CHECK(targets.error().message.find("no process with pid 7") != std::string::npos);
  CHECK(list_attach_targets({0}, proc.str()).error().code == sprof::Errc::kInvalidArgument);
  CHECK(list_attach_targets({}, proc.str()).error().code == sprof::Errc::kInvalidArgument);
}

TEST_CASE("threads born after the listing are the ones not listed before") {
  CHECK(tids_not_in({10, 12, 14}, {10, 11, 12, 15}) == std::vector<pid_t>{11, 15});
  CHECK(tids_not_in({10, 12}, {10, 12}).empty());
  CHECK(tids_not_in({}, {3}) == std::vector<pid_t>{3});
}

TEST_CASE("the system snapshot keeps names and executable mappings of every process") {
  FakeProc proc;
  CHECK(list_pids(proc.str()) == std::vector<uint32_t>{42, 50});
  const SystemSnapshot snapshot = snapshot_system(proc.str());
  REQUIRE(snapshot.size() == 2);
  const auto& app = snapshot.at(42);
  CHECK(app.thread_names.at(42) == "app");
  CHECK(app.thread_names.at(45) == "worker");
  REQUIRE(app.exec_maps.size() == 1);  // the rw-p mapping is not executable
  CHECK(app.exec_maps[0].path == "/bin/app");
  CHECK(app.exec_maps[0].start == 0x1000);
  CHECK(snapshot.at(50).exec_maps.empty());
}

TEST_CASE("with_snapshot_fallback prefers live /proc and remembers processes that are gone") {
  FakeProc proc;
  auto snapshot = std::make_shared<const SystemSnapshot>(snapshot_system(proc.str()));
  ProcAccess access = with_snapshot_fallback(live_proc_access(proc.str()), snapshot);

  proc.add_thread(42, 45, "renamed");  // live /proc changed after the snapshot
  CHECK(access.read_comm(42, 45) == std::optional<std::string>("renamed"));

  fs::remove_all(proc.root / "42");  // the process exited
  CHECK(access.read_comm(42, 45) == std::optional<std::string>("worker"));
  REQUIRE(access.read_exec_maps(42).size() == 1);
  CHECK(access.read_exec_maps(42)[0].path == "/bin/app");

  CHECK(access.read_comm(0, 0) == std::optional<std::string>(kIdleProcessName));
  CHECK_FALSE(access.read_comm(99, 99).has_value());
  CHECK(access.read_exec_maps(99).empty());
}

TEST_CASE("the drain loop never sleeps past the deadline") {
  CHECK(poll_timeout_ms(1'000'000'000, 0, 50) == 50);  // no deadline
  CHECK(poll_timeout_ms(1'000'000'000, 5'000'000'000, 50) == 50);
  CHECK(poll_timeout_ms(1'000'000'000, 1'020'000'000, 50) == 20);
  CHECK(poll_timeout_ms(1'000'000'000, 1'000'000'001, 50) == 1);  // rounded up, not a 0 ms spin
  CHECK(poll_timeout_ms(2'000'000'000, 1'000'000'000, 50) == 0);  // already past
}

TEST_CASE("record options need exactly one target") {
  CHECK(check_record_options(with_command()).has_value());

  RecordOptions none;
  CHECK(check_record_options(none).error().message.find("nothing to record") != std::string::npos);

  RecordOptions attach;
  attach.attach_pids = {1234};
  CHECK(check_record_options(attach).has_value());
  attach.system_wide = true;
  CHECK(check_record_options(attach).error().code == sprof::Errc::kInvalidArgument);

  RecordOptions both = with_command();
  both.attach_pids = {1234};
  CHECK_FALSE(check_record_options(both).has_value());

  RecordOptions all;
  all.system_wide = true;
  CHECK(check_record_options(all).has_value());
}

TEST_CASE("record options reject durations, iterations and kill-on-stop that cannot apply") {
  RecordOptions o = with_command();
  o.duration_s = -1;
  CHECK_FALSE(check_record_options(o).has_value());

  o = with_command();
  o.iteration_count = 0;
  CHECK_FALSE(check_record_options(o).has_value());
  o.iteration_count = 3;
  CHECK(check_record_options(o).has_value());

  RecordOptions attach;
  attach.attach_pids = {1234};
  attach.iteration_count = 2;
  CHECK(check_record_options(attach).error().message.find("--iteration-count") !=
        std::string::npos);

  o = with_command();
  o.kill_on_stop = true;
  CHECK(check_record_options(o).error().message.find("-d") != std::string::npos);
  o.duration_s = 1;
  CHECK(check_record_options(o).has_value());
  attach.iteration_count = 1;
  attach.kill_on_stop = true;
  attach.duration_s = 1;
  CHECK_FALSE(check_record_options(attach).has_value());
}

TEST_CASE("record options reject heap settings that cannot apply") {
  RecordOptions o = with_command();
  o.heap = HeapMode::kSampled;
  CHECK(check_record_options(o).has_value());
  o.heap_interval_bytes = 0;
  CHECK(check_record_options(o).error().message.find("--heap-interval") != std::string::npos);
  o.heap = HeapMode::kAll;  // every allocation: the interval does not apply
  CHECK(check_record_options(o).has_value());

  // -p: the library is loaded into the running process (heap_injector.hpp); -a: refused.
  RecordOptions attach;
  attach.attach_pids = {1234};
  attach.heap = HeapMode::kSampled;
  CHECK(check_record_options(attach).has_value());
  RecordOptions system;
  system.system_wide = true;
  system.heap = HeapMode::kSampled;
  CHECK(check_record_options(system).error().message.find("(-a)") != std::string::npos);

  o = with_command();
  o.sample_cpu = false;
  CHECK(check_record_options(o).error().message.find("without --heap") != std::string::npos);
  o.heap = HeapMode::kSampled;
  CHECK(check_record_options(o).has_value());
  o.event = SamplingEvent::kCycles;
  CHECK(check_record_options(o).error().message.find("-e") != std::string::npos);
}
