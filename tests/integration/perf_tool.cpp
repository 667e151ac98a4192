#include "perf_tool.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

namespace sprof::test {

bool perf_tool_available(std::string& why_not) {
  if (!perf_available(why_not)) return false;
  const auto version = run_process({"perf", "--version"});
  if (version.exit_code != 0) {
    why_not = "perf(1) is not installed (Debian: linux-perf)";
    return false;
  }
  const auto dir = make_temp_dir("perf-probe");
  const auto recorded = perf_record(dir + "/probe.data", {}, {"true"});
  std::filesystem::remove_all(dir);
  if (recorded.exit_code != 0) {
    why_not = "perf record fails here: " + recorded.err;
    return false;
  }
  return true;
}

void skip_without_perf_tool() {
  std::string why;
  if (!perf_tool_available(why)) {
    MESSAGE("skipped: " << why);
    std::exit(kSkipExitCode);
  }
}

ProcessResult perf_record(const std::string& out, const std::vector<std::string>& args,
                          const std::vector<std::string>& command) {
  std::vector<std::string> argv{"perf", "record", "-q", "--no-bpf-event", "--no-buildid-cache",
                                "-o",   out};
  argv.insert(argv.end(), args.begin(), args.end());
  if (!command.empty()) {
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
  }
  return run_process(argv);
}

std::map<std::string, size_t> perf_script_sample_counts(const std::string& perf_data) {
  const auto r = run_process({"perf", "script", "-F", "event", "-i", perf_data});
  INFO("perf script stderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  std::map<std::string, size_t> counts;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    // "  cpu-clock: "
    const auto start = line.find_first_not_of(' ');
    const auto colon = line.find(':', start);
    if (start != std::string::npos && colon != std::string::npos) {
      ++counts[line.substr(start, colon - start)];
    }
  }
  return counts;
}

ProcessResult sprof_import(const std::string& perf_data, const std::string& out,
                           const std::vector<std::string>& extra) {
  std::vector<std::string> argv{kSprofExe, "import", "-s", "--no-presymbolicate", "-o", out};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back(perf_data);
  return run_process(argv);
}

std::string record_with_perf_and_import(const std::string& dir,
                                        const std::vector<std::string>& command) {
  const auto perf =
      perf_record(dir + "/perf.data", {"--call-graph", "dwarf", "-F", "4000"}, command);
  INFO("perf record: " << perf.out << perf.err);
  REQUIRE(perf.exit_code == 0);
  const auto imported = sprof_import(dir + "/perf.data", dir + "/p.json.gz");
  INFO("sprof import: " << imported.out << imported.err);
  REQUIRE(imported.exit_code == 0);
  return perf.out;
}

}  // namespace sprof::test
