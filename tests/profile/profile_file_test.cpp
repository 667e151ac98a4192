// Reading saved profiles back (sprof/profile/profile_file.hpp): plain or gzip, bounded, and
// refused early when the text is not a JSON object.
#include "sprof/profile/profile_file.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <string>

#include "fifo_writer.hpp"
#include "temp_dir.hpp"

namespace sprof::profile {
namespace {

using test::TempDir;

constexpr std::string_view kProfile = R"({"libs": [], "meta": {"version": 36}})";

// Writes `chunk` `times` times as one gzip member (level 1: the tests need size, not ratio).
void write_gzip(const std::string& path, std::string_view chunk, int times,
                const char* mode = "wb1") {
  gzFile gz = gzopen(path.c_str(), mode);
  REQUIRE(gz != nullptr);
  for (int i = 0; i < times; ++i) {
    REQUIRE(gzwrite(gz, chunk.data(), static_cast<unsigned>(chunk.size())) ==
            static_cast<int>(chunk.size()));
  }
  REQUIRE(gzclose(gz) == Z_OK);
}

TEST_CASE("a profile file is read the same whether or not it is gzipped") {
  TempDir dir;
  REQUIRE(dir.valid());
  const std::string plain = dir.write_file("profile.json", kProfile);
  const std::string compressed = (dir.path() / "profile.json.gz").string();
  write_gzip(compressed, kProfile, 1);
  CHECK(read_profile_json(plain).value_or("") == kProfile);
  CHECK(read_profile_json(compressed).value_or("") == kProfile);
  // Two members in a row (as `cat a.gz b.gz` makes) are one text, like gunzip reads them.
  const std::string two = (dir.path() / "two.json.gz").string();
  write_gzip(two, R"({"a": )", 1);
  write_gzip(two, "1}", 1, "ab1");
  CHECK(read_profile_json(two).value_or("") == R"({"a": 1})");
}

TEST_CASE("reading a missing or truncated gzip profile is an error that names the file") {
  const auto missing = read_profile_json("/nonexistent/profile.json.gz");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == Errc::kNotFound);
  CHECK(missing.error().message.find("/nonexistent/profile.json.gz") != std::string::npos);

  TempDir dir;
  REQUIRE(dir.valid());
  std::string big = "{\"x\": \"";
  for (size_t i = 0; i < 100000; ++i) big += static_cast<char>('a' + (i * 7919) % 26);
  const std::string compressed = (dir.path() / "cut.json.gz").string();
  write_gzip(compressed, big, 1);
  REQUIRE(::truncate(compressed.c_str(), 200) == 0);
  const auto cut = read_profile_json(compressed);
  REQUIRE_FALSE(cut.has_value());
  CHECK(cut.error().code == Errc::kMalformed);
  CHECK(cut.error().message.find("truncated") != std::string::npos);
}

TEST_CASE("a gzip of zeros is refused after its first bytes, not inflated whole") {
  TempDir dir;
  REQUIRE(dir.valid());
  const std::string bomb = (dir.path() / "zeros.json.gz").string();
  write_gzip(bomb, std::string(1 << 20, '\0'), 64);
  const auto read = read_profile_json(bomb);
  REQUIRE_FALSE(read.has_value());
  CHECK(read.error().code == Errc::kMalformed);
  CHECK(read.error().message.find("not a profile") != std::string::npos);
}

TEST_CASE("a JSON text that inflates past the limit is refused with the limit named") {
  TempDir dir;
  REQUIRE(dir.valid());
  const std::string bomb = (dir.path() / "spaces.json.gz").string();
  write_gzip(bomb, "{\"padding\": \"", 1);
  write_gzip(bomb, std::string(1 << 20, ' '), 8, "ab1");
  const auto read = read_profile_json(bomb, {4 << 20, "the test's limit"});
  REQUIRE_FALSE(read.has_value());
  CHECK(read.error().code == Errc::kTooLarge);
  CHECK(read.error().message.find(std::to_string(4 << 20)) != std::string::npos);
  // The same limit applies to a plain file, from its size.
  const std::string plain = dir.write_file("big.json", "{" + std::string(5 << 20, ' ') + "}");
  const auto big = read_profile_json(plain, {4 << 20, "the test's limit"});
  REQUIRE_FALSE(big.has_value());
  CHECK(big.error().code == Errc::kTooLarge);
  CHECK(big.error().message.find("larger than 4194304 bytes, the test's limit") !=
        std::string::npos);
  CHECK(read_profile_json(plain, {6 << 20, "the test's limit"}).has_value());
}

TEST_CASE("text that is not a JSON object, or only whitespace, is not a profile") {
  TempDir dir;
  REQUIRE(dir.valid());
  CHECK(read_profile_json(dir.write_file("array.json", "[1, 2]")).error().code == Errc::kMalformed);
  CHECK(read_profile_json(dir.write_file("empty.json", "")).error().code == Errc::kMalformed);
  CHECK(read_profile_json(dir.write_file("blank.json", std::string(1 << 20, '\n'))).error().code ==
        Errc::kMalformed);
  // Leading whitespace and a byte order mark are fine; the mark is dropped, as JSON parsers
  // refuse it.
  const std::string padded = " \n" + std::string(kProfile);
  CHECK(read_profile_json(dir.write_file("bom.json", "\xEF\xBB\xBF" + padded)).value_or("") ==
        padded);
  CHECK(read_profile_json(dir.write_file("ws.json", padded)).value_or("") == padded);
}

TEST_CASE("a profile path that is a FIFO is refused without blocking") {
  TempDir dir;
  REQUIRE(dir.valid());
  const std::string fifo = (dir.path() / "profile.json.gz").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  Result<std::string> read = std::string();
  {
    test::FifoWriter writer(fifo);
    read = read_profile_json(fifo);
  }
  REQUIRE_FALSE(read.has_value());
  CHECK(read.error().code == Errc::kUnsupported);
}

}  // namespace
}  // namespace sprof::profile

TEST_CASE("the JSON limit leaves room for the parse in the memory available") {
  using sprof::profile::kMaxProfileJsonBytes;
  using sprof::profile::profile_json_limit;
  CHECK(profile_json_limit(std::nullopt).bytes == kMaxProfileJsonBytes);
  CHECK(profile_json_limit(uint64_t{64} << 30).bytes == kMaxProfileJsonBytes);
  // 1 GiB available: a 64 MiB text, whose parse may take 16 times as much.
  const auto small = profile_json_limit(uint64_t{1} << 30);
  CHECK(small.bytes == uint64_t{64} << 20);
  CHECK(small.why.find("1024 MiB of memory available") != std::string::npos);
  // This process's own limit is never above the fixed one.
  CHECK(profile_json_limit().bytes <= kMaxProfileJsonBytes);
}
