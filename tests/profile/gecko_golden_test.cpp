// Golden test: the sample profile's JSON, re-indented, must equal
// tests/data/profile/<case>.expected.json. On mismatch the output is written beside it as
// <case>.actual.json; SPROF_UPDATE_GOLDEN=1 rewrites the expected file instead.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "json_pretty.hpp"
#include "sprof/profile/gecko_writer.hpp"
#include "sprof_test/paths.hpp"
#include "sprof_test/sample_profile.hpp"

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return std::move(out).str();
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// "line N: expected ... / actual ..." for the first differing line.
std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::string el, al;
  for (int line = 1;; ++line) {
    const bool has_e = static_cast<bool>(std::getline(e, el));
    const bool has_a = static_cast<bool>(std::getline(a, al));
    if (!has_e && !has_a) return "identical";
    if (!has_e || !has_a || el != al) {
      return "line " + std::to_string(line) + ":\n  expected: " + (has_e ? el : "<end>") +
             "\n  actual:   " + (has_a ? al : "<end>");
    }
  }
}

void check_golden(const std::string& name, const std::string& actual) {
  const fs::path dir = fs::path(sprof::test::kTestDataDir) / "profile";
  const fs::path expected_path = dir / (name + ".expected.json");
  const fs::path actual_path = dir / (name + ".actual.json");
  const char* update = std::getenv("SPROF_UPDATE_GOLDEN");
  if (update && std::string_view(update) == "1") {
    fs::create_directories(dir);
    write_text(expected_path, actual);
    MESSAGE("rewrote ", expected_path.string());
    return;
  }
  REQUIRE_MESSAGE(fs::exists(expected_path), "missing golden ", expected_path.string(),
                  " (run with SPROF_UPDATE_GOLDEN=1 to create it)");
  const std::string expected = read_text(expected_path);
  if (expected == actual) {
    fs::remove(actual_path);
    return;
  }
  write_text(actual_path, actual);
  FAIL_CHECK("golden mismatch, wrote ", actual_path.string(), "\n",
             first_difference(expected, actual));
}

}  // namespace

TEST_CASE("the sample profile's JSON matches its golden file") {
  check_golden("sample", sprof::test::pretty_json(sprof::profile::gecko_json_string(
                             sprof::test::make_sample_profile())));
}
