// `sprof record --heap` end to end: programs of the suite (tests/targets/heap) that allocate
// from several threads, leak on purpose, fork and exec, grow blocks with realloc and ask for
// aligned ones, recorded by sprof and read back with the Firefox Profiler's own code
// (profiler-cli): `native-allocations` and `native-retained-allocations` by function name, from
// the self-contained file with symbolication off (sprof's embedded symbols) and from the Gecko
// file through sprof's server. The programs print their own accounting; sampled results are
// checked against it within the sampling error the test explains, record-all results exactly.
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <regex>

#include "profiler_cli.hpp"
#include "profiler_cli_queries.hpp"
#include "recorded_profile.hpp"
#include "sprof_test/gecko_validator.hpp"
#include "sprof_test/json_query.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

// "name=N" printed by a target program (its own accounting), or -1.
int64_t printed(const std::string& out, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex("(^|\\s)" + name + "=(\\d+)"))) return -1;
  return std::stoll(m[2].str());
}

// `sprof record -s [extra] -o <dir>/<file> -- command` (self-contained unless extra says
// otherwise); the run's output holds sprof's summary and the program's own lines.
ProcessResult record(const std::string& out, const std::vector<std::string>& extra,
                     const std::vector<std::string>& command) {
  std::vector<std::string> argv{kSprofExe, "record", "-s", "-o", out};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return run_process(argv);
}

ProfilerCli loaded_standalone(const std::string& path) {
  auto cli = ProfilerCli::with_standalone(path);
  REQUIRE_MESSAGE(cli.has_value(), (cli ? "" : cli.error().message));
  return std::move(*cli);
}

// A thread's functions under an allocation strategy, by "lib!function". A thread without data
// for the strategy has none.
std::map<std::string, FunctionWeight> weights(ProfilerCli& cli, int thread,
                                              const std::string& strategy) {
  const ProcessResult r = cli.run({"thread", "functions", "--thread", "t-" + std::to_string(thread),
                                   "--strategy", strategy, "--json", "--limit", "0"});
  return r.exit_code == 0 ? function_weights(r.out) : std::map<std::string, FunctionWeight>{};
}

// Adds up a function's total over every thread of the profile.
int64_t total_over_threads(ProfilerCli& cli, const std::vector<ThreadHandle>& threads,
                           const std::string& strategy, const std::string& name) {
  int64_t sum = 0;
  for (const ThreadHandle& t : threads) sum += total_of(weights(cli, t.index, strategy), name);
  return sum;
}

int main_thread(const std::vector<ThreadHandle>& threads, int64_t pid) {
  for (const ThreadHandle& t : threads) {
    if (t.pid == pid && t.tid == pid) return t.index;
  }
  return -1;
}

std::string functions_text(const std::map<std::string, FunctionWeight>& w) {
  std::string out;
  for (const auto& [name, f] : w) {
    out += name + " self " + std::to_string(f.self) + " total " + std::to_string(f.total) + "\n";
  }
  return out;
}

constexpr const char* kSites[] = {"site_small", "site_medium", "site_large"};

}  // namespace

TEST_CASE("record --heap=all: every site's bytes and the leak exactly, self-contained and Gecko") {
  skip_without_perf();
  const auto dir = make_temp_dir("heap-all");
  const std::vector<std::string> command{target_path("hp_sites"), "6000"};  // 6,000 KiB
  const ProcessResult run = record(dir + "/p.json.gz", {"--heap=all", "--no-cpu"}, command);
  INFO("sprof:\n" << run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const int64_t leaked = printed(run.out, "leak_site bytes");
  REQUIRE(leaked > 0);
  CHECK(run.err.find("from leak_site < main") != std::string::npos);
  CHECK(run.err.find("records were dropped") == std::string::npos);

  auto check_profile = [&](ProfilerCli& cli) {
    const auto threads = all_threads(cli.profile_info().out);
    REQUIRE(threads.size() == 4);
    const int main = main_thread(threads, threads.front().pid);
    REQUIRE(main >= 0);
    const auto retained = weights(cli, main, "native-retained-allocations");
    INFO("retained on the main thread:\n" << functions_text(retained));
    CHECK(self_of(retained, "hp_sites!leak_site") == leaked);
    for (const char* site : kSites) {
      INFO(site);
      CHECK(
          total_over_threads(cli, threads, "native-allocations", std::string("hp_sites!") + site) ==
          printed(run.out, std::string(site) + " calls=\\d+ bytes"));
      CHECK(total_over_threads(cli, threads, "native-retained-allocations",
                               std::string("hp_sites!") + site) == 0);
    }
  };
  SUBCASE("the self-contained file, with symbolication off") {
    ProfilerCli cli = loaded_standalone(dir + "/p.json.gz");
    check_profile(cli);
  }
  SUBCASE("the Gecko file, symbolicated through sprof's server") {
    const ProcessResult gecko =
        record(dir + "/g.json.gz", {"--heap=all", "--no-presymbolicate"}, command);
    REQUIRE(gecko.exit_code == 0);
    const auto problems = check_gecko_profile_file(dir + "/g.json.gz");
    INFO(join_problems(problems));
    CHECK(problems.empty());
    BackgroundProcess server({kSprofExe, "load", "--no-open", "-P", "0", dir + "/g.json.gz"},
                             dir + "/load.log");
    const std::string log = server.wait_for_log("sprof: open ", std::chrono::seconds(60));
    REQUIRE_FALSE(log.empty());
    auto cli = ProfilerCli::locate();
    REQUIRE(cli.has_value());
    const ProcessResult loaded = cli->load(log_value_after(log, "sprof: open "));
    INFO("load: " << loaded.out << loaded.err);
    REQUIRE(loaded.exit_code == 0);
    check_profile(*cli);
    CHECK(server.stop(SIGTERM, std::chrono::seconds(10)) == 0);
  }
}

TEST_CASE("record --heap: the per-site split within 5 points of the program's own") {
  skip_without_perf();
  const auto dir = make_temp_dir("heap-sampled");
  // 1.2 GiB at the default 512 KiB interval: about 2,400 samples, so a site's share has a
  // standard deviation near one point (the square root of p (1 - p) / samples); 5 points are
  // five of them.
  const ProcessResult run = record(dir + "/p.json.gz", {"--heap"}, {target_path("hp_sites")});
  INFO("sprof:\n" << run.out << run.err);
  REQUIRE(run.exit_code == 0);
  ProfilerCli cli = loaded_standalone(dir + "/p.json.gz");
  const auto threads = all_threads(cli.profile_info().out);
  REQUIRE(threads.size() == 4);

  std::map<std::string, int64_t> measured, expected;
  int64_t measured_sum = 0, expected_sum = 0;
  for (const char* site : kSites) {
    measured[site] =
        total_over_threads(cli, threads, "native-allocations", std::string("hp_sites!") + site);
    expected[site] = printed(run.out, std::string(site) + " calls=\\d+ bytes");
    measured_sum += measured[site];
    expected_sum += expected[site];
  }
  REQUIRE(measured_sum > 0);
  for (const char* site : kSites) {
    const double share = static_cast<double>(measured[site]) / static_cast<double>(measured_sum);
    const double truth = static_cast<double>(expected[site]) / static_cast<double>(expected_sum);
    INFO(site << ": measured " << share << ", the program's " << truth);
    CHECK(std::abs(share - truth) < 0.05);
  }
  // The top allocator of a worker: the loop the three sites inline, named from the file.
  const int worker = threads[1].index;
  const auto allocations = weights(cli, worker, "native-allocations");
  INFO(functions_text(allocations));
  std::string top;
  int64_t top_self = 0;
  for (const auto& [name, f] : allocations) {
    if (f.self > top_self) top = name, top_self = f.self;
  }
  CHECK(top == "hp_sites!churn(unsigned long, unsigned long)");
}

TEST_CASE("record --heap --no-cpu: the peak within 5 % of the program's and a known leak found") {
  skip_without_perf();
  const auto dir = make_temp_dir("heap-peak");
  const ProcessResult run =
      record(dir + "/p.json.gz", {"--heap", "--no-cpu"}, {target_path("hp_peak_leak")});
  INFO("sprof:\n" << run.out << run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.err.find("no CPU samples") != std::string::npos);
  const int64_t peak = printed(run.out, "peak_bytes");
  const int64_t leaked = printed(run.out, "leak_bytes");
  REQUIRE(peak > 0);

  const auto text = read_profile_text(dir + "/p.json.gz");
  REQUIRE(text.has_value());
  JsonDoc doc(*text);
  const auto measured_peak = doc.integer("/meta/sprof/heapPeakLiveBytes");
  REQUIRE(measured_peak.has_value());
  INFO("peak: sprof " << *measured_peak << ", the program " << peak);
  // The peak is 24 blocks of 4 MiB, each sampled with probability 1 - exp(-8) and weighed
  // size / p: an estimate off by 4 MiB (4 %) only if one was missed (p = 0.03 % each).
  CHECK(std::abs(static_cast<double>(*measured_peak - peak)) < 0.05 * static_cast<double>(peak));
  CHECK(doc.string("/meta/sprof/heap") == "sampled");
  CHECK(doc.integer("/meta/sprof/heapIntervalBytes") == 512 * 1024);
  // No sampling event: no CPU samples in the file.
  CHECK(doc.string("/meta/sprof/event") == "dummy");

  ProfilerCli cli = loaded_standalone(dir + "/p.json.gz");
  const auto threads = all_threads(cli.profile_info().out);
  const int main = main_thread(threads, threads.front().pid);
  const auto retained = weights(cli, main, "native-retained-allocations");
  INFO(functions_text(retained));
  // Blocks of 16 MiB and more are sampled with probability 1 - exp(-32): their weights are
  // their sizes, so the leak is exact. (The allocating frame is counted_malloc, inlined.)
  CHECK(total_of(retained, "hp_peak_leak!leak_big") == leaked);
  CHECK(self_of(retained, "hp_peak_leak!counted_malloc") == leaked);
  for (const ThreadHandle& t : threads) {
    CHECK(total_of(weights(cli, t.index, "native-retained-allocations"),
                   "hp_peak_leak!grow_site") == 0);
  }
  CHECK(run.err.find("from counted_malloc < leak_big < main") != std::string::npos);
  // The memory track: one counter, for the process.
  const ProcessResult counters = cli.run({"counter", "list", "--json"});
  INFO(counters.out << counters.err);
  CHECK(counters.out.find("Memory") != std::string::npos);
}

TEST_CASE("record --heap=all: fork and exec children keep recording their allocations") {
  skip_without_perf();
  const auto dir = make_temp_dir("heap-fork");
  const ProcessResult run =
      record(dir + "/p.json.gz", {"--heap=all"}, {target_path("hp_fork_exec")});
  INFO("sprof:\n" << run.out << run.err);
  REQUIRE(run.exit_code == 0);
  REQUIRE(run.out.find("children ok=1") != std::string::npos);
  // Each process printed "pid=N": the parent first, then the fork child and the exec child in
  // the order they ran.
  std::vector<int64_t> pids;
  const std::regex pid_line("pid=(\\d+)");
  for (auto it = std::sregex_iterator(run.out.begin(), run.out.end(), pid_line);
       it != std::sregex_iterator(); ++it) {
    pids.push_back(std::stoll((*it)[1].str()));
  }
  REQUIRE(pids.size() == 3);

  ProfilerCli cli = loaded_standalone(dir + "/p.json.gz");
  const auto threads = all_threads(cli.profile_info().out);
  const std::map<std::string, int64_t> sites{{"hp_fork_exec!parent_site", 1111},
                                             {"hp_fork_exec!fork_child_site", 2222},
                                             {"hp_fork_exec!exec_child_site", 3333}};
  // Each process's main thread holds its own site's allocation, exactly, and no other's.
  std::map<std::string, int64_t> found;
  for (int64_t pid : pids) {
    const int main = main_thread(threads, pid);
    REQUIRE_MESSAGE(main >= 0, "no main thread for pid " << pid);
    const auto allocated = weights(cli, main, "native-allocations");
    INFO("pid " << pid << ":\n" << functions_text(allocated));
    int sites_here = 0;
    for (const auto& [site, bytes] : sites) {
      if (const int64_t total = total_of(allocated, site); total != 0) {
        found[site] = total;
        ++sites_here;
      }
    }
    CHECK(sites_here == 1);
  }
  CHECK(found == sites);
  CHECK(total_of(weights(cli, main_thread(threads, pids[0]), "native-allocations"),
                 "hp_fork_exec!parent_site") == 1111);
}

TEST_CASE("record --heap=all: realloc chains and aligned allocations at their call sites") {
  skip_without_perf();
  const auto dir = make_temp_dir("heap-realloc");
  const ProcessResult run =
      record(dir + "/p.json.gz", {"--heap=all", "--no-cpu"}, {target_path("hp_realloc_aligned")});
  INFO("sprof:\n" << run.out << run.err);
  REQUIRE(run.exit_code == 0);
  REQUIRE(run.out.find("\nok\n") != std::string::npos);
  ProfilerCli cli = loaded_standalone(dir + "/p.json.gz");
  const auto threads = all_threads(cli.profile_info().out);
  const int main = main_thread(threads, threads.front().pid);
  const auto allocated = weights(cli, main, "native-allocations");
  INFO(functions_text(allocated));
  // 16, 32, ..., 1 MiB by realloc, then reallocarray(10, 100000).
  CHECK(total_of(allocated, "hp_realloc_aligned!realloc_chain") == (2 << 20) - 16 + 1000000);
  // posix_memalign 1000, aligned_alloc 8192, memalign 300, valloc 5000, pvalloc 5000 (the size
  // asked for), calloc 10 x 30.
  CHECK(total_of(allocated, "hp_realloc_aligned!aligned_site") ==
        1000 + 8192 + 300 + 5000 + 5000 + 300);
  // new char[1234] and an over-aligned struct of 384 bytes, through libstdc++'s operator new.
  CHECK(total_of(allocated, "hp_realloc_aligned!cxx_site") == 1234 + 384);
  const auto retained = weights(cli, main, "native-retained-allocations");
  INFO(functions_text(retained));
  for (const char* f : {"hp_realloc_aligned!realloc_chain", "hp_realloc_aligned!aligned_site",
                        "hp_realloc_aligned!cxx_site"}) {
    CHECK(total_of(retained, f) == 0);
  }
}

TEST_CASE("programs that ignore LD_PRELOAD are named in the summary and keep their CPU profile") {
  skip_without_perf();
  const auto dir = make_temp_dir("heap-static");
  SUBCASE("a static program") {
    const ProcessResult run =
        record(dir + "/p.json.gz", {"--heap", "--no-presymbolicate"}, {target_path("hp_static")});
    INFO("sprof:\n" << run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.err.find("did not load libsprof-heap.so") != std::string::npos);
    const ProfileView view = read_profile(dir + "/p.json.gz");
    REQUIRE_FALSE(view.processes.empty());
    CHECK(view.processes[0].name == "hp_static");
  }
  SUBCASE("a program that execs itself with an empty environment") {
    const ProcessResult run = record(dir + "/p.json.gz", {"--heap=all", "--no-presymbolicate"},
                                     {target_path("hp_clearenv")});
    INFO("sprof:\n" << run.out << run.err);
    CHECK(run.exit_code == 0);
    CHECK(run.out.find("child environment=cleared") != std::string::npos);
    CHECK(run.err.find("1 of 2 programs did not load libsprof-heap.so") != std::string::npos);
  }
}

TEST_CASE("--heap cannot record the whole system, and says why") {
  const ProcessResult run = run_process({kSprofExe, "record", "--heap", "-a", "-s"});
  CHECK(run.exit_code == 1);
  CHECK(run.err.find("--heap needs a command to launch or -p PID") != std::string::npos);
}

TEST_CASE("record --heap=all: every one of 2,000,000 malloc/free pairs, on 1 and on 8 threads") {
  // The writers used to drop a record after 64 failed CASes, and stop waiting for good after a
  // second without room (a long drain): 10^7 pairs on one thread kept 4.2 M allocations.
  skip_without_perf();
  const auto dir = make_temp_dir("heap-churn");
  for (const auto& [threads, pairs] : {std::pair{1, 2'000'000}, std::pair{8, 250'000}}) {
    CAPTURE(threads);
    const ProcessResult run =
        record(dir + "/p.json.gz", {"--heap=all", "--no-cpu"},
               {target_path("hp_churn"), std::to_string(threads), std::to_string(pairs)});
    INFO("sprof:\n" << run.out << run.err);
    REQUIRE(run.exit_code == 0);
    const int64_t churned = printed(run.out, "allocations");
    REQUIRE(churned == int64_t{threads} * pairs);
    CHECK(run.err.find("dropped") == std::string::npos);

    const auto text = read_profile_text(dir + "/p.json.gz");
    REQUIRE(text.has_value());
    JsonDoc doc(*text);
    const auto recorded = doc.integer("/meta/sprof/heapAllocations");
    const auto calls = doc.integer("/meta/sprof/heapCalls");
    const auto frees = doc.integer("/meta/sprof/heapFrees");
    REQUIRE(recorded.has_value());
    CHECK(doc.integer("/meta/sprof/heapDroppedRecords") == 0);
    // The churn plus the few allocations of the program's start, threads and stdio.
    CHECK(*recorded == calls);
    CHECK(*recorded >= churned);
    CHECK(*recorded - churned < 100);
    CHECK(*frees >= churned);
  }
}

namespace {

// Every function of every thread under `strategy`, by "lib!function", added over the threads.
std::map<std::string, FunctionWeight> weights_over_threads(ProfilerCli& cli,
                                                           const std::string& strategy) {
  std::map<std::string, FunctionWeight> out;
  for (const ThreadHandle& t : all_threads(cli.profile_info().out)) {
    for (const auto& [name, w] : weights(cli, t.index, strategy)) {
      out[name].self += w.self;
      out[name].total += w.total;
    }
  }
  return out;
}

// Whether `function` names `wrapper` as a whole word: "operator new" in "operator new[](unsigned
// long)", "__rust_alloc" in "__rustc::__rust_alloc", but not "strdup" in "strdup_site".
bool names_wrapper(const std::string& function, const std::string& wrapper) {
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = function.find(wrapper); at != std::string::npos;
       at = function.find(wrapper, at + 1)) {
    const size_t end = at + wrapper.size();
    if ((at == 0 || !word_char(function[at - 1])) &&
        (end == function.size() || !word_char(function[end]))) {
      return true;
    }
  }
  return false;
}

// The functions on the allocation stacks, by "lib!function", that are in libsprof-heap.so or
// named one of `wrappers`: none should be. These are only ever at the top of an allocation
// stack, where they held the bytes as self, the allocating function the views show.
std::vector<std::string> wrappers_on_stacks(const std::map<std::string, FunctionWeight>& w,
                                            const std::vector<std::string>& wrappers) {
  std::vector<std::string> out;
  for (const auto& [name, f] : w) {
    if (f.total == 0) continue;
    const size_t bang = name.find('!');
    const std::string function = bang == std::string::npos ? name : name.substr(bang + 1);
    const bool wrapper = std::any_of(wrappers.begin(), wrappers.end(), [&](const std::string& x) {
      return names_wrapper(function, x);
    });
    if (wrapper || name.starts_with("libsprof-heap.so!")) out.push_back(name);
  }
  return out;
}

}  // namespace

TEST_CASE(
    "record --heap=all: operator new, new[] (nothrow, aligned) and strdup are not shown "
    "as the allocating function: their callers are, with every byte") {
  skip_without_perf();
  const auto dir = make_temp_dir("heap-wrappers");
  const ProcessResult run =
      record(dir + "/p.json.gz", {"--heap=all", "--no-cpu"}, {target_path("hp_wrappers")});
  INFO("sprof:\n" << run.out << run.err);
  REQUIRE(run.exit_code == 0);
  ProfilerCli cli = loaded_standalone(dir + "/p.json.gz");
  const auto allocated = weights_over_threads(cli, "native-allocations");
  INFO(functions_text(allocated));
  // The call of operator new (or strdup) is in the site's own code: all of its bytes are self.
  for (const std::string site : {"new_site", "nothrow_site", "aligned_site", "strdup_site"}) {
    CAPTURE(site);
    const int64_t bytes = printed(run.out, site + " bytes");
    REQUIRE(bytes > 0);
    CHECK(self_of(allocated, "hp_wrappers!" + site) == bytes);
  }
  // std::vector's allocator is inlined into vector_site: the bytes are under it, and their
  // leaf is that inlined code (docs/heap.md, "Stacks"), not operator new's frame.
  CHECK(total_of(allocated, "hp_wrappers!vector_site") == printed(run.out, "vector_site bytes"));
  CHECK(
      wrappers_on_stacks(allocated, {"operator new", "strdup", "__strdup", "strndup", "__strndup"})
          .empty());
}

TEST_CASE(
    "record --heap=all: Rust's allocation shims and Vec growth are not shown as the "
    "allocating function, legacy and v0 mangling") {
  skip_without_perf();
  for (const std::string target : {"tc_rust_alloc", "tc_rust_alloc_v0"}) {
    CAPTURE(target);
    const std::string program =
        toolchain_target("toolchains/" + target,
                         "rustc (the machine's Rust toolchain, or the Debian package rustc)");
    const auto dir = make_temp_dir("heap-" + target);
    const ProcessResult run = record(dir + "/p.json.gz", {"--heap=all", "--no-cpu"}, {program});
    INFO("sprof:\n" << run.out << run.err);
    REQUIRE(run.exit_code == 0);
    ProfilerCli cli = loaded_standalone(dir + "/p.json.gz");
    const auto allocated = weights_over_threads(cli, "native-allocations");
    INFO(functions_text(allocated));
    for (const std::string site : {"grow_site", "boxed_site", "zeroed_site"}) {
      CAPTURE(site);
      const int64_t bytes = printed(run.out, site + " bytes");
      REQUIRE(bytes > 0);
      CHECK(total_of(allocated, target + "!tc_rust_alloc::" + site) == bytes);
    }
    // grow_site's pushes grow the buffer through RawVec::grow_one and finish_grow, which call
    // __rust_realloc: none of them is on an allocation stack. (What the sites inline, Vec::push
    // or alloc::alloc::alloc, stays as their inline frames: docs/heap.md, "Stacks".)
    CHECK(wrappers_on_stacks(allocated,
                             {"__rust_alloc", "__rust_realloc", "__rdl_alloc", "__rdl_realloc",
                              "grow_one", "grow_amortized", "finish_grow", "do_reserve_and_handle"})
              .empty());
  }
}

TEST_CASE(
    "record --heap with CPU samples: no frame in libsprof-heap.so, and the hook's share "
    "in the summary and meta.sprof") {
  skip_without_perf();
  const auto dir = make_temp_dir("heap-hook");
  // Sampled allocations, and every free through the interposer: enough calls that the hook
  // takes a measurable share of the CPU samples.
  const ProcessResult run = record(dir + "/p.json.gz", {"--heap", "--no-presymbolicate"},
                                   {target_path("hp_churn"), "2", "10000000"});
  INFO("sprof:\n" << run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const ProfileView view = read_profile(dir + "/p.json.gz");
  REQUIRE_FALSE(view.processes.empty());
  const ProcessView& process = view.processes[0];
  const LibView* interposer = nullptr;
  for (const LibView& lib : process.libs) {
    if (lib.name == "libsprof-heap.so") interposer = &lib;
  }
  REQUIRE(interposer != nullptr);  // mapped and known, so its frames would be found
  size_t samples = 0, frames_in_interposer = 0;
  for (const ThreadView& t : process.threads) {
    for (const auto& stack : t.stacks) {
      ++samples;
      for (const std::string& location : stack) {
        const uint64_t address = std::strtoull(location.c_str(), nullptr, 16);
        if (address >= interposer->start && address <= interposer->end) ++frames_in_interposer;
      }
    }
  }
  CHECK(samples > 20);
  CHECK(frames_in_interposer == 0);
  // The samples the hook took are counted instead, and said.
  const auto text = read_profile_text(dir + "/p.json.gz");
  REQUIRE(text.has_value());
  const auto hooked = JsonDoc(*text).integer("/meta/sprof/heapHookSamples");
  REQUIRE(hooked.has_value());
  CHECK(*hooked > 0);
  CHECK(run.err.find("sprof: heap hooks: " + std::to_string(*hooked) + " sample") !=
        std::string::npos);
}
