// Integration tests of the recording modes beside "launch a command until it exits": attaching to
// running processes (-p), stopping after a duration (-d), running a command several times
// (--iteration-count) and recording the whole system (-a).
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;
using namespace std::chrono_literals;

namespace {

// `sprof record` here always keeps the Gecko form, which `read_profile` reads.
ProcessResult run_sprof(std::vector<std::string> args) {
  std::vector<std::string> argv = {kSprofExe};
  if (!args.empty() && args.front() == "record")
    args.insert(args.begin() + 1, "--no-presymbolicate");
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

// Running, not a zombie (/proc/PID/stat's state field, proc(5)).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

// it_attach, started and past its "ready" line (every long-lived thread named).
struct AttachTarget {
  explicit AttachTarget(const std::string& dir)
      : process({target_path("it_attach")}, dir + "/target.log") {
    REQUIRE_MESSAGE(!process.wait_for_log("ready", 20s).empty(), "it_attach did not start");
  }
  pid_t pid() const { return process.pid(); }
  BackgroundProcess process;
};

const ProcessView* find_process(const ProfileView& p, int64_t pid) {
  for (const auto& proc : p.processes) {
    if (proc.pid == pid) return &proc;
  }
  return nullptr;
}

size_t count_threads_named(const ProcessView& p, const std::string& prefix) {
  size_t n = 0;
  for (const auto& t : p.threads) n += t.name.rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

// "pid N" from sprof's "... the command (pid N) was left running" line.
pid_t left_running_pid(const std::string& out) {
  const std::string key = "(pid ";
  const auto at = out.find(key);
  return at == std::string::npos ? -1 : std::atoi(out.c_str() + at + key.size());
}

// The command's output goes to /dev/null: a command left running must not hold sprof's stdout
// (run_process reads it to the end).
std::vector<std::string> quiet(const std::string& command_line) {
  return {"/bin/sh", "-c", "exec " + command_line + " >/dev/null 2>&1"};
}

}  // namespace

TEST_CASE("attaching to a running process records its named threads and leaves it running") {
  skip_without_perf();
  const auto dir = make_temp_dir("attach");
  const auto out = dir + "/p.json.gz";
  AttachTarget target(dir);

  auto r = run_sprof({"record", "-s", "-o", out, "-p", std::to_string(target.pid()), "-d", "1"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("recording pid " + std::to_string(target.pid())) != std::string::npos);
  CHECK(running(target.pid()));

  const auto profile = read_profile(out);
  REQUIRE_FALSE(profile.processes.empty());
  const ProcessView& proc = profile.processes[0];
  CHECK(proc.pid == target.pid());
  CHECK(proc.name == "it_attach");
  CHECK(find_thread(proc, "GeckoMain") != nullptr);
  CHECK(find_thread(proc, "spawner") != nullptr);
  const ThreadView* spinner = find_thread(proc, "spinner");
  REQUIRE(spinner != nullptr);
  CHECK(spinner->samples > 0);
  CHECK_FALSE(spinner->unregistered);
  // A "late-N" thread lives ~5 ms every ~55 ms: almost all of those in the profile started
  // after sprof attached and were followed through inheritance.
  CHECK(count_threads_named(proc, "late-") >= 3);
  CHECK(profile.json.find("\"product\":\"it_attach (PID " + std::to_string(target.pid()) + ")\"") !=
        std::string::npos);
}

TEST_CASE("SIGINT to sprof ends an attach recording and the profile is written") {
  skip_without_perf();
  const auto dir = make_temp_dir("attach-sigint");
  const auto out = dir + "/p.json.gz";
  AttachTarget target(dir);

  BackgroundProcess recorder({kSprofExe, "record", "-s", "--no-presymbolicate", "-o", out, "-p",
                              std::to_string(target.pid())},
                             dir + "/sprof.log");
  const auto started = recorder.wait_for_log("press Ctrl-C to stop", 20s);
  REQUIRE_MESSAGE(!started.empty(), recorder.log());
  const int code = recorder.stop(SIGINT, 60s);
  INFO("sprof log: " << recorder.log());
  CHECK(code == 0);
  CHECK(recorder.log().find("written") != std::string::npos);
  CHECK(running(target.pid()));

  const auto profile = read_profile(out);
  REQUIRE_FALSE(profile.processes.empty());
  CHECK(profile.processes[0].pid == target.pid());
  CHECK(find_thread(profile.processes[0], "spinner") != nullptr);
}

TEST_CASE("an attach recording ends by itself when the attached process exits") {
  skip_without_perf();
  const auto dir = make_temp_dir("attach-exit");
  const auto out = dir + "/p.json.gz";
  // it_spin prints nothing until it ends; run it for a fixed time and attach right away.
  BackgroundProcess spin({target_path("it_spin"), "2"}, dir + "/spin.log");
  auto r = run_sprof({"record", "-s", "-o", out, "-p", std::to_string(spin.pid())});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto profile = read_profile(out);
  REQUIRE_FALSE(profile.processes.empty());
  CHECK(profile.processes[0].pid == spin.pid());
  REQUIRE_FALSE(profile.processes[0].threads.empty());
  CHECK(profile.processes[0].threads[0].samples > 0);
}

TEST_CASE("attaching to a pid that does not exist fails and writes nothing") {
  const auto dir = make_temp_dir("attach-missing");
  const auto out = dir + "/p.json.gz";
  // pid_max is at most 2^22 (proc(5)), so this pid cannot exist.
  auto r = run_sprof({"record", "-s", "-o", out, "-p", "99999999"});
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("no process with pid 99999999") != std::string::npos);
  CHECK_FALSE(std::ifstream(out).good());
}

TEST_CASE("-d stops recording a launched command and leaves the command running") {
  skip_without_perf();
  const auto dir = make_temp_dir("duration");
  const auto out = dir + "/p.json.gz";
  auto r = sprof_record(out, {"-d", "1"}, quiet(target_path("it_spin") + " -1"));
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  const pid_t left = left_running_pid(r.err);
  REQUIRE(left > 0);
  CHECK(running(left));
  ::kill(left, SIGKILL);
  CHECK(r.exit_code == 0);

  // The command is `sh -c "exec it_spin ..."`: the shell's image comes first and is its own
  // process in the profile when a sample lands in it before the exec (likely on a busy
  // machine), so look for the image that exec started in the same pid.
  const auto profile = read_profile(out);
  REQUIRE_FALSE(profile.processes.empty());
  CHECK(profile.processes[0].pid == left);
  const ProcessView* spin = nullptr;
  for (const auto& p : profile.processes) {
    if (p.pid == left && p.name == "it_spin") spin = &p;
  }
  REQUIRE(spin != nullptr);
  REQUIRE_FALSE(spin->threads.empty());
  CHECK(spin->threads[0].samples > 0);
}

TEST_CASE("-d with --kill-on-stop terminates the launched command") {
  skip_without_perf();
  const auto dir = make_temp_dir("duration-kill");
  const auto out = dir + "/p.json.gz";
  auto r =
      sprof_record(out, {"-d", "0.5", "--kill-on-stop"}, quiet(target_path("it_spin") + " -1"));
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("was terminated") != std::string::npos);
  const auto profile = read_profile(out);
  REQUIRE_FALSE(profile.processes.empty());
  CHECK_FALSE(running(static_cast<pid_t>(profile.processes[0].pid)));
}

TEST_CASE("--iteration-count runs the command again into one profile, one image per run") {
  skip_without_perf();
  const auto dir = make_temp_dir("iterations");
  const auto out = dir + "/p.json.gz";
  auto r = sprof_record(out, {"--iteration-count", "3"}, {target_path("it_spin"), "0.2"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("3 of 3 iterations") != std::string::npos);
  const auto profile = read_profile(out);
  REQUIRE(profile.processes.size() == 3);
  std::set<int64_t> pids;
  for (const auto& p : profile.processes) {
    CHECK(p.name == "it_spin");
    REQUIRE_FALSE(p.threads.empty());
    CHECK(p.threads[0].samples > 0);
    pids.insert(p.pid);
  }
  CHECK(pids.size() == 3);
}

TEST_CASE("--iteration-count stops at the first failing run and exits with its status") {
  skip_without_perf();
  const auto dir = make_temp_dir("iterations-fail");
  const auto out = dir + "/p.json.gz";
  auto r = sprof_record(out, {"--iteration-count", "3"}, {target_path("it_spin"), "0.1", "4"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("1 of 3 iterations") != std::string::npos);
  CHECK(read_profile(out).processes.size() == 1);
}

TEST_CASE("-a records every process that ran, under a System top-level process") {
  skip_without_perf();
  const auto dir = make_temp_dir("system");
  const auto out = dir + "/p.json.gz";
  AttachTarget target(dir);
  auto r = run_sprof({"record", "-s", "-o", out, "-a", "-d", "1"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  if (r.exit_code == 2 && r.err.find("perf_event_paranoid") != std::string::npos) {
    MESSAGE("skipped: system-wide recording is not permitted here");
    return;
  }
  REQUIRE(r.exit_code == 0);
  const auto profile = read_profile(out);
  REQUIRE(profile.processes.size() >= 2);
  CHECK(profile.processes[0].pid == 0);
  CHECK(profile.processes[0].name == "System");
  const ProcessView* proc = find_process(profile, target.pid());
  REQUIRE(proc != nullptr);
  CHECK(proc->name == "it_attach");
  const ThreadView* spinner = find_thread(*proc, "spinner");
  REQUIRE(spinner != nullptr);
  CHECK(spinner->samples > 0);
  CHECK(running(target.pid()));
}
