// The dump of sprof's own vdso that `sprof load` writes into a shared directory such as /tmp.
#include "sprof/elf/vdso.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "fifo_writer.hpp"
#include "sprof/elf/module_identity.hpp"
#include "symbols_test_support.hpp"

namespace sprof::elf {
namespace {

std::string expected_path(const std::string& dir) {
  const auto image = own_vdso_image();
  REQUIRE(image != nullptr);
  auto identity = read_module_identity(std::span<const uint8_t>(*image));
  REQUIRE(identity.has_value());
  return dir + "/sprof-vdso-" + identity->breakpad_id() + ".so";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string image_bytes() {
  const auto image = own_vdso_image();
  return std::string(reinterpret_cast<const char*>(image->data()), image->size());
}

TEST_CASE("the vdso dump replaces a planted symlink instead of writing through it") {
  if (own_vdso_image() == nullptr) {
    MESSAGE("skipped: this process has no vdso");
    return;
  }
  test::TempDir dir;
  const std::string victim = dir.write("victim.txt", "precious");
  const std::string path = expected_path(dir.path());
  REQUIRE(::symlink(victim.c_str(), path.c_str()) == 0);
  auto written = write_own_vdso_image(dir.path());
  REQUIRE(written.has_value());
  CHECK(*written == path);
  CHECK(read_file(victim) == "precious");
  CHECK(std::filesystem::is_regular_file(std::filesystem::symlink_status(path)));
  CHECK(read_file(path) == image_bytes());
}

TEST_CASE("the vdso dump replaces a planted FIFO without blocking and reuses an exact copy") {
  if (own_vdso_image() == nullptr) {
    MESSAGE("skipped: this process has no vdso");
    return;
  }
  test::TempDir dir;
  const std::string path = expected_path(dir.path());
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  Result<std::string> written = std::string();
  {
    test::FifoWriter writer(path);
    written = write_own_vdso_image(dir.path());
  }
  REQUIRE(written.has_value());
  CHECK(read_file(path) == image_bytes());
  struct stat before {};
  REQUIRE(::stat(path.c_str(), &before) == 0);
  REQUIRE(write_own_vdso_image(dir.path()).has_value());
  struct stat after {};
  REQUIRE(::stat(path.c_str(), &after) == 0);
  CHECK(before.st_ino == after.st_ino);  // the exact copy was kept, not rewritten
}

}  // namespace
}  // namespace sprof::elf
