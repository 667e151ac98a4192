// The toolchain matrix: one program with a known call structure (it_unwind: calc_thread ->
// outer_level -> middle_level -> {libm_heavy -> libm, sort_heavy -> std::sort ->
// compare_values}, no frame pointers) built the ways users build C++ (tests/targets/
// unwind_matrix.cmake), recorded by `sprof record` and by `perf record --call-graph dwarf` +
// `sprof import`. For each build, in both, >= 99 % of samples must have the exact caller chain
// and the split between libm_heavy and sort_heavy must be within 2 points of what the program
// measured of its own run. LLD and mold lay out the code segment so that its SVMA and file
// offset differ: before sprof mapped addresses through the LOAD segments, 2-5 % of such stacks
// were complete.
#include <doctest/doctest.h>

#include <filesystem>

#include "perf_tool.hpp"
#include "profile_symbols.hpp"
#include "profiler_cli.hpp"
#include "profiler_cli_queries.hpp"
#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"
#include "unwind_chains.hpp"

using namespace sprof::test;

namespace {

// Rounds of work per thread: ~1 s of CPU per thread here, ~4,000 samples at 4 kHz per recording,
// so the split's sampling error (about 1 point at 3 sigma) stays well inside the 2 points.
constexpr const char* kRounds = "300";

// Where a variant is missing, the test fails and says what to install.
std::string variant_path(const std::string& name, const char* package) {
  return toolchain_target(name, std::string("the Debian package ") + package);
}

ChainStats stats_of(const std::string& profile_path) {
  const auto profile = read_profile(profile_path);
  REQUIRE_FALSE(profile.processes.empty());
  ProfileSymbols symbols(profile.processes.at(0));
  return chain_stats(profile.processes.at(0), symbols);
}

void check_recording(const std::string& name, const char* package) {
  skip_without_perf();
  const std::string program = variant_path(name, package);
  const auto dir = make_temp_dir("matrix-" + name);
  auto r = sprof_record(dir + "/p.json.gz", {"-r", "4000"}, {program, "2", "0", kRounds});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto truth = it_unwind_split(r.out);
  REQUIRE(truth.has_value());
  const ChainStats st = stats_of(dir + "/p.json.gz");
  check_exact_chains(st, 1000);
  check_split(st, *truth);
}

void check_import(const std::string& name, const char* package) {
  skip_without_perf_tool();
  const std::string program = variant_path(name, package);
  const auto dir = make_temp_dir("matrix-import-" + name);
  const auto truth =
      it_unwind_split(record_with_perf_and_import(dir, {program, "2", "0", kRounds}));
  REQUIRE(truth.has_value());
  const ChainStats st = stats_of(dir + "/p.json.gz");
  check_exact_chains(st, 1000);
  check_split(st, *truth);
}

// `sprof record --heap=all --no-cpu`: every allocation with its stack. it_unwind's calc threads
// allocate only in sort_heavy (a std::vector of 2000 + round % 7 doubles each round), so the
// bytes are known exactly, and every one of them must be under sort_heavy, middle_level,
// outer_level, calc_thread and the thread entry in the Firefox Profiler's native-allocations
// view (profiler-cli, embedded symbols, no server).
void check_heap(const std::string& name, const char* package) {
  skip_without_perf();
  const std::string program = variant_path(name, package);
  const auto dir = make_temp_dir("matrix-heap-" + name);
  const std::string file = dir + "/p.json.gz";
  constexpr int kThreads = 2;
  constexpr int kHeapRounds = 60;
  const auto r = run_process({kSprofExe, "record", "-s", "--heap=all", "--no-cpu", "-o", file, "--",
                              program, std::to_string(kThreads), "0", std::to_string(kHeapRounds)});
  INFO("sprof record: " << r.out << r.err);
  REQUIRE(r.exit_code == 0);
  int64_t expected = 0;
  for (int round = 0; round < kHeapRounds; ++round) expected += 8 * (2000 + round % 7);
  expected *= kThreads;

  auto cli = ProfilerCli::with_standalone(file);
  REQUIRE_MESSAGE(cli.has_value(), (cli ? "" : cli.error().message));
  std::map<std::string, int64_t> totals;
  for (const ThreadHandle& t : all_threads(cli->profile_info().out)) {
    const auto functions =
        cli->run({"thread", "functions", "--thread", "t-" + std::to_string(t.index), "--strategy",
                  "native-allocations", "--json", "--limit", "0"});
    if (functions.exit_code != 0) continue;
    for (const auto& [key, weight] : function_weights(functions.out)) {
      const size_t bang = key.find('!');
      totals[bang == std::string::npos ? key : key.substr(bang + 1)] += weight.total;
    }
  }
  const std::string tag = "(anonymous namespace)::";
  MESSAGE(name << ": sort_heavy " << totals[tag + "sort_heavy(int)"] << " bytes, expected "
               << expected);
  CHECK(totals[tag + "sort_heavy(int)"] == expected);
  CHECK(totals[tag + "middle_level(int)"] == expected);
  CHECK(totals[tag + "outer_level(int)"] == expected);
  CHECK(totals[tag + "calc_thread(int, long)"] == expected);
  CHECK(totals["start_thread"] >= expected);
}

}  // namespace

// One test case per build and path, so that ctest names the one that failed.
#define SPROF_MATRIX_ROW(target, package)                                                    \
  TEST_CASE("toolchain matrix, " target ": sprof record has exact chains and the split") {   \
    check_recording(target, package);                                                        \
  }                                                                                          \
  TEST_CASE("toolchain matrix, " target ": perf record --call-graph dwarf + sprof import") { \
    check_import(target, package);                                                           \
  }

// Allocation stacks (--heap), where the layout differs most from GNU ld's.
TEST_CASE("toolchain matrix, it_unwind: record --heap=all puts every byte under its callers") {
  check_heap("it_unwind", "g++");
}
TEST_CASE(
    "toolchain matrix, it_unwind_clang_lld: record --heap=all puts every byte under its callers") {
  check_heap("it_unwind_clang_lld", "clang and lld");
}
TEST_CASE("toolchain matrix, it_unwind_mold: record --heap=all puts every byte under its callers") {
  check_heap("it_unwind_mold", "mold");
}

SPROF_MATRIX_ROW("it_unwind", "g++")
SPROF_MATRIX_ROW("it_unwind_gold", "binutils")
SPROF_MATRIX_ROW("it_unwind_mold", "mold")
SPROF_MATRIX_ROW("it_unwind_clang_lld", "clang and lld")
SPROF_MATRIX_ROW("it_unwind_clang_lld_nopie", "clang and lld")
SPROF_MATRIX_ROW("it_unwind_clang_mold", "clang and mold")
SPROF_MATRIX_ROW("it_unwind_nopie", "g++")
SPROF_MATRIX_ROW("it_unwind_static_pie", "g++")
SPROF_MATRIX_ROW("it_unwind_split_dwarf", "g++")
SPROF_MATRIX_ROW("it_unwind_compressed", "g++")
