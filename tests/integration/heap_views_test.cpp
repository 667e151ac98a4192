// Memory flame graphs and folded stacks (`sprof flamegraph --heap`, `sprof export --heap`) of a
// `record --heap=all` recording of hp_sites: every function's bytes, allocated and retained, are
// the ones the Firefox Profiler's own code (profiler-cli) shows in its native-allocations and
// retained-memory call trees for the same file, and the leak is hp_sites' own count.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>

#include "pprof_raw.hpp"
#include "profiler_cli.hpp"
#include "profiler_cli_queries.hpp"
#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

// Total bytes per function name over folded lines (a function counted once per line, as a
// call tree's total counts a recursive one once per sample).
std::map<std::string, int64_t> folded_totals(const std::string& folded) {
  std::map<std::string, int64_t> totals;
  std::istringstream lines(folded);
  for (std::string line; std::getline(lines, line);) {
    const size_t space = line.rfind(' ');
    REQUIRE(space != std::string::npos);
    const int64_t bytes = std::stoll(line.substr(space + 1));
    CHECK(bytes > 0);
    std::set<std::string> seen;
    std::istringstream frames(line.substr(0, space));
    for (std::string frame; std::getline(frames, frame, ';');) {
      if (seen.insert(frame).second) totals[frame] += bytes;
    }
  }
  return totals;
}

// profiler-cli's totals per function under `strategy`, over every thread, by name without the
// module; names that two modules share are left out (folded lines do not name the module).
std::map<std::string, int64_t> cli_totals(ProfilerCli& cli, const std::string& strategy) {
  std::map<std::string, int64_t> totals;
  std::map<std::string, std::set<std::string>> modules;
  for (const ThreadHandle& t : all_threads(cli.profile_info().out)) {
    const ProcessResult r =
        cli.run({"thread", "functions", "--thread", "t-" + std::to_string(t.index), "--strategy",
                 strategy, "--json", "--limit", "0"});
    if (r.exit_code != 0) continue;  // a thread without allocations
    for (const auto& [key, weight] : function_weights(r.out)) {
      const size_t bang = key.find('!');
      const std::string name = bang == std::string::npos ? key : key.substr(bang + 1);
      totals[name] += weight.total;
      modules[name].insert(bang == std::string::npos ? "" : key.substr(0, bang));
    }
  }
  for (const auto& [name, in] : modules) {
    if (in.size() > 1) totals.erase(name);
  }
  return totals;
}

std::string export_folded(const std::string& file, const std::string& heap) {
  const ProcessResult r = run_process({kSprofExe, "export", "-f", "folded", "--heap", heap, file});
  INFO("sprof export:\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("memory flame graphs and folded stacks: profiler-cli's bytes per function") {
  skip_without_perf();
  const std::string dir = make_temp_dir("heap-views");
  const std::string file = dir + "/p.json.gz";
  const ProcessResult run = run_process({kSprofExe, "record", "-s", "--heap=all", "--no-cpu", "-o",
                                         file, "--", target_path("hp_sites"), "3000"});
  INFO("sprof record:\n" << run.out << run.err);
  REQUIRE(run.exit_code == 0);
  auto cli = ProfilerCli::with_standalone(file);
  REQUIRE_MESSAGE(cli.has_value(), (cli ? "" : cli.error().message));

  for (const auto& [heap, strategy] :
       {std::pair<std::string, std::string>{"allocated", "native-allocations"},
        {"retained", "native-retained-allocations"}}) {
    CAPTURE(heap);
    const auto ours = folded_totals(export_folded(file, heap));
    const auto theirs = cli_totals(*cli, strategy);
    size_t compared = 0;
    for (const auto& [name, bytes] : theirs) {
      if (bytes == 0) continue;
      CAPTURE(name);
      const auto it = ours.find(name);
      REQUIRE(it != ours.end());
      CHECK(it->second == bytes);
      ++compared;
    }
    CHECK(compared >= 3);
  }
  // The leak, as hp_sites counts it, and nothing of the sites that free what they allocate.
  const auto retained = folded_totals(export_folded(file, "retained"));
  const std::string leak_line = run.out.substr(run.out.find("leak_site bytes"));
  CHECK(retained.at("leak_site") ==
        std::stoll(leak_line.substr(leak_line.find_first_of("0123456789"))));
  for (const char* site : {"site_small", "site_medium", "site_large"}) {
    CAPTURE(site);
    CHECK(retained.count(site) == 0);
  }

  // pprof: go's heap profile types, read back by go tool pprof: the same bytes per function, and
  // every block a row (no folding in so short a run), so objects count the leak's blocks.
  const std::string pb = dir + "/heap.pb.gz";
  REQUIRE(run_process({kSprofExe, "export", "-f", "pprof", "--heap", "retained", "-o", pb, file})
              .exit_code == 0);
  const ProcessResult raw = go_tool_pprof({"-raw", pb});
  if (raw.exit_code == 127 || raw.err.find("not found") != std::string::npos) {
    MESSAGE("go tool pprof is not installed (Debian: golang-go): pprof output not checked");
  } else {
    REQUIRE(raw.exit_code == 0);
    const PprofRaw parsed = parse_pprof_raw(raw.out);
    REQUIRE(parsed.sample_types ==
            std::vector<std::string>{"alloc_objects/count", "alloc_space/bytes",
                                     "inuse_objects/count", "inuse_space/bytes"});
    const auto allocated = folded_totals(export_folded(file, "allocated"));
    for (const auto& [index, ours] :
         {std::pair<size_t, const std::map<std::string, int64_t>*>{1, &allocated},
          {3, &retained}}) {
      CAPTURE(index);
      const auto theirs = parsed.self_and_total(index);
      for (const auto& [name, bytes] : *ours) {
        CAPTURE(name);
        const auto it = theirs.find(name);
        REQUIRE(it != theirs.end());
        CHECK(it->second.second == bytes);
      }
    }
    const std::string leak_blocks = run.out;  // "leak block=0x... size=N", one line per block
    size_t blocks = 0;
    for (size_t at = 0; (at = leak_blocks.find("leak block=", at)) != std::string::npos; ++at) {
      ++blocks;
    }
    REQUIRE(blocks > 0);
    CHECK(parsed.self_and_total(2).at("leak_site").second == static_cast<int64_t>(blocks));
  }

  // The SVG: titled, its subtitle and tooltips in bytes, its widths the allocated bytes.
  const ProcessResult svg =
      run_process({kSprofExe, "flamegraph", "--heap", "allocated", "--min-width", "0", file});
  REQUIRE(svg.exit_code == 0);
  CHECK(svg.out.find(">Allocated Memory<") != std::string::npos);
  CHECK(svg.out.find(" allocated \u00b7 ") != std::string::npos);
  CHECK(svg.out.find(" bytes, ") != std::string::npos);
  CHECK(svg.out.find(" samples, ") == std::string::npos);
  CHECK(svg.out.find("leak_site") != std::string::npos);

  // A CPU-only recording has no memory to draw: said, and a usage error.
  const std::string cpu = dir + "/cpu.json.gz";
  REQUIRE(run_process({kSprofExe, "record", "-s", "-o", cpu, "--", target_path("hp_sites"), "10"})
              .exit_code == 0);
  const ProcessResult none = run_process({kSprofExe, "flamegraph", "--heap", "retained", cpu});
  CHECK(none.exit_code == 1);
  CHECK(none.err.find("record with --heap") != std::string::npos);
}
