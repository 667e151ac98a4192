// `sprof record --heap=all --heap-free-stacks` end to end: hp_free_sites frees its blocks in
// functions other than the ones that allocated them (release_here with free, delete_here with
// delete[]). The Firefox Profiler's own code (profiler-cli) must find those functions under
// `native-deallocations-sites` with the bytes they freed (operator delete trimmed like operator
// new), the allocation call trees must be what they are without the option, and without the
// option the deallocation sites stay empty (frees carry no stack).
#include <doctest/doctest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

#include "profiler_cli.hpp"
#include "profiler_cli_queries.hpp"
#include "recorded_profile.hpp"
#include "sprof_test/gecko_validator.hpp"
#include "sprof_test/json_query.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

struct FreeSitesRun {
  std::map<std::string, FunctionWeight> allocated;    // native-allocations
  std::map<std::string, FunctionWeight> freed_sites;  // native-deallocations-sites
  std::optional<int64_t> meta_free_stacks;            // meta.sprof.heapFreeStacks
  std::optional<int64_t> meta_stacked_frees;          // meta.sprof.heapStackedFrees
  std::string summary;                                // sprof's output
};

std::map<std::string, FunctionWeight> main_weights(ProfilerCli& cli, const std::string& strategy) {
  const auto threads = all_threads(cli.profile_info().out);
  REQUIRE_FALSE(threads.empty());
  const ProcessResult r =
      cli.run({"thread", "functions", "--thread", "t-" + std::to_string(threads.front().index),
               "--strategy", strategy, "--json", "--limit", "0"});
  return r.exit_code == 0 ? function_weights(r.out) : std::map<std::string, FunctionWeight>{};
}

FreeSitesRun record_free_sites(const std::string& tag, const std::vector<std::string>& options) {
  const std::string dir = make_temp_dir(tag);
  const std::string file = dir + "/p.json.gz";
  std::vector<std::string> argv{kSprofExe, "record", "-s", "--heap=all", "--no-cpu", "-o", file};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"--", target_path("hp_free_sites")});
  const ProcessResult run = run_process(argv);
  INFO("sprof record:\n" << run.out << run.err);
  REQUIRE(run.exit_code == 0);
  REQUIRE(run.out.find("\nok\n") != std::string::npos);
  auto cli = ProfilerCli::with_standalone(file);
  REQUIRE_MESSAGE(cli.has_value(), (cli ? "" : cli.error().message));
  FreeSitesRun out;
  out.summary = run.out + run.err;
  out.allocated = main_weights(*cli, "native-allocations");
  out.freed_sites = main_weights(*cli, "native-deallocations-sites");
  const auto text = read_profile_text(file);
  REQUIRE(text.has_value());
  out.meta_free_stacks = JsonDoc(*text).integer("/meta/sprof/heapFreeStacks");
  out.meta_stacked_frees = JsonDoc(*text).integer("/meta/sprof/heapStackedFrees");
  return out;
}

std::string functions_text(const std::map<std::string, FunctionWeight>& w) {
  std::string out;
  for (const auto& [name, f] : w) {
    out += name + " self " + std::to_string(f.self) + " total " + std::to_string(f.total) + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("record --heap-free-stacks: Deallocation Sites name the functions that freed") {
  skip_without_perf();
  const FreeSitesRun with = record_free_sites("heap-free-stacks", {"--heap-free-stacks"});
  INFO("deallocation sites:\n" << functions_text(with.freed_sites));
  INFO("allocations:\n" << functions_text(with.allocated));
  CHECK(with.meta_free_stacks == 1);
  // At least the program's 70 frees (libc's own may add some).
  REQUIRE(with.meta_stacked_frees.has_value());
  CHECK(*with.meta_stacked_frees >= 70);
  CHECK(with.summary.find(" frees with stacks") != std::string::npos);
  // Each free's own stack, led by the function that freed: 50 x 100 bytes with free(), 20 x 100
  // with delete[] (libstdc++'s operator delete[] is trimmed, as operator new is for allocations).
  // The front end counts a deallocation site's bytes as negative.
  CHECK(std::abs(self_of(with.freed_sites, "hp_free_sites!release_here")) == 5000);
  CHECK(std::abs(self_of(with.freed_sites, "hp_free_sites!delete_here")) == 2000);
  CHECK(std::abs(total_of(with.freed_sites, "hp_free_sites!main")) >= 7000);
  // Not the allocating functions' stacks.
  CHECK(total_of(with.freed_sites, "hp_free_sites!alloc_site") == 0);
  CHECK(total_of(with.freed_sites, "hp_free_sites!new_site") == 0);

  const FreeSitesRun without = record_free_sites("heap-no-free-stacks", {});
  INFO("without the option, deallocation sites:\n" << functions_text(without.freed_sites));
  CHECK(without.meta_free_stacks == 0);
  CHECK(without.meta_stacked_frees == 0);
  CHECK(without.summary.find("frees with stacks") == std::string::npos);
  CHECK(total_of(without.freed_sites, "hp_free_sites!release_here") == 0);
  CHECK(total_of(without.freed_sites, "hp_free_sites!delete_here") == 0);
  // Allocation stacks are the same with and without the option.
  const std::pair<const char*, int64_t> sites[] = {{"hp_free_sites!alloc_site", 5000},
                                                   {"hp_free_sites!new_site", 2000}};
  for (const auto& [site, bytes] : sites) {
    INFO(site);
    CHECK(self_of(with.allocated, site) == bytes);
    CHECK(self_of(without.allocated, site) == bytes);
  }
}
