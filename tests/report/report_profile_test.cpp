#include "sprof/report/report_profile.hpp"

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>

#include "report_profile_builder.hpp"
#include "sprof/report/thread_selection.hpp"

namespace sprof::report {
namespace {

using test::report_profile_json;

const ReportThread& thread_named(const ReportProfile& p, const std::string& name) {
  for (const ReportThread& t : p.threads) {
    if (t.name == name) return t;
  }
  FAIL("no thread " << name);
  return p.threads.front();
}

// The function names of a stack, root first.
std::string path_of(const ReportProfile& p, const ReportThread& t, uint32_t stack) {
  std::string path;
  for (std::optional<uint32_t> s = stack; s; s = t.stacks[*s].prefix) {
    path = p.functions[t.stacks[*s].function].name + (path.empty() ? "" : ";" + path);
  }
  return path;
}

// Replaces the first `from` in `text`; fails the test when it is not there.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  return text.replace(at, from.size(), to);
}

TEST_CASE("a self-contained profile reads back as named stacks with inline frames") {
  auto p = read_processed_profile(report_profile_json());
  REQUIRE_MESSAGE(p.has_value(), p.error().message);
  REQUIRE(p->threads.size() == 2);
  const ReportThread& main = thread_named(*p, "main");
  CHECK(main.pid == 100);
  CHECK(main.tid == 100);
  CHECK(main.process_name == "app");
  CHECK(main.samples == 11);
  CHECK(main.samples_without_stack == 0);
  CHECK(main.idle_samples == 1);
  std::map<std::string, uint64_t> weight_by_path;
  for (uint32_t s = 0; s < main.stacks.size(); ++s) {
    if (main.stack_weight[s] != 0) weight_by_path[path_of(*p, main, s)] += main.stack_weight[s];
  }
  CHECK(weight_by_path == std::map<std::string, uint64_t>{{"main;compute;leaf;inlined_helper", 6},
                                                          {"main;compute", 2},
                                                          {"main;recurse;recurse", 2}});
  CHECK(main.stack_cpu_ns[main.stacks.size() - 1] + 0 <= 10 * 1000000);
  const ReportThread& worker = thread_named(*p, "worker");
  CHECK(worker.samples == 5);
  CHECK(worker.samples_without_stack == 1);
  for (const Function& f : p->functions) CHECK(f.module == (f.name == "schedule" ? "" : "app"));
  CHECK(p->meta.symbolicated);
  CHECK(p->meta.interval_ms == 1);
  REQUIRE(p->meta.sprof_value("event") != nullptr);
  CHECK(std::get<std::string>(*p->meta.sprof_value("event")) == "cpu-clock");
  CHECK(std::get<int64_t>(*p->meta.sprof_value("lostSamples")) == 3);
}

TEST_CASE("idle samples are left out unless asked for") {
  auto with_idle = read_processed_profile(report_profile_json(), {.include_idle = true});
  REQUIRE(with_idle.has_value());
  const ReportThread& main = thread_named(*with_idle, "main");
  CHECK(main.idle_samples == 0);
  uint64_t weight = 0;
  for (uint32_t s = 0; s < main.stacks.size(); ++s) {
    weight += main.stack_weight[s];
    if (main.stack_weight[s] != 0 &&
        with_idle->functions[main.stacks[s].function].name == "schedule") {
      CHECK(path_of(*with_idle, main, s) == "main;compute;schedule");
      CHECK(main.stack_weight[s] == 1);
    }
  }
  CHECK(weight == 11);
}

TEST_CASE("functions are shared by threads: one id per name and module") {
  auto p = read_processed_profile(report_profile_json());
  REQUIRE(p.has_value());
  std::set<std::string> names;
  for (const Function& f : p->functions) CHECK(names.insert(f.name).second);
  CHECK(names == std::set<std::string>{"main", "compute", "leaf", "inlined_helper", "recurse",
                                       "worker_entry", "schedule"});
}

TEST_CASE("input that is not a readable processed profile is an error naming why") {
  const std::string good = report_profile_json();
  SUBCASE("truncated") {
    auto p = read_processed_profile(good.substr(0, good.size() / 2));
    REQUIRE_FALSE(p.has_value());
    CHECK(p.error().code == Errc::kMalformed);
    CHECK(p.error().message.find("not valid JSON") != std::string::npos);
  }
  SUBCASE("a Gecko profile") {
    auto p = read_processed_profile(R"({"meta":{"version":36},"threads":[]})");
    REQUIRE_FALSE(p.has_value());
    CHECK(p.error().code == Errc::kUnsupported);
  }
  SUBCASE("not an object") {
    CHECK_FALSE(read_processed_profile("[1,2,3]").has_value());
    CHECK_FALSE(read_processed_profile("").has_value());
  }
  SUBCASE("a stack whose prefix does not come before it") {
    auto p = read_processed_profile(replaced(good, R"("prefix":[null,0)", R"("prefix":[null,5)"));
    REQUIRE_FALSE(p.has_value());
    CHECK(p.error().code == Errc::kMalformed);
    CHECK(p.error().message.find("threads[0].stackTable.prefix[1]") != std::string::npos);
  }
  SUBCASE("a sample on a stack that does not exist") {
    auto p = read_processed_profile(replaced(good, R"("stack":[)", R"("stack":[99999,)"));
    REQUIRE_FALSE(p.has_value());
    CHECK(p.error().message.find("samples.stack[0]") != std::string::npos);
  }
  SUBCASE("a func name outside the string array") {
    auto p = read_processed_profile(
        replaced(good, R"("funcTable":{"name":[)", R"("funcTable":{"name":[123456,)"));
    REQUIRE_FALSE(p.has_value());
    CHECK(p.error().message.find("funcTable.name[0]") != std::string::npos);
  }
  SUBCASE("no threads") {
    auto p = read_processed_profile(replaced(good, R"("threads":[)", R"("threadz":[)"));
    REQUIRE_FALSE(p.has_value());
    CHECK(p.error().message.find("no threads") != std::string::npos);
  }
}

TEST_CASE("threads are selected by name or tid, processes by name or pid") {
  auto p = read_processed_profile(report_profile_json());
  REQUIRE(p.has_value());
  const auto names = [](const ThreadSet& set) {
    std::vector<std::string> out;
    for (const ReportThread* t : set) out.push_back(t->name);
    return out;
  };
  CHECK(names(*select_threads(*p, {})) == std::vector<std::string>{"main", "worker"});
  CHECK(names(*select_threads(*p, {"", "worker"})) == std::vector<std::string>{"worker"});
  CHECK(names(*select_threads(*p, {"", "101"})) == std::vector<std::string>{"worker"});
  CHECK(names(*select_threads(*p, {"app", "100"})) == std::vector<std::string>{"main"});
  CHECK(names(*select_threads(*p, {"100", ""})).size() == 2);
  auto missing = select_threads(*p, {"", "nope"});
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == Errc::kNotFound);
  CHECK(missing.error().message ==
        "no thread nope in the profile; threads: main (100), worker (101)");
  auto no_process = select_threads(*p, {"200", ""});
  REQUIRE_FALSE(no_process.has_value());
  CHECK(no_process.error().message == "no process 200 in the profile; processes: app (100)");
}

}  // namespace
}  // namespace sprof::report
