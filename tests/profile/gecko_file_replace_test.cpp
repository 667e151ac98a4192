// Writing over an existing profile: the old file survives any failure, and the new one appears
// only complete (written beside the target, then renamed over it).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "sprof/profile/gecko_writer.hpp"
#include "sprof_test/sample_profile.hpp"
#include "temp_dir.hpp"

namespace sprof::profile {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

const std::string kOldProfile = R"({"meta": {"version": 36}, "old": true})";

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return std::move(out).str();
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

// A profile whose JSON is a few hundred KiB, more than the full file system below can take.
Profile large_profile() {
  Profile profile;
  auto& thread = profile.processes.emplace_back().threads.emplace_back();
  for (uint64_t i = 0; i < 20000; ++i) {
    const uint32_t frame = thread.intern_address_frame(0x400000 + i * 7919, Category::kUser);
    thread.add_sample({thread.intern_stack(std::nullopt, frame), static_cast<double>(i), i});
  }
  return profile;
}

// A small tmpfs mounted on `dir` in a mount namespace of this test process only, so nothing
// leaks to the machine if the test dies. Empty `reason` when mounted.
std::string mount_small_tmpfs(const fs::path& dir) {
  if (::unshare(CLONE_NEWNS) != 0)
    return std::string("unshare(CLONE_NEWNS): ") + std::strerror(errno);
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return std::string("making / private: ") + std::strerror(errno);
  }
  if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=64k") != 0) {
    return std::string("mount tmpfs: ") + std::strerror(errno);
  }
  return {};
}

// Fills the file system holding `dir` until a write fails with ENOSPC.
void fill_file_system(const fs::path& dir) {
  const int fd = ::open((dir / "filler").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  REQUIRE(fd >= 0);
  const std::vector<char> block(4096, 'f');
  while (::write(fd, block.data(), block.size()) > 0) {
  }
  const int err = errno;
  ::close(fd);
  REQUIRE(err == ENOSPC);
}

TEST_CASE("a profile written over an existing one replaces it whole and leaves nothing else") {
  TempDir dir;
  REQUIRE(dir.valid());
  for (const char* name : {"profile.json", "profile.json.gz"}) {
    const std::string path = dir.write_file(name, kOldProfile);
    const auto profile = test::make_sample_profile();
    REQUIRE(write_gecko_file(profile, path).has_value());
    CHECK(read_bytes(path) != kOldProfile);
  }
  CHECK(names_in(dir.path()) == std::vector<std::string>{"profile.json", "profile.json.gz"});
}

TEST_CASE("a write that fails for lack of space keeps the existing profile intact") {
  TempDir dir;
  REQUIRE(dir.valid());
  const fs::path mount_point = dir.path() / "small";
  fs::create_directory(mount_point);
  if (const std::string reason = mount_small_tmpfs(mount_point); !reason.empty()) {
    MESSAGE("skipped: cannot mount a small tmpfs to run out of space (" << reason << ")");
    return;
  }
  for (const char* name : {"profile.json", "profile.json.gz"}) {
    const fs::path path = mount_point / name;
    std::ofstream(path, std::ios::binary) << kOldProfile;
  }
  fill_file_system(mount_point);

  for (const char* name : {"profile.json", "profile.json.gz"}) {
    const std::string label = name;
    CAPTURE(label);
    const fs::path path = mount_point / name;
    const auto written = write_gecko_file(large_profile(), path.string());
    REQUIRE_FALSE(written.has_value());
    CHECK(written.error().message.find(path.string()) != std::string::npos);
    CHECK(written.error().message.find("No space left on device") != std::string::npos);
    CHECK(read_bytes(path) == kOldProfile);
  }
  CHECK(names_in(mount_point) ==
        std::vector<std::string>{"filler", "profile.json", "profile.json.gz"});
  ::umount2(mount_point.c_str(), MNT_DETACH);
}

}  // namespace
}  // namespace sprof::profile
