// Integration tests: record real programs built by the test suite with the sprof binary and
// check what the profile says about them.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

TEST_CASE("recording four named threads gives one track per thread with rate x CPU-time samples") {
  skip_without_perf();
  const auto dir = make_temp_dir("threads");
  const auto out = dir + "/p.json.gz";
  auto r = sprof_record(out, {"-r", "1000"}, {target_path("it_threads"), "4", "1.5"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("4 threads") == std::string::npos);  // main + 4 workers = 5
  CHECK(r.err.find("5 threads") != std::string::npos);
  const auto profile = read_profile(out);
  REQUIRE(profile.processes.size() == 1);
  const auto& proc = profile.processes[0];
  CHECK(proc.name == "it_threads");
  REQUIRE(proc.threads.size() == 5);
  CHECK(find_thread(proc, "GeckoMain") != nullptr);

  // The target prints "tid cpu_ns name" for each worker, measured in the worker itself.
  std::istringstream lines(r.out);
  long tid = 0;
  unsigned long long cpu_ns = 0;
  std::string name;
  int checked = 0;
  while (lines >> tid >> cpu_ns >> name) {
    if (name.rfind("worker-", 0) != 0) continue;
    const ThreadView* t = find_thread(proc, name);
    REQUIRE_MESSAGE(t != nullptr, "no track for " << name);
    CHECK(t->tid == tid);
    CHECK(t->unregistered);
    const double expected = static_cast<double>(cpu_ns) / 1e6;  // 1 sample per CPU-ms at 1 kHz
    INFO(name << ": " << t->samples << " samples for " << expected << " CPU-ms");
    CHECK(static_cast<double>(t->samples) > expected * 0.8);
    CHECK(static_cast<double>(t->samples) < expected * 1.1);
    // CPU deltas (cpu-clock periods) add up to the thread's real CPU time.
    CHECK(static_cast<double>(t->cpu_delta_ns) > static_cast<double>(cpu_ns) * 0.8);
    CHECK(static_cast<double>(t->cpu_delta_ns) < static_cast<double>(cpu_ns) * 1.05);
    ++checked;
  }
  CHECK(checked == 4);
  CHECK_FALSE(profile.sprof_meta_event.empty());
}

TEST_CASE("a fork+exec'd child shows up as its own process with its own libs") {
  skip_without_perf();
  const auto dir = make_temp_dir("forkexec");
  const auto out = dir + "/p.json.gz";
  auto r = sprof_record(out, {}, {target_path("it_fork_exec"), target_path("it_spin"), "0.4"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto profile = read_profile(out);
  REQUIRE(profile.processes.size() >= 2);
  const auto& parent = profile.processes[0];
  CHECK(parent.name == "it_fork_exec");
  bool found_child = false;
  for (size_t i = 1; i < profile.processes.size(); ++i) {
    const auto& p = profile.processes[i];
    if (p.name != "it_spin") continue;
    found_child = true;
    CHECK(p.pid != parent.pid);
    REQUIRE_FALSE(p.threads.empty());
    CHECK(p.threads[0].samples > 30);  // 0.4 s of spinning; the machine may be busy
    CHECK(std::find(p.lib_names.begin(), p.lib_names.end(), "it_spin") != p.lib_names.end());
  }
  CHECK(found_child);
  CHECK(parent.threads.at(0).samples > 30);
}

TEST_CASE("a crashing command leaves a profile and sprof exits with 128 + the signal") {
  skip_without_perf();
  const auto dir = make_temp_dir("crash");
  const auto out = dir + "/p.json.gz";
  auto r = sprof_record(out, {}, {target_path("it_crash"), "0.5"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 128 + SIGSEGV);
  const auto profile = read_profile(out);
  REQUIRE(profile.processes.size() == 1);
  // Samples up to the crash (the machine may be busy: any real share of 0.5 s is fine).
  CHECK(profile.processes[0].threads.at(0).samples > 20);
  CHECK(profile.processes[0].threads.at(0).unregistered);
}

TEST_CASE("a command that cannot be executed exits 127 with a clear message and no profile") {
  skip_without_perf();
  const auto dir = make_temp_dir("noexec");
  const auto out = dir + "/p.json.gz";
  auto r = sprof_record(out, {}, {dir + "/does-not-exist"});
  CHECK(r.exit_code == 127);
  CHECK(r.err.find("does-not-exist") != std::string::npos);
  CHECK(r.err.find("No such file") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("SIGINT to sprof ends the command, and the profile is still written") {
  skip_without_perf();
  const auto dir = make_temp_dir("sigint");
  const auto out = dir + "/p.json.gz";
  RunOptions options;
  options.timeout = std::chrono::seconds(60);
  // Send SIGINT to sprof alone (not its group) after a second, as `kill -INT` would.
  std::thread interrupter;
  options.on_start = [&](pid_t pid) {
    interrupter = std::thread([pid] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1200));
      kill(pid, SIGINT);
    });
  };
  auto r = run_process({kSprofExe, "record", "-s", "--no-presymbolicate", "-o", out, "--",
                        target_path("it_spin"), "-1"},
                       options);
  interrupter.join();
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK_FALSE(r.timed_out);
  CHECK(r.exit_code == 128 + SIGINT);
  const auto profile = read_profile(out);
  REQUIRE(profile.processes.size() == 1);
  CHECK(profile.processes[0].threads.at(0).samples > 50);
}
