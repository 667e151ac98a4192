#include <doctest/doctest.h>

#include "sprof/api/profile_summary.hpp"

using sprof::api::summarize_profile;

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
  CHECK(s.is_gecko_profile);
  CHECK(s.product == "sprof: app");
  CHECK(s.duration_s == doctest::Approx(1.5));
  CHECK(s.processes == 2);
  CHECK(s.threads == 4);
  CHECK(s.samples == 4);
  CHECK(s.lost == 5);
}

TEST_CASE("a document that does not parse gives an empty summary") {
  const auto s = summarize_profile("{not json");
  CHECK_FALSE(s.is_gecko_profile);
  CHECK_FALSE(summarize_profile(R"({"a": 1})").is_gecko_profile);
  CHECK(s.product.empty());
  CHECK(s.threads == 0);
  CHECK(s.samples == 0);
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
  CHECK(s.is_gecko_profile);
  CHECK(s.duration_s == doctest::Approx(0.5));
  CHECK(s.processes == 2);
  CHECK(s.threads == 2);
  CHECK(s.samples == 4);
  CHECK(s.lost == 1);
}
