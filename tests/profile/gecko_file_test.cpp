#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sprof/profile/gecko_writer.hpp"
#include "sprof_test/gecko_validator.hpp"
#include "sprof_test/sample_profile.hpp"

namespace fs = std::filesystem;

namespace {

// A fresh directory per test process, removed at the end of each test.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("sprof-profile-test-" + std::to_string(getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return std::move(out).str();
}

}  // namespace

TEST_CASE("a .json file holds exactly the streamed JSON and its size is returned") {
  TempDir dir;
  const auto profile = sprof::test::make_sample_profile();
  const std::string path = (dir.path / "profile.json").string();
  auto written = sprof::profile::write_gecko_file(profile, path);
  REQUIRE(written.has_value());
  const std::string bytes = read_bytes(path);
  CHECK(bytes == sprof::profile::gecko_json_string(profile));
  CHECK(*written == bytes.size());
}

TEST_CASE("a .json.gz file is a gzip stream that inflates to the same JSON") {
  TempDir dir;
  const auto profile = sprof::test::make_sample_profile();
  const std::string path = (dir.path / "profile.json.gz").string();
  auto written = sprof::profile::write_gecko_file(profile, path);
  REQUIRE(written.has_value());
  const std::string bytes = read_bytes(path);
  CHECK(*written == bytes.size());
  // The front end sniffs 1f 8b 08 (gzip, deflate) before parsing (docs/firefox-profiler-format.md,
  // "Recognising the file").
  REQUIRE(bytes.size() > 3);
  CHECK(static_cast<unsigned char>(bytes[0]) == 0x1f);
  CHECK(static_cast<unsigned char>(bytes[1]) == 0x8b);
  CHECK(static_cast<unsigned char>(bytes[2]) == 0x08);
  const std::string json = sprof::profile::gecko_json_string(profile);
  CHECK(bytes.size() < json.size());
  auto inflated = sprof::test::read_profile_text(path);
  REQUIRE(inflated.has_value());
  CHECK(*inflated == json);
  CHECK(sprof::test::check_gecko_profile_file(path).empty());
}

TEST_CASE("gzip output is byte-for-byte deterministic") {
  TempDir dir;
  const auto profile = sprof::test::make_sample_profile();
  const std::string a = (dir.path / "a.json.gz").string();
  const std::string b = (dir.path / "b.json.gz").string();
  REQUIRE(sprof::profile::write_gecko_file(profile, a).has_value());
  REQUIRE(sprof::profile::write_gecko_file(profile, b).has_value());
  CHECK(read_bytes(a) == read_bytes(b));
}

TEST_CASE("a large profile round-trips through gzip") {
  TempDir dir;
  sprof::profile::Profile profile;
  auto& thread = profile.processes.emplace_back().threads.emplace_back();
  for (uint64_t i = 0; i < 50000; ++i) {
    // Distinct addresses make a string table that compresses poorly, so deflate emits many
    // output buffers.
    const uint32_t frame =
        thread.intern_address_frame(0x400000 + i * 7919, sprof::profile::Category::kUser);
    thread.add_sample({thread.intern_stack(std::nullopt, frame), static_cast<double>(i), i});
  }
  const std::string path = (dir.path / "large.json.gz").string();
  REQUIRE(sprof::profile::write_gecko_file(profile, path).has_value());
  auto inflated = sprof::test::read_profile_text(path);
  REQUIRE(inflated.has_value());
  CHECK(*inflated == sprof::profile::gecko_json_string(profile));
}

TEST_CASE("writing into a missing directory fails with the path in the message") {
  const std::string path = "/nonexistent-sprof-dir/profile.json.gz";
  auto written = sprof::profile::write_gecko_file(sprof::profile::Profile{}, path);
  REQUIRE_FALSE(written.has_value());
  CHECK(written.error().message.find(path) != std::string::npos);
}
