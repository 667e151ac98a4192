// `sprof report` on recorded programs: the functions and weights it prints are the ones the
// Firefox Profiler's own code (profiler-cli) computes from the same file, and the call structure
// of it_unwind (calc_thread -> outer_level -> middle_level -> {libm_heavy, sort_heavy ->
// std::sort -> compare_values}) shows in its trees.
#include <doctest/doctest.h>
#include <simdjson.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "pprof_raw.hpp"
#include "profiler_cli.hpp"
#include "profiler_cli_queries.hpp"
#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

constexpr const char* kUnwindPrefix = "it_unwind!(anonymous namespace)::";

ProcessResult sprof_report(const std::vector<std::string>& args) {
  std::vector<std::string> argv{kSprofExe, "report"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

struct ReportedFunction {
  uint64_t self = 0, total = 0;
  double self_percent = 0, total_percent = 0;
};

// "module!name" -> weights of the first section of `sprof report --json`, and its total weight.
struct ReportedFunctions {
  std::map<std::string, ReportedFunction> by_name;
  uint64_t weight = 0;
};

ReportedFunctions reported_functions(const std::string& json) {
  ReportedFunctions out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
  simdjson::dom::element section = doc["sections"].at(0);
  out.weight = uint64_t(section["weight"]);
  for (simdjson::dom::element f : simdjson::dom::array(section["functions"])) {
    ReportedFunction r{uint64_t(f["self"]), uint64_t(f["total"]), double(f["selfPercent"]),
                       double(f["totalPercent"])};
    out.by_name[std::string(std::string_view(f["module"])) + "!" +
                std::string(std::string_view(f["name"]))] = r;
  }
  return out;
}

std::string recorded_it_unwind(const std::string& dir, bool self_contained) {
  return record_it_unwind(dir + (self_contained ? "/p.json.gz" : "/g.json.gz"), "2", "2",
                          !self_contained);
}

}  // namespace

TEST_CASE("report: each thread's functions and weights are profiler-cli's for the same file") {
  skip_without_perf();
  const std::string dir = make_temp_dir("report-vs-profiler-cli");
  const std::string file = recorded_it_unwind(dir, true);
  auto cli = ProfilerCli::with_standalone(file);
  REQUIRE_MESSAGE(cli.has_value(), (cli ? "" : cli.error().message));
  const std::string info = cli->profile_info().out;
  int compared_threads = 0;
  for (const ThreadHandle& thread : all_threads(info)) {
    CAPTURE(thread.tid);
    const ProcessResult report =
        sprof_report({"--json", "--thread", std::to_string(thread.tid), file});
    INFO(report.err);
    REQUIRE(report.exit_code == 0);
    const ReportedFunctions ours = reported_functions(report.out);
    const ProcessResult theirs_json = cli->run(
        {"thread", "functions", "--thread", "t-" + std::to_string(thread.index), "--json"});
    REQUIRE(theirs_json.exit_code == 0);
    const auto theirs = function_weights(theirs_json.out);
    if (theirs.empty()) continue;  // a thread without samples
    ++compared_threads;
    // Every function either side lists, with the same self and total samples. The report has one
    // row per module and name; where profiler-cli lists a name more than once (an inlined
    // function sampled at lines of two files), the row counts each sample once, so its total
    // lies between the largest of theirs and their sum.
    for (const auto& [name, weight] : theirs) {
      CAPTURE(name);
      CAPTURE(weight.functions);
      const auto it = ours.by_name.find(name);
      REQUIRE(it != ours.by_name.end());
      CHECK(it->second.self == static_cast<uint64_t>(weight.self));
      if (weight.functions == 1) {
        CHECK(it->second.total == static_cast<uint64_t>(weight.total));
      } else {
        CHECK(it->second.total >= static_cast<uint64_t>(weight.largest_total));
        CHECK(it->second.total <= static_cast<uint64_t>(weight.total));
      }
    }
    CHECK(ours.by_name.size() == theirs.size());
    // Percentages are of the thread's samples with a stack, rounded to two decimals.
    for (const auto& [name, r] : ours.by_name) {
      CAPTURE(name);
      const double exact = 100.0 * static_cast<double>(r.total) / static_cast<double>(ours.weight);
      CHECK(std::abs(r.total_percent - exact) <= 0.005 + 1e-9);
    }
  }
  CHECK(compared_threads >= 2);
}

TEST_CASE("report: it_unwind's call structure in the tree and the callers") {
  skip_without_perf();
  const std::string dir = make_temp_dir("report-structure");
  const std::string file = recorded_it_unwind(dir, true);

  const ProcessResult list = sprof_report({"--json", file});
  REQUIRE(list.exit_code == 0);
  const ReportedFunctions functions = reported_functions(list.out);
  for (const char* name :
       {"calc_thread(int, long)", "outer_level(int)", "middle_level(int)", "libm_heavy(int)",
        "sort_heavy(int)", "compare_values(double, double)"}) {
    CAPTURE(name);
    CHECK(functions.by_name.count(kUnwindPrefix + std::string(name)) == 1);
  }
  // calc_thread also runs code of its own (naming the thread, the loop, the last clock read), so
  // a few of its samples may truthfully stop there. What the report must add up: the samples
  // under calc_thread but not under middle_level are exactly the folded stacks that hold the
  // one and not the other, and none of them reaches the work that only middle_level calls (a
  // stack that did would have lost its callers).
  const auto total_of = [&](const char* name) {
    return functions.by_name.at(kUnwindPrefix + std::string(name)).total;
  };
  const uint64_t calc = total_of("calc_thread(int, long)");
  const uint64_t middle = total_of("middle_level(int)");
  CHECK(calc >= total_of("outer_level(int)"));
  CHECK(total_of("outer_level(int)") >= middle);
  CHECK(middle >= total_of("libm_heavy(int)") + total_of("sort_heavy(int)"));
  const ProcessResult folded = run_process({kSprofExe, "export", "-f", "folded", file});
  REQUIRE(folded.exit_code == 0);
  uint64_t calc_without_middle = 0;
  std::istringstream stacks(folded.out);
  for (std::string line; std::getline(stacks, line);) {
    if (line.find("::calc_thread(int, long)") == std::string::npos) continue;
    if (line.find("::middle_level(int)") != std::string::npos) continue;
    CAPTURE(line);
    calc_without_middle += std::stoull(line.substr(line.rfind(' ') + 1));
    for (const char* heavy : {"::libm_heavy(int)", "::sort_heavy(int)", "::compare_values("}) {
      CHECK(line.find(heavy) == std::string::npos);
    }
  }
  CHECK(calc - middle == calc_without_middle);

  // The text tree names the chain in order, each level indented under the one before.
  const ProcessResult tree = sprof_report({"--tree", "--width", "200", file});
  INFO(tree.out);
  REQUIRE(tree.exit_code == 0);
  size_t at = 0;
  size_t indent = 0;
  for (const char* name :
       {"calc_thread(int, long)", "outer_level(int)", "middle_level(int)", "sort_heavy(int)"}) {
    CAPTURE(name);
    at = tree.out.find("(anonymous namespace)::" + std::string(name), at);
    REQUIRE(at != std::string::npos);
    const size_t line_start = tree.out.rfind('\n', at) + 1;
    const size_t this_indent = at - line_start;
    CHECK(this_indent > indent);
    indent = this_indent;
  }

  // compare_values is called (through std::sort's helpers) only from sort_heavy.
  const ProcessResult callers =
      sprof_report({"--callers", "(anonymous namespace)::compare_values(double, double)",
                    "--min-percent", "0", "--width", "200", file});
  INFO(callers.out);
  REQUIRE(callers.exit_code == 0);
  CHECK(callers.out.find("sort_heavy(int)") != std::string::npos);
  CHECK(callers.out.find("libm_heavy") == std::string::npos);
}

TEST_CASE("report: a Gecko file reads as its self-contained form does") {
  skip_without_perf();
  const std::string dir = make_temp_dir("report-gecko");
  const std::string gecko = recorded_it_unwind(dir, false);
  const ProcessResult from_gecko = sprof_report({"--json", "--tree", "--min-percent", "0", gecko});
  INFO(from_gecko.err);
  REQUIRE(from_gecko.exit_code == 0);
  const std::string symbolicated = dir + "/s.json.gz";
  REQUIRE(run_process({kSprofExe, "symbolicate", "-q", gecko, "-o", symbolicated}).exit_code == 0);
  const ProcessResult from_file =
      sprof_report({"--json", "--tree", "--min-percent", "0", symbolicated});
  REQUIRE(from_file.exit_code == 0);
  CHECK(from_gecko.out == from_file.out);
  CHECK(from_gecko.out.find("compare_values(double, double)") != std::string::npos);
}

TEST_CASE("export --format folded: the report's samples, one line per stack, root first") {
  skip_without_perf();
  const std::string dir = make_temp_dir("report-folded");
  const std::string file = recorded_it_unwind(dir, true);
  const ProcessResult folded = run_process({kSprofExe, "export", "-f", "folded", file});
  INFO(folded.err);
  REQUIRE(folded.exit_code == 0);
  const ProcessResult report = sprof_report({"--json", file});
  REQUIRE(report.exit_code == 0);
  uint64_t total = 0;
  uint64_t through_sort_heavy = 0;  // with sort_heavy as a frame
  uint64_t under_chain = 0;         // and below calc_thread > outer_level > middle_level
  std::istringstream lines(folded.out);
  // sort_heavy as a caller or as the leaf (its own loop around sin is sampled too).
  const std::string chain =
      "(anonymous namespace)::calc_thread(int, long);(anonymous namespace)::outer_level(int);"
      "(anonymous namespace)::middle_level(int);(anonymous namespace)::sort_heavy(int)";
  for (std::string line; std::getline(lines, line);) {
    const size_t space = line.rfind(' ');
    REQUIRE(space != std::string::npos);
    const uint64_t count = std::stoull(line.substr(space + 1));
    CHECK(count > 0);
    total += count;
    // As a caller (";" follows) or as the leaf (the count follows).
    if (line.find("(anonymous namespace)::sort_heavy(int);") != std::string::npos ||
        line.find("(anonymous namespace)::sort_heavy(int) ") != std::string::npos) {
      through_sort_heavy += count;
    }
    if (line.find(chain + ";") != std::string::npos ||
        line.find(chain + " ") != std::string::npos) {
      under_chain += count;
    }
  }
  const ReportedFunctions functions = reported_functions(report.out);
  CHECK(total == functions.weight);
  CHECK(through_sort_heavy ==
        functions.by_name.at(kUnwindPrefix + std::string("sort_heavy(int)")).total);
  // A stack the unwinder stopped early misses its callers; nearly all have them.
  CHECK(static_cast<double>(under_chain) >= 0.99 * static_cast<double>(through_sort_heavy));
}

TEST_CASE("export --format pprof: go tool pprof sees the report's functions and weights") {
  skip_without_perf();
  const std::string dir = make_temp_dir("report-pprof");
  const std::string file = recorded_it_unwind(dir, true);
  const std::string pprof = dir + "/cpu.pb.gz";
  const ProcessResult exported =
      run_process({kSprofExe, "export", "-f", "pprof", "-o", pprof, file});
  INFO(exported.err);
  REQUIRE(exported.exit_code == 0);
  const ProcessResult raw = go_tool_pprof({"-raw", pprof});
  if (raw.exit_code == 127 || raw.err.find("not found") != std::string::npos) {
    MESSAGE("go tool pprof is not installed (Debian: golang-go): pprof output not checked");
    return;
  }
  REQUIRE(raw.exit_code == 0);
  const PprofRaw parsed = parse_pprof_raw(raw.out);
  const auto weights = parsed.self_and_total(0);

  const ProcessResult report = sprof_report({"--json", file});
  REQUIRE(report.exit_code == 0);
  const ReportedFunctions ours = reported_functions(report.out);
  // pprof names functions without their module: compare the names only one module has.
  std::map<std::string, int> modules_per_name;
  for (const auto& [module_and_name, r] : ours.by_name) {
    ++modules_per_name[module_and_name.substr(module_and_name.find('!') + 1)];
  }
  size_t compared = 0;
  for (const auto& [module_and_name, r] : ours.by_name) {
    const std::string name = module_and_name.substr(module_and_name.find('!') + 1);
    if (modules_per_name[name] != 1) continue;
    CAPTURE(name);
    const auto it = weights.find(name);
    REQUIRE(it != weights.end());
    CHECK(it->second.first == static_cast<int64_t>(r.self));
    CHECK(it->second.second == static_cast<int64_t>(r.total));
    ++compared;
  }
  CHECK(compared >= 20);
  CHECK(weights.size() == modules_per_name.size());
  // Mappings carry the modules' paths and build ids.
  bool program_mapped = false;
  for (const std::string& m : parsed.mappings) {
    program_mapped = program_mapped || (m.find(target_path("it_unwind")) != std::string::npos &&
                                        m.find("[FN][FL][LN][IN]") != std::string::npos);
  }
  CHECK(program_mapped);

  // -top: plain C names are shown as they are, with the report's self and total.
  const ProcessResult top =
      go_tool_pprof({"-top", "-nodecount=1000", "-sample_index=samples", pprof});
  INFO(top.out);
  CHECK(top.out.find("Total samples = " + std::to_string(ours.weight) + " \n") !=
        std::string::npos);
  const ReportedFunction& fmod = ours.by_name.at("libm.so.6!__fmod_finite");
  std::istringstream lines(top.out);
  bool fmod_seen = false;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string flat, flat_percent, sum_percent, cum, cum_percent, name;
    fields >> flat >> flat_percent >> sum_percent >> cum >> cum_percent;
    std::getline(fields >> std::ws, name);
    if (name != "__fmod_finite") continue;
    fmod_seen = true;
    CHECK(flat == std::to_string(fmod.self));
    CHECK(cum == std::to_string(fmod.total));
  }
  CHECK(fmod_seen);
}
