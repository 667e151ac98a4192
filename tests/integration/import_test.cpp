// `sprof import` on perf.data files made at test time by the real `perf record` (skipped, saying
// why, where perf is not installed or cannot record): DWARF stacks unwound by sprof's own unwinder
// to the thread entry, frame-pointer callchains used as recorded, several events, off-CPU samples
// and CPU time from context switches, the --pid/--name filters, pipe mode, and a file cut short.
// The byte-level reader is tested without perf in tests/perfdata.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "perf_tool.hpp"
#include "profile_symbols.hpp"
#include "recorded_profile.hpp"
#include "thread_cpu.hpp"
#include "unwind_chains.hpp"

using namespace sprof::test;

namespace {

// Imports `perf_data` (requiring success) and reads the profile back.
ProfileView import_ok(const std::string& perf_data, const std::string& out,
                      const std::vector<std::string>& extra = {}) {
  const auto r = sprof_import(perf_data, out, extra);
  INFO("sprof import stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return read_profile(out);
}

// Records `command` with perf (requiring success); returns what perf and the command printed.
ProcessResult perf_record_ok(const std::string& out, const std::vector<std::string>& args,
                             const std::vector<std::string>& command) {
  auto r = perf_record(out, args, command);
  INFO("perf record stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return r;
}

}  // namespace

TEST_CASE(
    "--call-graph dwarf stacks are unwound by sprof to the thread entry through libm and "
    "std::sort") {
  skip_without_perf_tool();
  const auto dir = make_temp_dir("import-dwarf");
  perf_record_ok(dir + "/perf.data", {"--call-graph", "dwarf", "-F", "2000"},
                 {target_path("it_unwind"), "2", "0", "400"});
  const auto profile = import_ok(dir + "/perf.data", dir + "/p.json.gz");
  CHECK(profile.json.find("\"source\":\"perf.data\"") != std::string::npos);
  CHECK(profile.json.find("\"unwind\":\"dwarf\"") != std::string::npos);
  const ProcessView* process = find_process_named(profile, "it_unwind");
  REQUIRE(process != nullptr);
  ProfileSymbols symbols(*process);
  const auto st = chain_stats(*process, symbols);
  check_exact_chains(st, 500);
  // Binaries are matched to the file's build-ids and keep them as breakpadId.
  size_t with_breakpad = 0;
  for (const auto& lib : process->libs) with_breakpad += lib.breakpad_id.empty() ? 0 : 1;
  CHECK(with_breakpad >= 3);
}

TEST_CASE("-g callchains are used as perf recorded them") {
  skip_without_perf_tool();
  const auto dir = make_temp_dir("import-fp");
  // it_spin keeps frame pointers, so the chains reach main. (spin_leaf sets up no frame of its
  // own, so a frame-pointer walk skips its caller spin_middle: perf records it so, and so it
  // stays.)
  perf_record_ok(dir + "/perf.data", {"-g"}, {target_path("it_spin"), "0.5"});
  const auto profile = import_ok(dir + "/perf.data", dir + "/p.json.gz");
  CHECK(profile.json.find("\"unwind\":\"fp\"") != std::string::npos);
  const ProcessView* process = find_process_named(profile, "it_spin");
  REQUIRE(process != nullptr);
  ProfileSymbols symbols(*process);
  size_t samples = 0, whole = 0;
  for (const auto& t : process->threads) {
    for (const auto& stack : t.stacks) {
      ++samples;
      whole += contains_in_order(
          symbols.names(stack),
          {"__libc_start_call_main", "main", "(anonymous namespace)::spin_leaf(unsigned long)"});
    }
  }
  CAPTURE(samples);
  REQUIRE(samples > 100);
  CHECK(static_cast<double>(whole) >= 0.9 * static_cast<double>(samples));
}

TEST_CASE("of several events, the clock is shown and the others' samples are counted as skipped") {
  skip_without_perf_tool();
  const auto dir = make_temp_dir("import-events");
  perf_record_ok(dir + "/perf.data", {"-e", "page-faults,cpu-clock", "-g"},
                 {target_path("it_spin"), "0.5"});
  const auto r = sprof_import(dir + "/perf.data", dir + "/p.json.gz");
  INFO("sprof import stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("samples of other events than cpu-clock were skipped") != std::string::npos);
  const auto profile = read_profile(dir + "/p.json.gz");
  CHECK(profile.json.find("\"event\":\"cpu-clock\"") != std::string::npos);
  // Every cpu-clock sample perf itself reads is in the profile, and only those.
  const auto perf_counts = perf_script_sample_counts(dir + "/perf.data");
  REQUIRE(perf_counts.count("cpu-clock") == 1);
  REQUIRE(perf_counts.count("page-faults") == 1);
  size_t samples = 0;
  for (const auto& proc : profile.processes) {
    for (const auto& t : proc.threads) samples += t.samples;
  }
  CHECK(samples == perf_counts.at("cpu-clock"));
  CHECK(r.err.find("note: " + std::to_string(perf_counts.at("page-faults")) +
                   " samples of other") != std::string::npos);
}

TEST_CASE("context-switch samples become off-CPU samples and switch records give exact CPU time") {
  skip_without_perf_tool();
  const auto dir = make_temp_dir("import-offcpu");
  // sprof record's own events: a clock, and a sample at every switch, with --switch-events.
  const auto recorded = perf_record_ok(dir + "/perf.data",
                                       {"--switch-events", "--call-graph", "dwarf", "-e",
                                        "cpu-clock", "-e", "context-switches/period=1/"},
                                       {target_path("offcpu_blockers"), "10", "20", "20", "300"});
  const auto profile = import_ok(dir + "/perf.data", dir + "/p.json.gz");
  CHECK(profile.json.find("\"offCpuSamples\":0") == std::string::npos);
  const auto measured = measured_threads(recorded.out);
  bool saw_sleeper = false;
  for (const auto& [tid, real] : measured) {
    if (real.name != "sleeper") continue;
    saw_sleeper = true;
    const ThreadView* t = thread_with_tid(profile, tid);
    REQUIRE(t != nullptr);
    const uint64_t cpu = front_end_cpu_ns(*t);
    MESSAGE("sleeper: " << cpu_comparison(cpu, real) << ", "
                        << profile.sprof_meta_cpu_switch_ins_without_pick.value_or(-1)
                        << " switch-ins without a pick");
    CHECK(std::abs(thread_cpu_error(profile, cpu, real)) < 0.02);
  }
  CHECK(saw_sleeper);
  check_blockers_idle(profile);
}

TEST_CASE("--name and --pid keep only the processes asked for") {
  skip_without_perf_tool();
  const auto dir = make_temp_dir("import-filter");
  const auto data = dir + "/perf.data";
  // A parent that forks, and a child that execs it_spin: two processes with their own names.
  perf_record_ok(data, {"-g"}, {target_path("it_fork_exec"), target_path("it_spin"), "0.3"});
  const auto all = import_ok(data, dir + "/all.json.gz");
  const ProcessView* parent = find_process_named(all, "it_fork_exec");
  REQUIRE(parent != nullptr);
  REQUIRE(find_process_named(all, "it_spin") != nullptr);

  const auto by_name = import_ok(data, dir + "/name.json.gz", {"--name", "it_spin"});
  REQUIRE(by_name.processes.size() == 1);
  CHECK(by_name.processes[0].name == "it_spin");
  CHECK(by_name.processes[0].threads.at(0).samples > 100);

  const auto by_pid = import_ok(data, dir + "/pid.json.gz", {"--pid", std::to_string(parent->pid)});
  REQUIRE(by_pid.processes.size() == 1);
  CHECK(by_pid.processes[0].pid == parent->pid);
  CHECK(by_pid.processes[0].name == "it_fork_exec");

  const auto none = sprof_import(data, dir + "/none.json.gz", {"--name", "no-such-program"});
  CHECK(none.exit_code != 0);
  CHECK(none.err.find("matches --name no-such-program") != std::string::npos);
  CHECK(none.err.find("it_spin (") != std::string::npos);
}

TEST_CASE("pipe mode (perf record -o -) imports like file mode") {
  skip_without_perf_tool();
  const auto dir = make_temp_dir("import-pipe");
  const auto recorded = run_process(
      {"sh", "-c",
       "exec perf record -q --no-bpf-event --no-buildid-cache -g -o - -- \"$0\" 0.3 > \"$1\"",
       target_path("it_spin"), dir + "/pipe.data"});
  INFO("perf record stderr: " << recorded.err);
  REQUIRE(recorded.exit_code == 0);
  const auto profile = import_ok(dir + "/pipe.data", dir + "/p.json.gz");
  const ProcessView* process = find_process_named(profile, "it_spin");
  REQUIRE(process != nullptr);
  ProfileSymbols symbols(*process);
  size_t in_leaf = 0;
  for (const auto& stack : process->threads.at(0).stacks) {
    in_leaf += contains_in_order(symbols.names(stack),
                                 {"main", "(anonymous namespace)::spin_leaf(unsigned long)"});
  }
  CHECK(in_leaf > 300);
}

TEST_CASE(
    "a perf.data cut short imports what it holds, or is refused with a reason, never a crash") {
  skip_without_perf_tool();
  const auto dir = make_temp_dir("import-cut");
  const auto data = dir + "/perf.data";
  perf_record_ok(data, {"--call-graph", "dwarf"}, {target_path("it_spin"), "0.3"});
  const auto size = std::filesystem::file_size(data);
  // Cut inside the data section (perf writes the features after it, so they are lost too).
  std::filesystem::resize_file(data, size / 2);
  const auto half = sprof_import(data, dir + "/half.json.gz");
  INFO("half stdout: " << half.out << "\nstderr: " << half.err);
  CHECK(half.exit_code == 0);
  CHECK(half.err.find("truncated") != std::string::npos);
  const auto profile = read_profile(dir + "/half.json.gz");
  const ProcessView* process = find_process_named(profile, "it_spin");
  REQUIRE(process != nullptr);
  CHECK(process->threads.at(0).samples > 100);

  // Cut inside the header: nothing to read, said so, with load's exit code for such files.
  std::filesystem::resize_file(data, 40);
  const auto header = sprof_import(data, dir + "/header.json.gz");
  INFO("header stdout: " << header.out << "\nstderr: " << header.err);
  CHECK(header.exit_code == 1);
  CHECK(header.err.find("cannot import") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir + "/header.json.gz"));
}
