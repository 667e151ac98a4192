// `sprof symbolicate` on files it did not record: the hand-built sample profile (whose libs exist
// nowhere), a file that is self-contained already, and a file that is no profile.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_test_support.hpp"
#include "sprof/profile/gecko_writer.hpp"
#include "sprof/profile/profile_reader.hpp"
#include "sprof_test/processed_validator.hpp"
#include "sprof_test/sample_profile.hpp"

namespace fs = std::filesystem;
using namespace sprof::test;

TEST_CASE(
    "symbolicate makes a Gecko file self-contained in place and lists modules it cannot find") {
  CliTempDir dir("sprof-cli-test-");
  const std::string path = (dir.path / "old.json.gz").string();
  REQUIRE(sprof::profile::write_gecko_file(make_sample_profile(), path).has_value());
  const ProcessResult r = run_sprof({"symbolicate", path});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find(path + " is self-contained") != std::string::npos);
  // None of the sample's libs exist on this machine: each is named with its reason.
  CHECK(r.err.find("no symbols for demo: ") != std::string::npos);
  auto text = read_profile_text(path);
  REQUIRE(text.has_value());
  CHECK(sprof::profile::detect_profile_format(*text) == sprof::profile::ProfileFormat::kProcessed);
  GeckoCheckOptions options;
  options.expect_idle_category = true;
  const auto problems = check_processed_profile(*text, options);
  INFO(join_problems(problems));
  CHECK(problems.empty());
  // No temporary file is left beside it.
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);

  // Running it again on the result changes nothing.
  const ProcessResult again =
      run_sprof({"symbolicate", path, "-o", (dir.path / "copy.json.gz").string()});
  CHECK(again.exit_code == 0);
  CHECK(again.err.find("self-contained already") != std::string::npos);
  CHECK(read_profile_text((dir.path / "copy.json.gz").string()).value_or("") == *text);
}

TEST_CASE("a profile that is not valid JSON is refused with the reason, not as 'no meta.version'") {
  CliTempDir dir("sprof-cli-test-");
  struct Case {
    const char* name;
    std::string text;
    const char* reason;
  };
  const std::string meta = R"({"meta": {"version": 36}, "x": )";
  const std::vector<Case> cases = {
      {"trailing", meta + "1} garbage", "text after the end"},
      {"nan", meta + "NaN}", "such as NaN"},
      {"surrogate", meta + R"("\ud800"})", "lone UTF-16 surrogate"},
      {"utf8", meta + "\"\xff\"}", "not valid UTF-8"},
      {"bigint", meta + "18446744073709551616}", "an integer of 2^64 or more"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::string path = (dir.path / (std::string(c.name) + ".json")).string();
    std::ofstream(path, std::ios::binary) << c.text;
    for (const std::vector<std::string>& command :
         {std::vector<std::string>{"symbolicate", path}, {"load", "--no-open", path}}) {
      CAPTURE(command.front());
      std::vector<std::string> argv{kSprofExe};
      argv.insert(argv.end(), command.begin(), command.end());
      RunOptions options;
      options.timeout = std::chrono::seconds(60);  // `load` of a file it accepted would serve
      const ProcessResult r = run_process(argv, options);
      INFO(r.err);
      CHECK_FALSE(r.timed_out);
      CHECK(r.exit_code == 1);
      CHECK(r.err.find(path + ": profile: not valid JSON: ") != std::string::npos);
      CHECK(r.err.find(c.reason) != std::string::npos);
      CHECK(r.err.find("meta.version") == std::string::npos);
    }
  }
}

// A profile of `mib` MiB of JSON that fills simdjson's buffers most: small numbers in an array.
void write_zeros_profile(const std::string& path, int mib) {
  std::ofstream out(path, std::ios::binary);
  out << R"({"meta": {"version": 36}, "libs": [], "threads": [], "x": [0)";
  std::string zeros;
  for (int i = 0; i < (1 << 19); ++i) zeros += ",0";
  for (int i = 0; i < mib; ++i) out << zeros;
  out << "]}";
}

// The number after "larger than " in `message`, or 0.
uint64_t limit_in(const std::string& message) {
  const auto at = message.find("larger than ");
  return at == std::string::npos ? 0 : std::stoull(message.substr(at + 12));
}

TEST_CASE(
    "a profile too large for the memory sprof may use is refused with its size and the limit") {
  if (std::string(sprof::test::kSprofSanitizers).find("address") != std::string::npos) {
    // ASan reserves terabytes of address space for its shadow: it cannot start under this limit.
    MESSAGE("skipped: ASan cannot run within a 300 MiB address space");
    return;
  }
  CliTempDir dir("sprof-cli-test-");
  // 40 MiB of JSON, whose parse may take 16 times as much: under a 300 MiB address space it is
  // refused before it is read, with both sizes (before, the parse itself ran out of memory).
  const std::string path = (dir.path / "large.json").string();
  write_zeros_profile(path, 40);
  const uint64_t address_space = uint64_t{300} << 20;
  const ProcessResult r = run_process(
      {"prlimit", "--as=" + std::to_string(address_space), kSprofExe, "symbolicate", path});
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("cannot read " + path + ": " + path + ": " +
                   std::to_string(fs::file_size(path)) + " bytes, larger than ") !=
        std::string::npos);
  CHECK(r.err.find("MiB of memory available") != std::string::npos);
  const uint64_t limit = limit_in(r.err);
  CHECK(limit > 0);
  CHECK(limit <= address_space / 16);

  // `sprof load` of it gzipped (about 40 KiB): refused while inflating, once past the limit.
  const std::string gzipped = (dir.path / "large.json.gz").string();
  REQUIRE(std::system(("gzip -c " + path + " > " + gzipped).c_str()) == 0);
  const ProcessResult load = run_process({"prlimit", "--as=" + std::to_string(address_space),
                                          kSprofExe, "load", "-n", "--no-debuginfod", gzipped});
  INFO(load.err);
  CHECK(load.exit_code == 3);
  CHECK(load.err.find("cannot load the profile: " + gzipped + ": its JSON text is larger than ") !=
        std::string::npos);
  CHECK(limit_in(load.err) <= address_space / 16);
  CHECK(load.err.find("serving") == std::string::npos);
}

TEST_CASE("symbolicate reads a profile that starts with a UTF-8 byte order mark") {
  CliTempDir dir("sprof-cli-test-");
  const std::string plain = (dir.path / "plain.json").string();
  REQUIRE(sprof::profile::write_gecko_file(make_sample_profile(), plain).has_value());
  const auto text = read_profile_text(plain);
  REQUIRE(text.has_value());
  const std::string path = (dir.path / "bom.json").string();
  std::ofstream(path, std::ios::binary) << "\xEF\xBB\xBF" << *text;
  const std::string out = (dir.path / "out.json").string();
  const ProcessResult r = run_sprof({"symbolicate", path, "-o", out});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(sprof::profile::detect_profile_format(read_profile_text(out).value_or("")) ==
        sprof::profile::ProfileFormat::kProcessed);
}

TEST_CASE("symbolicate refuses what is not a profile and leaves it alone") {
  CliTempDir dir("sprof-cli-test-");
  const std::string path = (dir.path / "notes.json").string();
  std::ofstream(path) << R"({"hello": "world"})";
  const ProcessResult r = run_sprof({"symbolicate", path});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("is not a profile") != std::string::npos);
  CHECK(read_profile_text(path).value_or("") == R"({"hello": "world"})");
  const ProcessResult missing = run_sprof({"symbolicate", (dir.path / "none.json").string()});
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("cannot read") != std::string::npos);
}
