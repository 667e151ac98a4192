// Reading files whose path a profiled program or a profile chose (sprof/core/untrusted_file.hpp):
// perf maps, jitdumps and marker files may be FIFOs, symlinks or directories planted there.
#include "sprof/core/untrusted_file.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "fifo_writer.hpp"
#include "sprof/core/jit_symbol_file.hpp"
#include "temp_dir.hpp"

namespace sprof {
namespace {

using test::FifoWriter;
using test::TempDir;

constexpr std::string_view kPerfMapLine = "1000 10 planted_symbol\n";

TEST_CASE("a perf map that is a FIFO is refused without waiting for a writer") {
  TempDir dir;
  REQUIRE(dir.valid());
  const std::string fifo = (dir.path() / "perf-4242.map").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  Result<std::vector<JitSymbol>> symbols = std::vector<JitSymbol>{};
  {
    FifoWriter writer(fifo);
    symbols = read_jit_symbol_file(fifo);
  }
  REQUIRE_FALSE(symbols.has_value());
  CHECK(symbols.error().message.find("not a regular file") != std::string::npos);
  CHECK(symbols.error().message.find(fifo) != std::string::npos);
}

TEST_CASE("a perf map that is a symlink is not followed") {
  TempDir dir;
  REQUIRE(dir.valid());
  const std::string target = dir.write_file("elsewhere.txt", kPerfMapLine);
  const std::string link = (dir.path() / "perf-4242.map").string();
  REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
  const auto symbols = read_jit_symbol_file(link);
  REQUIRE_FALSE(symbols.has_value());
  CHECK(symbols.error().message.find("symbolic link") != std::string::npos);
  // The same content in a regular file is read.
  const std::string regular = dir.write_file("perf-4243.map", kPerfMapLine);
  const auto read = read_jit_symbol_file(regular);
  REQUIRE(read.has_value());
  REQUIRE(read->size() == 1);
  CHECK(read->front().name == "planted_symbol");
}

TEST_CASE("a small-file read refuses directories, FIFOs and missing files with their reason") {
  TempDir dir;
  REQUIRE(dir.valid());
  const auto directory = read_small_file(dir.path().string(), 1 << 20);
  REQUIRE_FALSE(directory.has_value());
  const std::string fifo = (dir.path() / "marker-1-2.txt").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  Result<std::string> from_fifo = std::string();
  {
    FifoWriter writer(fifo);
    from_fifo = read_small_file(fifo, 1 << 20);
  }
  REQUIRE_FALSE(from_fifo.has_value());
  CHECK(from_fifo.error().message.find("not a regular file") != std::string::npos);
  const auto missing = read_small_file((dir.path() / "absent").string(), 1 << 20);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == Errc::kNotFound);
}

TEST_CASE("following symlinks on purpose still refuses what they point to unless it is regular") {
  TempDir dir;
  REQUIRE(dir.valid());
  const std::string target = dir.write_file("module.so", "bytes");
  const std::string link = (dir.path() / "link.so").string();
  REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
  auto opened = open_untrusted_file(link, Symlinks::kFollow);
  REQUIRE(opened.has_value());
  CHECK(opened->size_bytes == 5);
  CHECK(open_untrusted_file(link, Symlinks::kRefuse).error().code == Errc::kPermissionDenied);

  const std::string fifo = (dir.path() / "fifo").string();
  const std::string fifo_link = (dir.path() / "fifo-link.so").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  REQUIRE(::symlink(fifo.c_str(), fifo_link.c_str()) == 0);
  Result<UntrustedFile> through_link = UntrustedFile{};
  {
    FifoWriter writer(fifo);
    through_link = open_untrusted_file(fifo_link, Symlinks::kFollow);
  }
  REQUIRE_FALSE(through_link.has_value());
  CHECK(through_link.error().code == Errc::kUnsupported);
  CHECK(through_link.error().message.find("a FIFO") != std::string::npos);
}

TEST_CASE("a file above the limit is refused from its size without reading it") {
  TempDir dir;
  REQUIRE(dir.valid());
  // Sparse: 1 TiB of apparent size costs nothing on disk, and reading it would take hours.
  const std::string huge = dir.write_file("perf-1.map", "");
  REQUIRE(::truncate(huge.c_str(), off_t{1} << 40) == 0);
  const auto text = read_small_file(huge, 1 << 20);
  REQUIRE_FALSE(text.has_value());
  CHECK(text.error().code == Errc::kTooLarge);
  // At the limit is fine.
  const std::string exact = dir.write_file("perf-2.map", std::string(64, 'x'));
  CHECK(read_small_file(exact, 64).value_or("") == std::string(64, 'x'));
  CHECK(read_small_file(exact, 63).error().code == Errc::kTooLarge);
}

TEST_CASE("proc files, which report size 0, are read to their end") {
  const auto cmdline = read_small_file("/proc/self/cmdline", 1 << 20);
  REQUIRE(cmdline.has_value());
  CHECK_FALSE(cmdline->empty());
}

}  // namespace
}  // namespace sprof
