// What `sprof load` reads of a saved profile in one parse (profile_overview.hpp): the summary
// facts, the format, and the libs' locations.
#include "sprof/profile/profile_overview.hpp"

#include <doctest/doctest.h>

#include <string>

using sprof::profile::ProfileFormat;
using sprof::profile::ProfileOverview;
using sprof::profile::read_profile_overview;

namespace {

// The overview of a document that must parse.
ProfileOverview summarize_profile(std::string_view json) {
  auto overview = read_profile_overview(json);
  REQUIRE(overview.has_value());
  return *overview;
}

ProfileOverview libs_of(std::string_view json) { return summarize_profile(json); }

std::string lib(const char* name, const char* id, const char* path) {
  return std::string(R"({"arch": "x86_64", "name": ")") + name + R"(", "path": ")" + path +
         R"(", "debugName": ")" + name + R"(", "debugPath": ")" + path + R"(", "breakpadId": ")" +
         id + R"(", "codeId": null, "start": 4096, "end": 8192, "offset": 0})";
}

}  // namespace

TEST_CASE("a profile summary counts processes by pid, threads, samples and lost records") {
  // Root process 10 with two threads, its exec'd image (same pid) and a child process 20.
  const char* json = R"({
    "meta": {"version": 36, "product": "sprof: app", "profilingStartTime": 0, "profilingEndTime": 1500,
             "sprof": {"lostRecords": 3, "lostSamples": 2}},
    "threads": [
      {"pid": 10, "tid": 10, "samples": {"data": [[0, 1], [0, 2]]}},
      {"pid": 10, "tid": 11, "samples": {"data": [[0, 3]]}}],
    "processes": [
      {"threads": [{"pid": 10, "tid": 10, "samples": {"data": [[0, 4]]}}]},
      {"threads": [{"pid": 20, "tid": 20, "samples": {"data": []}}]}]
  })";
  const auto s = summarize_profile(json);
  CHECK(s.format == ProfileFormat::kGecko);
  CHECK(s.product == "sprof: app");
  CHECK(s.duration_s == doctest::Approx(1.5));
  CHECK(s.processes == 2);
  CHECK(s.threads == 4);
  CHECK(s.samples == 4);
  CHECK(s.lost == 5);
}

TEST_CASE("a document that does not parse is an error that says why; other JSON is no profile") {
  const auto bad = read_profile_overview("{not json");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message.find("not valid JSON") != std::string::npos);
  const auto s = summarize_profile(R"({"a": 1})");
  CHECK(s.format == ProfileFormat::kUnknown);
  CHECK(s.product.empty());
  CHECK(s.threads == 0);
  CHECK(s.samples == 0);
  CHECK(summarize_profile("[]").format == ProfileFormat::kUnknown);
  CHECK(summarize_profile("5").libraries.empty());
}

TEST_CASE("a self-contained (processed) profile is summarized from its flat thread list") {
  // Processed tables count their rows in `length`; every process's threads are in one list.
  const char* json = R"({
    "meta": {"version": 36, "preprocessedProfileVersion": 42, "product": "sprof: app",
             "profilingStartTime": 0, "profilingEndTime": 500, "sprof": {"lostSamples": 1}},
    "threads": [
      {"pid": 10, "tid": 10, "samples": {"stack": [0, 1, 1], "time": [1, 2, 3], "length": 3}},
      {"pid": 20, "tid": 20, "samples": {"stack": [0], "time": [4], "length": 1}}]
  })";
  const auto s = summarize_profile(json);
  CHECK(s.format == ProfileFormat::kProcessed);
  CHECK(s.duration_s == doctest::Approx(0.5));
  CHECK(s.processes == 2);
  CHECK(s.threads == 2);
  CHECK(s.samples == 4);
  CHECK(s.lost == 1);
}

TEST_CASE("libs come from the top level and from every sub-process, each once") {
  const std::string profile =
      R"({"meta": {"version": 36}, "libs": [)" + lib("demo", "AA0", "/bin/demo") + "," +
      lib("libc.so.6", "BB0", "/lib/libc.so.6") +
      R"(], "threads": [{"name": "GeckoMain", "libs": "ignored"}], "processes": [{"libs": [)" +
      lib("child", "CC0", "/bin/child") + "," + lib("libc.so.6", "BB0", "/lib/libc.so.6") +
      R"(], "processes": []}]})";
  const auto libs = libs_of(profile).libraries;
  REQUIRE(libs.size() == 3);  // libc appears twice but is reported once
  CHECK(libs[0].debug_name == "demo");
  CHECK(libs[0].breakpad_id == "AA0");
  CHECK(libs[0].path == "/bin/demo");
  CHECK(libs[1].debug_name == "libc.so.6");
  CHECK(libs[1].path == "/lib/libc.so.6");
  CHECK(libs[2].debug_name == "child");
  CHECK(libs[2].breakpad_id == "CC0");
}

TEST_CASE("a lib's debugPath that differs from its path is a second location") {
  const auto libs =
      libs_of(
          R"({"libs": [{"debugName": "x", "breakpadId": "01", "debugPath": "/dbg/x", "path": "/bin/x"}]})")
          .libraries;
  REQUIRE(libs.size() == 2);
  CHECK(libs[0].path == "/bin/x");
  CHECK(libs[1].path == "/dbg/x");
}

TEST_CASE("a lib's location carries the codeId, the full build-id debuginfod needs") {
  const auto libs = libs_of(
                        R"({"libs": [{"debugName": "x", "breakpadId": "01", "path": "/bin/x",
                    "codeId": "0123456789abcdef0123456789abcdef01234567"},
                   {"debugName": "y", "breakpadId": "02", "path": "/bin/y", "codeId": null}]})")
                        .libraries;
  REQUIRE(libs.size() == 2);
  CHECK(libs[0].code_id == "0123456789abcdef0123456789abcdef01234567");
  CHECK(libs[1].code_id.empty());
}

TEST_CASE("incomplete, malformed or oversized libs are left out, the others kept") {
  CHECK(libs_of(R"({"libs": [{"debugName": "x", "path": "/x"}]})").libraries.empty());
  CHECK(libs_of(R"({"libs": [{"debugName": null, "breakpadId": "01", "path": "/x"}]})")
            .libraries.empty());
  CHECK(libs_of(R"({"libs": 5})").libraries.empty());
  const std::string long_path(5000, 'a');
  const auto libs =
      libs_of(R"({"libs": [5, "x", {"debugName": "y", "breakpadId": "02", "path": "/)" + long_path +
              R"("}, {"debugName": "x", "breakpadId": "01", "path": "/x"}]})")
          .libraries;
  REQUIRE(libs.size() == 1);
  CHECK(libs[0].path == "/x");
}

TEST_CASE("sub-profiles nested deeper than any real profile are not followed") {
  std::string json = R"({"meta": {"version": 36}, "threads": [{"pid": 1}])";
  for (int depth = 0; depth < 20; ++depth) json += R"(, "processes": [{"threads": [{"pid": 2}])";
  for (int depth = 0; depth < 20; ++depth) json += "}]";
  json += "}";
  const auto s = summarize_profile(json);
  CHECK(s.threads == 9);  // the top level and eight levels of sub-profiles
}
