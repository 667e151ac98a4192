// The validator must be able to fail: each case breaks one rule of docs/firefox-profiler-format.md,
// "what the UI requires", in an otherwise valid profile and expects a problem naming it.
#include "sprof_test/gecko_validator.hpp"

#include <doctest/doctest.h>

#include "sprof/profile/gecko_writer.hpp"
#include "sprof_test/sample_profile.hpp"

namespace {

const std::string& valid_json() {
  static const std::string json =
      sprof::profile::gecko_json_string(sprof::test::make_sample_profile());
  return json;
}

// `valid_json()` with the first occurrence of `from` replaced by `to`.
std::string broken(std::string_view from, std::string_view to) {
  std::string json = valid_json();
  const size_t at = json.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "fixture lacks: ", std::string(from));
  json.replace(at, from.size(), to);
  return json;
}

bool reports(const std::string& json, std::string_view what) {
  const auto problems = sprof::test::check_gecko_profile(json);
  for (const std::string& p : problems) {
    if (p.find(what) != std::string::npos) return true;
  }
  INFO("problems were:\n", sprof::test::join_problems(problems));
  return false;
}

}  // namespace

TEST_CASE("the validator accepts the valid fixture") {
  CHECK(sprof::test::check_gecko_profile(valid_json()).empty());
}

TEST_CASE("the validator rejects each broken format rule") {
  SUBCASE("version 37") {
    CHECK(reports(broken("\"version\":36", "\"version\":37"), "version is not 36"));
  }
  SUBCASE("processed marker") {
    CHECK(reports(broken("\"version\":36", "\"version\":36,\"preprocessedProfileVersion\":70"),
                  "preprocessedProfileVersion"));
  }
  SUBCASE("schema fields instead of data") {
    CHECK(reports(broken("\"data\":[{\"key\":\"syscall\"", "\"fields\":[{\"key\":\"syscall\""),
                  "has no data array"));
  }
  SUBCASE("missing sampleUnits") {
    CHECK(reports(broken("\"sampleUnits\"", "\"sampleUnitz\""), "sampleUnits"));
  }
  SUBCASE("no grey category") {
    std::string json = valid_json();
    for (size_t at; (at = json.find("\"grey\"")) != std::string::npos;)
      json.replace(at, 6, "\"blue\"");
    CHECK(reports(json, "no grey category"));
  }
  SUBCASE("libs out of order") {
    CHECK(reports(broken("\"start\":93824992239616", "\"start\":1"), "overlapping"));
  }
  SUBCASE("unaligned value above 2^53") {
    CHECK(reports(broken("18446744071593529344", "18446744071593529345"), "multiple of 4096"));
  }
  SUBCASE("debugName with a slash") {
    CHECK(reports(broken("\"debugName\":\"demo\"", "\"debugName\":\"a/demo\""), "debugName"));
  }
  SUBCASE("breakpadId inconsistent with codeId") {
    CHECK(reports(broken("F3D00F0CB6FB0BDD9B1E1C1A7FE2D1E30", "F3D00F0CB6FB0BDD9B1E1C1A7FE2D1E31"),
                  "does not derive from codeId"));
  }
  SUBCASE("samples schema without eventDelay") {
    CHECK(reports(broken("\"eventDelay\":2", "\"eventDelai\":2"), "lacks key eventDelay"));
  }
  SUBCASE("stack prefix not before its index") {
    CHECK(reports(broken("[[null,0],[0,1]", "[[null,0],[1,1]"), "prefix is not < its own index"));
  }
  SUBCASE("decreasing sample time") {
    CHECK(reports(broken("[2,2,null,1000000]", "[2,0.5,null,1000000]"), "time decreases"));
  }
  SUBCASE("fractional CPU delta") {
    CHECK(reports(broken("[2,2,null,1000000]", "[2,2,null,1000000.5]"), "threadCPUDelta"));
  }
  SUBCASE("instant marker with an end time") {
    CHECK(reports(broken(",0.5,null,0,0,null]", ",0.5,0.7,0,0,null]"), "nullness does not match"));
  }
  SUBCASE("uppercase hex location") {
    CHECK(reports(broken("\"0x555555555123\"", "\"0x555555555ABC\""), "^0x[0-9a-f]+$"));
  }
  SUBCASE("unique-string field out of range") {
    CHECK(reports(broken("\"ret\":4096,\"path\":", "\"ret\":4096,\"path\":9999,\"x\":"),
                  "payload field path"));
  }
  SUBCASE("nested processes") {
    CHECK(reports(broken("\"processes\":[]}", "\"processes\":[{}]}"), "nested"));
  }
  SUBCASE("invalid UTF-8") {
    CHECK(reports(broken("GeckoMain", "Gecko\xffMain"), "not valid JSON"));
  }
  SUBCASE("string index out of range") {
    CHECK(reports(broken("\"data\":[[0,false,", "\"data\":[[999,false,"),
                  "location is not a valid string index"));
  }
}
