// `sprof record` as people type it (issue: the first minute): the command and its flags as
// typed, NAME=VALUE environments, the output checked before anything runs, the live status line
// on a terminal only, -q, and a command that ignores Ctrl-C stopped by the second one.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;
namespace fs = std::filesystem;

namespace {

ProcessResult run_sprof(const std::vector<std::string>& args, const RunOptions& options = {}) {
  std::vector<std::string> argv{kSprofExe};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, options);
}

bool has_line(const std::string& text, const std::string& line) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l == line) return true;
  }
  return false;
}

bool running(pid_t pid) { return kill(pid, 0) == 0; }

// The pid in sprof's "the command (pid N)" note, or -1.
pid_t command_pid(const std::string& out) {
  const auto at = out.find("the command (pid ");
  return at == std::string::npos ? -1 : std::atoi(out.c_str() + at + 17);
}

}  // namespace

TEST_CASE("sprof record ls -la runs ls -la") {
  skip_without_perf();
  const auto dir = make_temp_dir("ls");
  std::ofstream(dir + "/listed-file") << "x";
  const auto r =
      run_sprof({"record", "-s", "--no-presymbolicate", "-o", dir + "/p.json", "ls", "-la", dir});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("listed-file") != std::string::npos);  // ls saw its directory argument
  CHECK(r.out.find("total ") != std::string::npos);       // and -l took effect
  const auto profile = read_profile(dir + "/p.json");
  REQUIRE_FALSE(profile.processes.empty());
  CHECK(profile.processes[0].name == "ls");
  CHECK(profile.json.find("\"product\":\"ls\"") != std::string::npos);
}

TEST_CASE("sprof record env FOO=1 printenv FOO, and leading NAME=VALUE words set the environment") {
  skip_without_perf();
  const auto dir = make_temp_dir("env");
  auto r = run_sprof({"record", "-s", "--no-presymbolicate", "-o", dir + "/a.json", "env", "FOO=1",
                      "printenv", "FOO"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK(has_line(r.out, "1"));

  r = run_sprof({"record", "-s", "--no-presymbolicate", "-o", dir + "/b.json", "FOO=2", "BAR=x y",
                 "printenv", "FOO", "BAR"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK(has_line(r.out, "2"));
  CHECK(has_line(r.out, "x y"));
  const auto profile = read_profile(dir + "/b.json");
  REQUIRE_FALSE(profile.processes.empty());
  CHECK(profile.processes[0].name == "printenv");
}

TEST_CASE("sprof record ./x -o y gives -o y to ./x, and sprof's own options come before it") {
  skip_without_perf();
  const auto dir = make_temp_dir("relative");
  fs::copy_file(target_path("it_args"), dir + "/x");
  RunOptions in_dir;
  in_dir.cwd = dir;
  auto r = run_sprof(
      {"record", "-s", "--no-presymbolicate", "./x", "-o", "y", "-p", "3", "-r", "5", "-a"},
      in_dir);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("argv[0] x\narg -o\narg y\narg -p\narg 3\narg -r\narg 5\narg -a\n") !=
        std::string::npos);
  CHECK(fs::exists(dir + "/profile.json.gz"));  // sprof's default output, not "y"
  CHECK_FALSE(fs::exists(dir + "/y"));
  CHECK(r.err.find("at 1000 Hz") != std::string::npos);  // -r 5 was the command's

  // "--" still separates, and a "--" after it belongs to the command.
  r = run_sprof({"record", "-s", "--no-presymbolicate", "-o", "mine.json", "-r", "500", "--", "./x",
                 "--", "-o"},
                in_dir);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("argv[0] x\narg --\narg -o\n") != std::string::npos);
  CHECK(fs::exists(dir + "/mine.json"));
  CHECK(r.err.find("at 500 Hz") != std::string::npos);

  // An option sprof does not know, before the command, is refused rather than run.
  r = run_sprof({"record", "--bogus", "./x"}, in_dir);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("--bogus") != std::string::npos);
  CHECK(r.out.find("argv[0]") == std::string::npos);
}

TEST_CASE("an output sprof could not write is refused before the command starts") {
  skip_without_perf();
  const auto dir = make_temp_dir("output-check");
  const std::string ran = dir + "/ran";
  fs::create_directory(dir + "/a-directory");
  for (const std::string out :
       {std::string("/nonexistent/x.json"), dir + "/a-directory", dir + "/missing/x.json.gz"}) {
    CAPTURE(out);
    const auto r = run_sprof({"record", "-s", "-o", out, "touch", ran});
    CHECK(r.exit_code != 0);
    CHECK(r.err.find("cannot write the profile to " + out) != std::string::npos);
    CHECK(r.err.find("nothing was recorded") != std::string::npos);
    CHECK_FALSE(fs::exists(ran));
  }
  CHECK(fs::is_directory(dir + "/a-directory"));
  CHECK(fs::is_empty(dir + "/a-directory"));
}

TEST_CASE("an output directory the user cannot write to is refused before the command starts") {
  skip_without_perf();
  const auto dir = make_temp_dir("unwritable");
  const std::string locked = dir + "/locked";
  const std::string open_dir = dir + "/open";
  fs::create_directory(locked);
  fs::create_directory(open_dir);
  ::chmod(dir.c_str(), 0755);
  ::chmod(open_dir.c_str(), 0777);  // the command could write here, if it ran
  std::vector<std::string> argv{kSprofExe, "record",         "-s", "-o", locked + "/x.json",
                                "touch",   open_dir + "/ran"};
  if (::geteuid() == 0) {
    // Root writes anywhere: run as nobody, for whom the 0555 directory is read-only.
    argv.insert(argv.begin(),
                {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"});
  }
  ::chmod(locked.c_str(), 0555);
  const auto r = run_process(argv);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 2);  // permission
  CHECK(r.err.find("cannot write the profile to " + locked + "/x.json") != std::string::npos);
  CHECK(r.err.find("Permission denied") != std::string::npos);
  CHECK_FALSE(fs::exists(open_dir + "/ran"));
}

TEST_CASE("whatever the open file limit, a recording is refused at the start or saved") {
  skip_without_perf();
  if (std::string(kSprofSanitizers).find("undefined") != std::string::npos) {
    // UBSan checks a pointer's memory through a pipe, which a starved descriptor table refuses:
    // every virtual call is then reported as one on an invalid object.
    MESSAGE("skipped: UBSan needs descriptors of its own");
    return;
  }
  const auto dir = make_temp_dir("nofile");
  // The recording holds a descriptor per CPU and event: a low limit (ulimit -n) either stops it
  // from starting or leaves none over at the end, when the profile is written.
  int saved = 0;
  int refused = 0;
  for (int limit = 6; limit <= 32; limit += 2) {
    CAPTURE(limit);
    const std::string out = dir + "/n" + std::to_string(limit) + ".json";
    const auto r =
        run_process({"prlimit", "--nofile=" + std::to_string(limit), kSprofExe, "record", "-s",
                     "--no-presymbolicate", "-o", out, "--", target_path("it_spin"), "0.2"});
    INFO("stderr: " << r.err);
    CHECK(r.err.find("cannot write the profile") == std::string::npos);
    if (r.exit_code == 0) {
      ++saved;
      CHECK(read_profile(out).processes.at(0).name == "it_spin");
    } else {
      ++refused;
      CHECK(r.err.find("Too many open files") != std::string::npos);
      CHECK_FALSE(fs::exists(out));
    }
  }
  // The sweep crossed the limit a recording needs.
  CHECK(saved > 0);
  CHECK(refused > 0);
}

TEST_CASE("a user without locked memory for the rings is told which limits and how to raise them") {
  skip_without_perf();
  if (::geteuid() != 0) {
    MESSAGE("skipped: needs root to run sprof as nobody (root is exempt from the limits)");
    return;
  }
  const auto dir = make_temp_dir("memlock");
  ::chmod(dir.c_str(), 0777);
  // perf_mmap charges rings to perf_event_mlock_kb (per CPU), then to RLIMIT_MEMLOCK: with
  // `ulimit -l 0`, a user's rings beyond the first fill the allowance and mmap fails with EPERM.
  const auto r =
      run_process({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", "prlimit",
                   "--memlock=0", kSprofExe, "record", "-s", "--no-presymbolicate", "-o",
                   dir + "/p.json", "--", target_path("it_spin"), "0.2"});
  INFO("stderr: " << r.err);
  if (r.err.find("mmap(") == std::string::npos) {
    MESSAGE("skipped: the rings fit this machine's allowance, or nobody may not record: " << r.err);
    return;
  }
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("Operation not permitted") != std::string::npos);
  CHECK(r.err.find("RLIMIT_MEMLOCK (ulimit -l) 0 KiB") != std::string::npos);
  CHECK(r.err.find("raise `ulimit -l`") != std::string::npos);
  CHECK(r.err.find("kernel.perf_event_mlock_kb") != std::string::npos);
}

TEST_CASE(
    "a command that ignores a signal is stopped by the second one, named, and the profile is "
    "written") {
  skip_without_perf();
  // kill(2) to sprof alone is forwarded to the command, as a terminal's Ctrl-C reaches it anyway.
  for (const int sig : {SIGINT, SIGTERM}) {
    const std::string name = sig == SIGINT ? "SIGINT" : "SIGTERM";
    CAPTURE(name);
    const auto dir = make_temp_dir("stubborn-" + name);
    const auto out = dir + "/p.json";
    BackgroundProcess recorder({kSprofExe, "record", "-s", "--no-presymbolicate", "-o", out, "--",
                                target_path("it_stubborn"), "-1"},
                               dir + "/sprof.log");
    REQUIRE_FALSE(recorder.wait_for_log("ready", std::chrono::seconds(30)).empty());
    // The first signal goes to the command, which ignores it: sprof keeps recording and says
    // what a second one does.
    kill(recorder.pid(), sig);
    REQUIRE_FALSE(recorder.wait_for_log("Ctrl-C again", std::chrono::seconds(30)).empty());
    CHECK(running(recorder.pid()));
    const int code = recorder.stop(sig, std::chrono::seconds(60));
    const std::string log = recorder.log();
    INFO("log: " << log);
    // What a shell reports for a process that the signal ended: 130 for SIGINT, 143 for SIGTERM.
    CHECK(code == 128 + sig);
    CHECK(log.find("stopped by a second signal (" + name + ")") != std::string::npos);
    // It ignores SIGTERM too, so it took SIGKILL; the summary says which.
    CHECK(log.find("was killed (SIGKILL") != std::string::npos);
    const pid_t child = command_pid(log);
    REQUIRE(child > 0);
    CHECK_FALSE(running(child));
    const auto profile = read_profile(out);
    REQUIRE(profile.processes.size() == 1);
    CHECK(profile.processes[0].name == "it_stubborn");
    CHECK(profile.processes[0].threads.at(0).samples > 0);
  }
}

TEST_CASE("the status line is drawn on a terminal and not into a pipe, and -q keeps only errors") {
  skip_without_perf();
  const auto dir = make_temp_dir("status");
  const std::string record = std::string(kSprofExe) + " record -s --no-presymbolicate -o " + dir +
                             "/tty.json -- " + target_path("it_spin") + " 1.5";
  // script(1) runs the command on a pseudo-terminal and copies what it writes to stdout.
  const auto tty = run_process({"script", "-qefc", record, "/dev/null"});
  INFO("terminal: " << tty.out << tty.err);
  REQUIRE(tty.exit_code == 0);
  const auto drawn = tty.out.find("\r\033[Ksprof: ");
  REQUIRE(drawn != std::string::npos);
  CHECK(tty.out.find(" samples, ", drawn) != std::string::npos);
  CHECK(tty.out.find(" lost, 1 process, 1 thread", drawn) != std::string::npos);
  // Erased before the summary, which follows on a clean line ("... -> file").
  const auto erased = tty.out.rfind("\r\033[K");
  const std::string after = tty.out.substr(erased + 4);
  CHECK(after.starts_with("sprof: "));
  CHECK(after.substr(0, after.find('\n')).find(" -> " + dir + "/tty.json") != std::string::npos);

  const auto piped = run_sprof({"record", "-s", "--no-presymbolicate", "-o", dir + "/pipe.json",
                                "--", target_path("it_spin"), "1.5"});
  INFO("piped: " << piped.out << piped.err);
  REQUIRE(piped.exit_code == 0);
  CHECK(piped.err.find('\r') == std::string::npos);
  CHECK(piped.err.find("\033[K") == std::string::npos);
  CHECK(piped.err.find("samples, 0 lost") != std::string::npos);  // the summary stays
  // sprof's own lines go to stderr: `sprof record -- cmd > out.txt` gets the command's output only.
  CHECK(piped.out == "it_spin done 1\n");

  const auto quiet = run_sprof(
      {"record", "-s", "-q", "-o", dir + "/quiet.json", "--", target_path("it_spin"), "0.3"});
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.err.empty());
  CHECK(quiet.out == "it_spin done 1\n");  // the command's own output only
  CHECK(fs::exists(dir + "/quiet.json"));
}

TEST_CASE("-e picks the sampling event, meta and summary name it, and a missing one is explained") {
  skip_without_perf();
  const auto dir = make_temp_dir("event");
  auto r = sprof_record(dir + "/t.json", {"-e", "task-clock"}, {target_path("it_spin"), "0.3"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("event task-clock at 1000 Hz") != std::string::npos);
  auto profile = read_profile(dir + "/t.json");
  CHECK(profile.sprof_meta_event == "task-clock");
  CHECK(profile.processes.at(0).threads.at(0).samples > 20);

  r = sprof_record(dir + "/f.json", {"-e", "page-faults"}, {target_path("it_spin"), "0.3"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("event page-faults") != std::string::npos);
  CHECK(read_profile(dir + "/f.json").sprof_meta_event == "page-faults");

  // An event this machine lacks (no PMU in most VMs) is refused, naming what it has.
  r = sprof_record(dir + "/c.json", {"-e", "cycles"}, {target_path("it_spin"), "0.3"});
  if (r.exit_code != 0) {
    CHECK(r.err.find("the event 'cycles' is not available on this machine") != std::string::npos);
    CHECK(r.err.find("available here: cpu-clock, task-clock") != std::string::npos);
    CHECK(r.out.find("it_spin done") == std::string::npos);
  } else {
    CHECK(read_profile(dir + "/c.json").sprof_meta_event == "cycles");
  }
}

TEST_CASE("--profile-name names the profile, and --include-args adds arguments to process names") {
  skip_without_perf();
  const auto dir = make_temp_dir("names");
  auto r = sprof_record(dir + "/p.json", {"--profile-name", "nightly build", "--include-args=2"},
                        {target_path("it_fork_exec"), target_path("it_spin"), "0.2"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto profile = read_profile(dir + "/p.json");
  CHECK(profile.json.find("\"product\":\"nightly build\"") != std::string::npos);
  REQUIRE(profile.processes.size() >= 2);
  CHECK(profile.processes[0].name == "it_fork_exec " + target_path("it_spin") + " 0.2");
  bool child = false;
  for (const auto& p : profile.processes) child = child || p.name == "it_spin 0.2";
  CHECK(child);
}

TEST_CASE("a process is named by its executable's file name, not the 15-byte comm") {
  skip_without_perf();
  const auto dir = make_temp_dir("longname");
  const std::string exe = dir + "/a_program_with_a_long_name";
  fs::copy_file(target_path("it_spin"), exe);
  const auto r = sprof_record(dir + "/p.json", {}, {exe, "0.2"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto profile = read_profile(dir + "/p.json");
  REQUIRE(profile.processes.size() == 1);
  CHECK(profile.processes[0].name == "a_program_with_a_long_name");
  CHECK(profile.processes[0].threads.at(0).process_name == "a_program_with_a_long_name");
}

TEST_CASE("-v says where symbols were looked for, what was found and what was skipped") {
  skip_without_perf();
  const auto dir = make_temp_dir("verbose");
  // An empty --symbol-dir is searched first: the files it lacks are listed, with why.
  fs::create_directory(dir + "/no-symbols");
  const auto r = run_sprof({"record", "-s", "-v", "--symbol-dir", dir + "/no-symbols", "-o",
                            dir + "/p.json", "--", target_path("it_spin"), "0.2"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("sprof: symbols for it_spin: " + target_path("it_spin") +
                   ": binary, build-id matches") != std::string::npos);
  // libc's debug info is a separate file (libc6-dbg) found through its build-id tree.
  CHECK(r.err.find("/usr/lib/debug/.build-id/") != std::string::npos);
  CHECK(r.err.find("debug file, build-id matches") != std::string::npos);
  CHECK(r.err.find("sprof: symbols for libc.so.6: " + dir + "/no-symbols/.build-id/") !=
        std::string::npos);
  CHECK(r.err.find(".debug: no such file") != std::string::npos);
}
