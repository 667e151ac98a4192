// The language rows of the toolchain matrix: Go (Debian golang-go) and Java (JIT code), built by
// the suite (tests/targets/languages.cmake).
//
// Go: lang_go's goroutines run main.worker -> {main.mathHeavy, main.hashHeavy}; Go code has no
// .eh_frame, so sprof unwinds it with the Go linker's (compressed) .debug_frame. Recorded and
// imported, >= 99 % of the workers' samples must reach runtime.goexit through the exact chain,
// and the split between the two leaves must be within 2 points of the program's own CPU clocks.
//
// Java: JIT code has no CFI at all; with -XX:+PreserveFramePointer sprof continues through the
// frame pointer, and the JVM's perf map (-XX:+DumpPerfMapAtExit) names the code. The Firefox
// Profiler (profiler-cli, no server) must show >= 99 % of LangJava.leafMath's samples under the
// JVM's JavaCalls::call_helper and the thread entry, most of them under LangJava.middle.
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "perf_tool.hpp"
#include "profile_symbols.hpp"
#include "profiler_cli.hpp"
#include "profiler_cli_queries.hpp"
#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

// ---- Go ----

struct GoTruth {
  double math_percent = 0;
  double hash_percent = 0;
};

std::optional<GoTruth> go_truth(const std::string& output) {
  const size_t at = output.find("lang_go cpu_ns:");
  if (at == std::string::npos) return std::nullopt;
  long long math = 0, hash = 0, all = 0;
  if (std::sscanf(output.c_str() + at, "lang_go cpu_ns: mathHeavy=%lld hashHeavy=%lld workers=%lld",
                  &math, &hash, &all) != 3 ||
      all <= 0) {
    return std::nullopt;
  }
  return GoTruth{100.0 * static_cast<double>(math) / static_cast<double>(all),
                 100.0 * static_cast<double>(hash) / static_cast<double>(all)};
}

void check_go_profile(const std::string& path, const GoTruth& truth) {
  const auto profile = read_profile(path);
  REQUIRE_FALSE(profile.processes.empty());
  const ProcessView& process = profile.processes.at(0);
  ProfileSymbols symbols(process);
  size_t workers = 0, reach_goexit = 0, in_math = 0, math_exact = 0, in_hash = 0, hash_exact = 0,
         in_clock = 0;
  // Goroutines move between threads: every thread's samples in main.worker count.
  for (const auto& t : process.threads) {
    for (const auto& stack : t.stacks) {
      const auto names = symbols.names(stack);
      const auto count = [&](const char* n) { return std::count(names.begin(), names.end(), n); };
      if (count("main.worker") == 0) continue;
      ++workers;
      if (!names.empty() && names.front().starts_with("runtime.goexit")) ++reach_goexit;
      const bool chain =
          count("main.worker") == 1 && contains_in_order(names, {"main.main.func1", "main.worker"});
      if (count("main.mathHeavy") > 0) {
        ++in_math;
        math_exact += chain && count("main.mathHeavy") == 1 &&
                      adjacent_in_order(names, {"main.worker", "main.mathHeavy"});
      }
      in_clock += count("main.threadCPU") > 0 ? 1 : 0;
      if (count("main.hashHeavy") > 0) {
        ++in_hash;
        hash_exact += chain && count("main.hashHeavy") == 1 &&
                      adjacent_in_order(names, {"main.worker", "main.hashHeavy"});
      }
    }
  }
  MESSAGE("main.worker " << workers << " samples (reach runtime.goexit " << reach_goexit
                         << "), mathHeavy " << in_math << " (exact " << math_exact
                         << "), hashHeavy " << in_hash << " (exact " << hash_exact << ")");
  REQUIRE(workers > 300);
  CHECK(static_cast<double>(reach_goexit) >= 0.99 * static_cast<double>(workers));
  REQUIRE(in_math > 50);
  REQUIRE(in_hash > 20);
  CHECK(static_cast<double>(math_exact) >= 0.99 * static_cast<double>(in_math));
  CHECK(static_cast<double>(hash_exact) >= 0.99 * static_cast<double>(in_hash));
  const double math = 100.0 * static_cast<double>(in_math) / static_cast<double>(workers);
  const double hash = 100.0 * static_cast<double>(in_hash) / static_cast<double>(workers);
  const double clock = 100.0 * static_cast<double>(in_clock) / static_cast<double>(workers);
  MESSAGE("mathHeavy " << math << " % (program: " << truth.math_percent << " %), hashHeavy " << hash
                       << " % (program: " << truth.hash_percent << " %), the program's clock reads "
                       << clock << " %");
  // The program's figures start and end inside its clock reads (main.threadCPU, a system call):
  // what a read costs after it took the clock lands in the figure of the function that follows.
  // Under load that is more than the call itself: a preemption at the call's exit (the read
  // updates the scheduler, which may find the slice spent), and timer interrupts held back while
  // the read held the run-queue lock. The profile puts those samples under main.threadCPU, where
  // the CPU went: 0.6 % of the workers' samples on a quiet machine, 2-3 % under two busy loops,
  // when hashHeavy (136 us a call, after the read that ends mathHeavy's 840 us) read up to 2.4
  // points below the program's figure. So each figure lies between the profile's share of the
  // function and that plus the clock reads' share, within the sampling margin of 2 points.
  CHECK(clock < 10.0);
  CHECK(truth.math_percent - math >= -2.0);
  CHECK(truth.math_percent - math <= clock + 2.0);
  CHECK(truth.hash_percent - hash >= -2.0);
  CHECK(truth.hash_percent - hash <= clock + 2.0);
}

// Rounds of work per goroutine: ~0.5 s of CPU in all here, ~2,000 samples at 4 kHz.
constexpr const char* kGoRounds = "800";

// ---- Java ----

const char* const kJavaFlags[] = {"-XX:+UnlockDiagnosticVMOptions", "-XX:+PreserveFramePointer",
                                  "-XX:+DumpPerfMapAtExit"};

// The total of the function whose name (after "lib!") is `name`, in `totals`.
int64_t total_of(const FunctionTotals& totals, const std::string& name) {
  for (const auto& [key, total] : totals.total_samples) {
    const size_t bang = key.find('!');
    if (bang != std::string::npos && key.compare(bang + 1, std::string::npos, name) == 0) {
      return total;
    }
  }
  return 0;
}

}  // namespace

TEST_CASE("go: sprof record reaches runtime.goexit through the exact chain, split as measured") {
  skip_without_perf();
  const std::string program = toolchain_target("languages/lang_go", "the Debian package golang-go");
  const auto dir = make_temp_dir("lang-go");
  const auto r = sprof_record(dir + "/p.json.gz", {"-r", "4000"}, {program, kGoRounds});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto truth = go_truth(r.out);
  REQUIRE(truth.has_value());
  check_go_profile(dir + "/p.json.gz", *truth);
}

TEST_CASE("go: perf record --call-graph dwarf + sprof import, the same") {
  skip_without_perf_tool();
  const std::string program = toolchain_target("languages/lang_go", "the Debian package golang-go");
  const auto dir = make_temp_dir("lang-go-import");
  const auto truth = go_truth(record_with_perf_and_import(dir, {program, kGoRounds}));
  REQUIRE(truth.has_value());
  check_go_profile(dir + "/p.json.gz", *truth);
}

TEST_CASE("java: JIT frames walked by frame pointer and named by the perf map, in profiler-cli") {
  skip_without_perf();
  toolchain_target("languages/LangJava.class", "the Debian package openjdk-17-jdk-headless");
  const auto dir = make_temp_dir("lang-java");
  const std::string file = dir + "/p.json.gz";
  std::vector<std::string> argv = {kSprofExe, "record", "-s", "-r",  "2000",
                                   "-o",      file,     "--", "java"};
  argv.insert(argv.end(), std::begin(kJavaFlags), std::end(kJavaFlags));
  argv.insert(argv.end(), {"-cp", target_path("languages"), "LangJava", "3000"});
  const auto r = run_process(argv);
  INFO("sprof record: " << r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // The summary counts the samples whose walk went on through frame pointers.
  CHECK((r.out + r.err).find("through frame pointers where code had no CFI") != std::string::npos);

  auto cli = ProfilerCli::with_standalone(file);
  REQUIRE_MESSAGE(cli.has_value(), (cli ? "" : cli.error().message));
  const std::string info = cli->profile_info().out;
  // The JVM runs main() on a thread of its own, named "java" like the process.
  int main_thread = -1;
  int64_t best = -1;
  for (const ThreadHandle& t : all_threads(info)) {
    const auto samples = cli->thread_samples_containing(t.index, "LangJava.leafMath");
    if (samples.exit_code != 0) continue;
    const FunctionTotals totals = function_totals(samples.out);
    if (totals.samples > best) {
      best = totals.samples;
      main_thread = t.index;
    }
  }
  REQUIRE(main_thread >= 0);
  const FunctionTotals leaf =
      function_totals(cli->thread_samples_containing(main_thread, "LangJava.leafMath").out);
  const auto share = [&](const std::string& name) {
    return static_cast<double>(total_of(leaf, name)) / static_cast<double>(leaf.samples);
  };
  MESSAGE("LangJava.leafMath: " << leaf.samples << " samples; under middle "
                                << share("double LangJava.middle(int)") << ", under call_helper "
                                << share("JavaCalls::call_helper(JavaValue*, methodHandle const&, "
                                         "JavaCallArguments*, JavaThread*)")
                                << ", under start_thread " << share("start_thread"));
  REQUIRE(leaf.samples > 200);
  CHECK(share("double LangJava.leafMath(int)") == 1.0);
  // Until the JIT compiles middle(), it runs in the interpreter, whose frames the perf map names
  // "Interpreter": most, not all, of leafMath's samples are under middle by name. Every one is
  // walked to the thread entry through the JIT's and the interpreter's frame pointers.
  CHECK(share("double LangJava.middle(int)") >= 0.5);
  CHECK(share("JavaCalls::call_helper(JavaValue*, methodHandle const&, JavaCallArguments*, "
              "JavaThread*)") >= 0.99);
  CHECK(share("start_thread") >= 0.99);
  for (const int64_t pid : process_pids(info)) {
    std::filesystem::remove("/tmp/perf-" + std::to_string(pid) + ".map");
  }
}
