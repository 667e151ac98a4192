// Library hints from Gecko profiles.
#include <doctest/doctest.h>

#include <string>

#include "sprof/api/profile_libraries.hpp"

namespace {

using sprof::api::library_hints_from_profile;

std::string lib(const char* name, const char* id, const char* path) {
  return std::string(R"({"arch": "x86_64", "name": ")") + name + R"(", "path": ")" + path +
         R"(", "debugName": ")" + name + R"(", "debugPath": ")" + path + R"(", "breakpadId": ")" +
         id + R"(", "codeId": null, "start": 4096, "end": 8192, "offset": 0})";
}

}  // namespace

TEST_CASE("library hints come from the top-level libs and from every sub-process") {
  const std::string profile =
      R"({"meta": {"version": 36}, "libs": [)" + lib("demo", "AA0", "/bin/demo") + "," +
      lib("libc.so.6", "BB0", "/lib/libc.so.6") +
      R"(], "threads": [{"name": "GeckoMain", "libs": "ignored"}], "processes": [{"libs": [)" +
      lib("child", "CC0", "/bin/child") + "," + lib("libc.so.6", "BB0", "/lib/libc.so.6") +
      R"(], "processes": []}]})";
  const auto hints = library_hints_from_profile(profile);
  REQUIRE(hints.size() == 3);  // libc appears twice but is reported once
  CHECK(hints[0].debug_name == "demo");
  CHECK(hints[0].breakpad_id == "AA0");
  CHECK(hints[0].path == "/bin/demo");
  CHECK(hints[1].debug_name == "libc.so.6");
  CHECK(hints[1].path == "/lib/libc.so.6");
  CHECK(hints[2].debug_name == "child");
  CHECK(hints[2].breakpad_id == "CC0");
}

TEST_CASE("library hints include a debugPath that differs from the path") {
  const auto hints = library_hints_from_profile(
      R"({"libs": [{"debugName": "x", "breakpadId": "01", "debugPath": "/dbg/x", "path": "/bin/x"}]})");
  REQUIRE(hints.size() == 2);
  CHECK(hints[0].path == "/bin/x");
  CHECK(hints[1].path == "/dbg/x");
}

TEST_CASE("library hints carry the codeId, the full build-id debuginfod needs") {
  const auto hints = library_hints_from_profile(
      R"({"libs": [{"debugName": "x", "breakpadId": "01", "path": "/bin/x",
                    "codeId": "0123456789abcdef0123456789abcdef01234567"},
                   {"debugName": "y", "breakpadId": "02", "path": "/bin/y", "codeId": null}]})");
  REQUIRE(hints.size() == 2);
  CHECK(hints[0].code_id == "0123456789abcdef0123456789abcdef01234567");
  CHECK(hints[1].code_id.empty());
}

TEST_CASE("library hints skip incomplete libs and survive invalid profiles") {
  CHECK(library_hints_from_profile(R"({"libs": [{"debugName": "x", "path": "/x"}]})").empty());
  CHECK(library_hints_from_profile(R"({"libs": [{"debugName": null, "breakpadId": "01",
      "path": "/x"}]})").empty());
  CHECK(library_hints_from_profile("not json").empty());
  CHECK(library_hints_from_profile("[]").empty());
  CHECK(library_hints_from_profile(R"({"libs": 5})").empty());
  const auto partial = library_hints_from_profile(
      R"({"libs": [{"debugName": "x", "breakpadId": "01", "path": "/x"}, {"debugName": )");
  CHECK(partial.size() <= 1);
}
