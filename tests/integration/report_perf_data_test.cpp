// `sprof report`, `flamegraph`, `export` and `diff` read a perf.data file directly: recorded by
// the real `perf record`, imported on the fly, it gives exactly what `sprof import` and then the
// same command on the imported file give.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "perf_tool.hpp"
#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

ProcessResult run_sprof(std::vector<std::string> args) {
  args.insert(args.begin(), kSprofExe);
  return run_process(args);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("report, export, flamegraph and diff of a perf.data equal those of its import") {
  skip_without_perf_tool();
  const std::string dir = make_temp_dir("report-perf-data");
  const std::string perf_data = dir + "/perf.data";
  const auto perf = perf_record(perf_data, {"--call-graph", "dwarf", "-F", "2000"},
                                {target_path("it_unwind"), "2", "0.5"});
  INFO("perf record: " << perf.out << perf.err);
  REQUIRE(perf.exit_code == 0);
  const std::string imported = dir + "/g.json.gz";
  const auto import = sprof_import(perf_data, imported);
  INFO("sprof import: " << import.out << import.err);
  REQUIRE(import.exit_code == 0);

  const ProcessResult direct = run_sprof({"report", "--json", "--no-debuginfod", perf_data});
  INFO(direct.err);
  REQUIRE(direct.exit_code == 0);
  const ProcessResult via_file = run_sprof({"report", "--json", "--no-debuginfod", imported});
  REQUIRE(via_file.exit_code == 0);
  CHECK(direct.out == via_file.out);
  CHECK(direct.out.find(
            R"json("name":"(anonymous namespace)::sort_heavy(int)","module":"it_unwind")json") !=
        std::string::npos);

  const ProcessResult folded = run_sprof({"export", "-f", "folded", "--no-debuginfod", perf_data});
  REQUIRE(folded.exit_code == 0);
  CHECK(folded.out == run_sprof({"export", "-f", "folded", "--no-debuginfod", imported}).out);
  CHECK(folded.out.find("(anonymous namespace)::sort_heavy(int)") != std::string::npos);

  const std::string svg = dir + "/flame.svg";
  REQUIRE(run_sprof({"flamegraph", "--no-debuginfod", "-o", svg, perf_data}).exit_code == 0);
  CHECK(read_text(svg).find("<title>(anonymous namespace)::sort_heavy(int)\nmodule: it_unwind") !=
        std::string::npos);

  // The same samples on both sides: nothing changed.
  const ProcessResult diff =
      run_sprof({"diff", "--json", "--fail-above", "0", "--no-debuginfod", imported, perf_data});
  REQUIRE(diff.exit_code == 0);
  CHECK(diff.out.find(R"("totalDelta":0,"selfDelta":0)") != std::string::npos);
  CHECK(diff.out.find(R"("totalDelta":-)") == std::string::npos);
  CHECK(diff.out.find(R"("selfDelta":-)") == std::string::npos);
}

TEST_CASE("report of a cut-short perf.data says why and fails") {
  const std::string dir = make_temp_dir("report-perf-data-cut");
  const std::string cut = dir + "/perf.data";
  {
    std::ofstream out(cut, std::ios::binary);
    out << "PERFILE2" << std::string(40, '\0');  // the magic, then less than a header
  }
  const ProcessResult r = run_sprof({"report", cut});
  CHECK(r.exit_code != 0);
  CHECK(r.exit_code < 128);  // an exit, not a crash
  CHECK(r.err.find(cut) != std::string::npos);
  CHECK(r.err.find("not a profile") == std::string::npos);  // read as perf.data, not as JSON
}
