// Rust programs as `cargo build --release` users build them: tc_rust (rustc -C opt-level=3
// -C debuginfo=2, legacy mangling, linked by rust-lld) and tc_rust_v0 (the same with v0
// mangling); tests/targets/toolchains/tc_rust.rs has their call structure:
//   thread "words": words_worker -> count_words -> word_weight
//   thread "sums":  sums_worker -> fill_values -> mix_leaf, and a closure calling
//                   <Doubler as Transform>::apply
// Each thread prints its own CPU time. Recorded by `sprof record` and by `perf record
// --call-graph dwarf` + `sprof import`, >= 99 % of each leaf's samples must have the exact
// caller chain, the threads' shares of the samples must be within 2 points of their CPU times,
// and the self-contained file must show Rust names (no hash suffix, trait impls, closures,
// inlined std frames) with no symbol server. Before sprof mapped addresses through the LOAD
// segments, 4 % of such stacks were complete and the hottest "function" was
// deregister_tm_clones.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>

#include "perf_tool.hpp"
#include "profile_symbols.hpp"
#include "profiler_cli.hpp"
#include "profiler_cli_queries.hpp"
#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

// Built by rustc (tests/targets/toolchains.cmake).
std::string rust_target(const std::string& name) {
  return toolchain_target("toolchains/" + name,
                          "rustc (the machine's Rust toolchain, or the Debian package rustc)");
}

// "words: ... cpu_ms=C" and "sums: ... cpu_ms=C" from the program's output.
std::map<std::string, double> thread_cpu_ms(const std::string& output) {
  std::map<std::string, double> out;
  for (const char* thread : {"words", "sums"}) {
    const std::regex line(std::string("(^|\n)") + thread + ":[^\n]* cpu_ms=([0-9]+)");
    std::smatch m;
    if (std::regex_search(output, m, line)) out[thread] = std::stod(m[2]);
  }
  return out;
}

struct LeafChains {
  size_t samples = 0;      // samples of the thread
  size_t reach_entry = 0;  // root frame is clone3
  size_t in_leaf = 0;      // samples with the leaf function on the stack
  size_t exact = 0;        // ... with the exact caller chain, each frame once
};

LeafChains leaf_chains(const ProcessView& process, ProfileSymbols& symbols,
                       const std::string& thread, const std::vector<std::string>& chain) {
  LeafChains st;
  const ThreadView* t = find_thread(process, thread);
  REQUIRE_MESSAGE(t != nullptr, "no thread " << thread);
  for (const auto& stack : t->stacks) {
    const auto names = symbols.names(stack);
    ++st.samples;
    if (!names.empty() && (names.front() == "__clone3" || names.front() == "clone3")) {
      ++st.reach_entry;
    }
    if (std::find(names.begin(), names.end(), chain.back()) == names.end()) continue;
    ++st.in_leaf;
    const bool once = std::all_of(chain.begin(), chain.end(), [&](const std::string& n) {
      return std::count(names.begin(), names.end(), n) == 1;
    });
    st.exact +=
        once && contains_in_order(names, {"start_thread"}) && adjacent_in_order(names, chain);
  }
  return st;
}

void check_chains(const LeafChains& st, const std::string& what) {
  MESSAGE(what << ": " << st.samples << " samples, " << st.reach_entry << " reach clone3, "
               << st.in_leaf << " in the leaf, " << st.exact << " exact");
  REQUIRE(st.samples > 200);
  CHECK(static_cast<double>(st.reach_entry) >= 0.99 * static_cast<double>(st.samples));
  REQUIRE(st.in_leaf > 50);
  CHECK(static_cast<double>(st.exact) >= 0.99 * static_cast<double>(st.in_leaf));
}

// The profile's split of samples between the two threads against their own CPU clocks.
void check_thread_split(const ProcessView& process, const std::map<std::string, double>& cpu_ms) {
  REQUIRE(cpu_ms.size() == 2);
  const ThreadView* words = find_thread(process, "words");
  const ThreadView* sums = find_thread(process, "sums");
  REQUIRE(words != nullptr);
  REQUIRE(sums != nullptr);
  const double sampled = 100.0 * static_cast<double>(words->samples) /
                         static_cast<double>(words->samples + sums->samples);
  const double measured = 100.0 * cpu_ms.at("words") / (cpu_ms.at("words") + cpu_ms.at("sums"));
  MESSAGE("words thread: " << sampled << " % of samples, " << measured << " % of CPU");
  CHECK(std::abs(sampled - measured) <= 2.0);
}

void check_profile(const std::string& path, const std::string& crate,
                   const std::map<std::string, double>& cpu_ms) {
  const auto profile = read_profile(path);
  REQUIRE_FALSE(profile.processes.empty());
  const ProcessView& process = profile.processes.at(0);
  ProfileSymbols symbols(process);
  // count_words is most of the words thread (word_weight, its callee, about 5 %).
  check_chains(
      leaf_chains(process, symbols, "words", {crate + "::words_worker", crate + "::count_words"}),
      "words");
  check_chains(
      leaf_chains(process, symbols, "sums",
                  {crate + "::sums_worker", crate + "::fill_values", crate + "::mix_leaf"}),
      "sums");
  check_thread_split(process, cpu_ms);
}

void check_recorded(const std::string& target) {
  skip_without_perf();
  const std::string program = rust_target(target);
  const auto dir = make_temp_dir("rust-" + target);
  const auto r = sprof_record(dir + "/p.json.gz", {"-r", "4000"}, {program, "2000"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  check_profile(dir + "/p.json.gz", "tc_rust", thread_cpu_ms(r.out));
}

}  // namespace

TEST_CASE(
    "rust (legacy mangling, rust-lld): sprof record has exact chains and the threads' split") {
  check_recorded("tc_rust");
}

TEST_CASE("rust (v0 mangling): sprof record has exact chains and the threads' split") {
  check_recorded("tc_rust_v0");
}

TEST_CASE("rust: perf record --call-graph dwarf + sprof import has exact chains") {
  skip_without_perf_tool();
  const std::string program = rust_target("tc_rust");
  const auto dir = make_temp_dir("rust-import");
  const std::string output = record_with_perf_and_import(dir, {program, "2000"});
  check_profile(dir + "/p.json.gz", "tc_rust", thread_cpu_ms(output));
}

TEST_CASE("rust: the self-contained file shows Rust names in the Firefox Profiler, no server") {
  skip_without_perf();
  const std::string program = rust_target("tc_rust");
  const auto dir = make_temp_dir("rust-standalone");
  const std::string file = dir + "/p.json.gz";
  const auto r = run_process({kSprofExe, "record", "-s", "-o", file, "--", program, "800"});
  INFO("sprof record: " << r.out << r.err);
  REQUIRE(r.exit_code == 0);

  auto cli = ProfilerCli::with_standalone(file);
  REQUIRE_MESSAGE(cli.has_value(), (cli ? "" : cli.error().message));
  const std::string info = cli->profile_info().out;
  std::set<std::string> names;
  for (const char* thread : {"words", "sums"}) {
    const int index = thread_index_named(info, thread);
    REQUIRE_MESSAGE(index >= 0, thread);
    const auto functions =
        cli->run({"thread", "functions", "--thread", "t-" + std::to_string(index), "--json"});
    REQUIRE(functions.exit_code == 0);
    for (const auto& [name, weight] : function_weights(functions.out)) names.insert(name);
  }
  INFO("functions:\n" << join_lines(names));
  // The program's functions, a closure (legacy form), and std's iterator inlined into
  // count_words as a frame of its own, named as a trait impl.
  for (const char* expected : {"tc_rust!tc_rust::count_words", "tc_rust!tc_rust::words_worker",
                               "tc_rust!tc_rust::mix_leaf", "tc_rust!tc_rust::fill_values",
                               "tc_rust!tc_rust::word_weight::{{closure}}",
                               "tc_rust!<core::str::iter::SplitWhitespace as "
                               "core::iter::traits::iterator::Iterator>::next"}) {
    CHECK_MESSAGE(names.count(expected) == 1, expected);
  }
  // No legacy hash suffix ("::h0123456789abcdef") and no mangled name is left.
  const std::regex hash("::h[0-9a-f]{16}$");
  for (const auto& n : names) {
    CHECK_MESSAGE(!std::regex_search(n, hash), n);
    CHECK_MESSAGE(n.find("!_ZN") == std::string::npos, n);
    CHECK_MESSAGE(n.find("!_R") == std::string::npos, n);
  }
}
