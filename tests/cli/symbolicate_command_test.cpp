// `sprof symbolicate` on files it did not record: the hand-built sample profile (whose libs exist
// nowhere), a file that is self-contained already, and a file that is no profile.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sprof/profile/gecko_writer.hpp"
#include "sprof/profile/profile_reader.hpp"
#include "sprof_test/paths.hpp"
#include "sprof_test/processed_validator.hpp"
#include "sprof_test/sample_profile.hpp"
#include "subprocess.hpp"

namespace fs = std::filesystem;
using namespace sprof::test;

namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("sprof-cli-test-" + std::to_string(getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

ProcessResult run_sprof(const std::vector<std::string>& args) {
  std::vector<std::string> argv{kSprofExe};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

}  // namespace

TEST_CASE("symbolicate makes a Gecko file self-contained in place and lists modules it cannot find") {
  TempDir dir;
  const std::string path = (dir.path / "old.json.gz").string();
  REQUIRE(sprof::profile::write_gecko_file(make_sample_profile(), path).has_value());
  const ProcessResult r = run_sprof({"symbolicate", path});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find(path + " is self-contained") != std::string::npos);
  // None of the sample's libs exist on this machine: each is named with its reason.
  CHECK(r.out.find("no symbols for demo: ") != std::string::npos);
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
  const ProcessResult again = run_sprof({"symbolicate", path, "-o", (dir.path / "copy.json.gz").string()});
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("self-contained already") != std::string::npos);
  CHECK(read_profile_text((dir.path / "copy.json.gz").string()).value_or("") == *text);
}

TEST_CASE("symbolicate refuses what is not a profile and leaves it alone") {
  TempDir dir;
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
