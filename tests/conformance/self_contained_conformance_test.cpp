// Loads self-contained profiles (the processed format sprof writes with embedded symbols) with
// the Firefox Profiler's own code (profiler-cli), with no symbol server and symbolication off:
// the names, inline frames and source lines must come from the file alone, and everything else
// must arrive exactly as from the Gecko form of the same profile.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <set>

#include "profiler_cli.hpp"
#include "sprof/profile/gecko_writer.hpp"
#include "sprof/profile/processed_writer.hpp"
#include "sprof_test/json_query.hpp"
#include "sprof_test/processed_validator.hpp"
#include "sprof_test/sample_profile.hpp"

namespace fs = std::filesystem;
using sprof::test::JsonDoc;
using sprof::test::ProcessResult;
using sprof::test::ProfilerCli;
using F = sprof::test::SampleProfileFacts;
using S = sprof::test::SampleSymbolFacts;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("sprof-sc-conformance-" + std::to_string(getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

std::string write_self_contained(const TempDir& dir) {
  const auto profile = sprof::test::make_sample_profile();
  const std::string path = (dir.path / "self-contained.json.gz").string();
  REQUIRE(
      sprof::profile::write_processed_file(profile, sprof::test::make_sample_symbols(profile), path)
          .has_value());
  auto text = sprof::test::read_profile_text(path);
  REQUIRE(text.has_value());
  const auto problems = sprof::test::check_processed_profile(*text);
  INFO(sprof::test::join_problems(problems));
  REQUIRE(problems.empty());
  return path;
}

ProfilerCli loaded_standalone(const std::string& path) {
  auto cli = ProfilerCli::with_standalone(path);
  REQUIRE_MESSAGE(cli.has_value(), (cli ? "" : cli.error().message));
  return std::move(*cli);
}

JsonDoc json_of(ProfilerCli& cli, std::vector<std::string> args) {
  const ProcessResult r = cli.run(std::move(args));
  INFO("stderr:\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return JsonDoc(r.out);
}

// "t-N" of the thread with `tid` in `profile info --all --json`.
std::string handle_of(ProfilerCli& cli, int64_t tid) {
  const JsonDoc info = json_of(cli, {"profile", "info", "--all", "--json"});
  for (size_t p = 0; p < info.size("/processes").value_or(0); ++p) {
    const std::string proc = "/processes/" + std::to_string(p);
    for (size_t t = 0; t < info.size(proc + "/threads").value_or(0); ++t) {
      const std::string th = proc + "/threads/" + std::to_string(t);
      if (info.integer(th + "/tid") == tid) return std::string(*info.string(th + "/threadHandle"));
    }
  }
  FAIL("no thread with tid " << tid);
  return "";
}

// Depth-first search of a `samples-top-down --json` call tree; returns the JSON pointer of the
// first node that `match` accepts.
std::optional<std::string> find_node(const JsonDoc& tree, const std::string& node,
                                     const std::function<bool(const std::string&)>& match) {
  if (match(node)) return node;
  for (size_t i = 0; i < tree.size(node + "/children").value_or(0); ++i) {
    if (auto found = find_node(tree, node + "/children/" + std::to_string(i), match)) return found;
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE("with no symbol server, a self-contained profile shows its embedded names") {
  TempDir dir;
  ProfilerCli cli = loaded_standalone(write_self_contained(dir));
  const JsonDoc meta = json_of(cli, {"profile", "meta", "--json"});
  CHECK(meta.boolean("/symbolicated") == true);
  const std::string main = handle_of(cli, F::kRootPid);
  const JsonDoc samples = json_of(cli, {"thread", "samples", "--thread", main, "--json"});
  std::set<std::string> names;
  for (size_t i = 0; i < samples.size("/topFunctionsByTotal").value_or(0); ++i) {
    names.emplace(
        *samples.string("/topFunctionsByTotal/" + std::to_string(i) + "/nameWithLibrary"));
  }
  std::string all;
  for (const auto& n : names) all += n + "\n";
  INFO("functions:\n" << all);
  CHECK(names.count(std::string("demo!") + S::kDemoLeafFunction) == 1);
  CHECK(names.count(std::string("demo!") + S::kInlineInner) == 1);
  CHECK(names.count(std::string("libc.so.6!") + S::kLibcFunction) == 1);
}

TEST_CASE("inline frames are marked inlined in the call tree") {
  TempDir dir;
  ProfilerCli cli = loaded_standalone(write_self_contained(dir));
  const std::string main = handle_of(cli, F::kRootPid);
  const JsonDoc tree = json_of(cli, {"thread", "samples-top-down", "--thread", main, "--json"});
  const auto node = find_node(tree, "/regularCallTree", [&](const std::string& n) {
    return tree.string(n + "/name") == S::kInlineInner;
  });
  REQUIRE(node.has_value());
  CHECK(tree.string(*node + "/inlineStatus") == "inlined");
  // Its parent chain ends in the function it was inlined into.
  const auto outer = find_node(tree, "/regularCallTree", [&](const std::string& n) {
    return tree.string(n + "/name") == S::kDemoLeafFunction;
  });
  REQUIRE(outer.has_value());
  CHECK_FALSE(tree.has(*outer + "/inlineStatus"));
}

TEST_CASE("source lines of a function come from the file") {
  TempDir dir;
  ProfilerCli cli = loaded_standalone(write_self_contained(dir));
  const std::string main = handle_of(cli, F::kRootPid);
  const JsonDoc samples = json_of(cli, {"thread", "samples", "--thread", main, "--json"});
  std::string handle;
  for (size_t i = 0; i < samples.size("/topFunctionsByTotal").value_or(0); ++i) {
    const std::string f = "/topFunctionsByTotal/" + std::to_string(i);
    if (samples.string(f + "/nameWithLibrary") == std::string("demo!") + S::kInlineInner) {
      handle = *samples.string(f + "/functionHandle");
    }
  }
  REQUIRE_FALSE(handle.empty());
  const JsonDoc annotation = json_of(cli, {"function", "annotate", handle, "--json"});
  CHECK(annotation.string("/srcAnnotation/filename") == S::kInlineFile);
  bool line_hit = false;
  for (size_t i = 0; i < annotation.size("/srcAnnotation/lines").value_or(0); ++i) {
    const std::string line = "/srcAnnotation/lines/" + std::to_string(i);
    if (annotation.integer(line + "/lineNumber") == S::kInlineInnerLine) {
      line_hit = annotation.integer(line + "/selfSamples").value_or(0) > 0;
    }
  }
  CHECK(line_hit);
}

TEST_CASE("threads, CPU time and markers arrive as from the Gecko form of the same profile") {
  TempDir dir;
  const std::string gecko = (dir.path / "gecko.json").string();
  REQUIRE(sprof::profile::write_gecko_file(sprof::test::make_sample_profile(), gecko).has_value());
  ProfilerCli from_gecko = loaded_standalone(gecko);
  ProfilerCli from_processed = loaded_standalone(write_self_contained(dir));
  const JsonDoc a = json_of(from_gecko, {"profile", "info", "--all", "--json"});
  const JsonDoc b = json_of(from_processed, {"profile", "info", "--all", "--json"});
  CHECK(a.integer("/processCount") == b.integer("/processCount"));
  CHECK(a.integer("/threadCount") == b.integer("/threadCount"));
  for (const int64_t tid : {F::kRootPid, F::kWorkerTid, F::kChildPid, F::kGrandchildPid}) {
    const std::string ha = handle_of(from_gecko, tid);
    const std::string hb = handle_of(from_processed, tid);
    const JsonDoc ta = json_of(from_gecko, {"thread", "info", "--thread", ha, "--json"});
    const JsonDoc tb = json_of(from_processed, {"thread", "info", "--thread", hb, "--json"});
    INFO("tid " << tid);
    CHECK(ta.string("/friendlyName") == tb.string("/friendlyName"));
    CHECK(ta.integer("/sampleCount") == tb.integer("/sampleCount"));
    CHECK(ta.integer("/markerCount") == tb.integer("/markerCount"));
    CHECK(ta.number("/createdAt") == tb.number("/createdAt"));
    const JsonDoc ma =
        json_of(from_gecko, {"thread", "markers", "--thread", ha, "--list", "--json"});
    const JsonDoc mb =
        json_of(from_processed, {"thread", "markers", "--thread", hb, "--list", "--json"});
    REQUIRE(ma.size("/flatMarkers") == mb.size("/flatMarkers"));
    for (size_t i = 0; i < ma.size("/flatMarkers").value_or(0); ++i) {
      const std::string m = "/flatMarkers/" + std::to_string(i);
      CHECK(ma.string(m + "/name") == mb.string(m + "/name"));
      CHECK(ma.string(m + "/label") == mb.string(m + "/label"));
      CHECK(ma.number(m + "/start") == mb.number(m + "/start"));
    }
  }
  const JsonDoc idle_a =
      json_of(from_gecko, {"thread", "samples", "--thread", handle_of(from_gecko, F::kRootPid),
                           "--include-idle", "--json"});
  const JsonDoc idle_b =
      json_of(from_processed, {"thread", "samples", "--thread",
                               handle_of(from_processed, F::kRootPid), "--include-idle", "--json"});
  CHECK(idle_a.integer("/categoryBreakdown/totalSamples") ==
        idle_b.integer("/categoryBreakdown/totalSamples"));
}
