// ReplacingFile (sprof/core/replacing_file.hpp): the target changes only on commit.
#include "sprof/core/replacing_file.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "temp_dir.hpp"

namespace sprof {
namespace {

using test::TempDir;

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return std::move(out).str();
}

size_t entries_in(const std::filesystem::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST_CASE("a replacing file changes the target only when committed") {
  TempDir dir;
  REQUIRE(dir.valid());
  const std::string target = dir.write_file("out.json", "old");
  {
    auto file = ReplacingFile::create(target);
    REQUIRE(file.has_value());
    REQUIRE(::write(file->fd(), "new", 3) == 3);
    CHECK(read_bytes(target) == "old");
    CHECK(entries_in(dir.path()) == 2);  // the target and the temporary file beside it
  }                                      // dropped without commit
  CHECK(read_bytes(target) == "old");
  CHECK(entries_in(dir.path()) == 1);

  auto file = ReplacingFile::create(target);
  REQUIRE(file.has_value());
  REQUIRE(::write(file->fd(), "new", 3) == 3);
  REQUIRE(file->commit().has_value());
  CHECK(read_bytes(target) == "new");
  CHECK(entries_in(dir.path()) == 1);
}

TEST_CASE(
    "a replacing file in a missing directory, or over a directory, fails and leaves nothing") {
  TempDir dir;
  REQUIRE(dir.valid());
  const auto missing = ReplacingFile::create((dir.path() / "no" / "out.json").string());
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == Errc::kNotFound);

  std::filesystem::create_directory(dir.path() / "sub");
  auto over_dir = ReplacingFile::create((dir.path() / "sub").string());
  REQUIRE(over_dir.has_value());
  const auto committed = over_dir->commit();
  REQUIRE_FALSE(committed.has_value());
  CHECK(committed.error().message.find("sub") != std::string::npos);
  CHECK(std::filesystem::is_directory(dir.path() / "sub"));
  CHECK(entries_in(dir.path()) == 1);
}

TEST_CASE("check_target refuses a missing directory and a directory, and leaves nothing behind") {
  TempDir dir;
  REQUIRE(dir.valid());
  const auto missing = ReplacingFile::check_target((dir.path() / "no" / "out.json").string());
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == Errc::kNotFound);

  std::filesystem::create_directory(dir.path() / "sub");
  const auto over_dir = ReplacingFile::check_target((dir.path() / "sub").string());
  REQUIRE_FALSE(over_dir.has_value());
  CHECK(over_dir.error().message.find("is a directory") != std::string::npos);

  const std::string existing = dir.write_file("out.json", "old");
  CHECK(ReplacingFile::check_target(existing).has_value());
  CHECK(ReplacingFile::check_target((dir.path() / "new.json").string()).has_value());
  CHECK(read_bytes(existing) == "old");
  CHECK(entries_in(dir.path()) == 2);  // "sub" and out.json: no probe left, nothing created
}

}  // namespace
}  // namespace sprof
