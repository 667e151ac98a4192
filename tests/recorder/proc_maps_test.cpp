#include "process/proc_maps.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using sprof::recorder::MapsEntry;
using sprof::recorder::parse_maps;

namespace {

constexpr const char* kMaps =
    "55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 1048602                    /usr/bin/cat\n"
    "55d0c0a02000-55d0c0a07000 r-xp 00002000 08:01 1048602                    /usr/bin/cat\n"
    "55d0c1e4d000-55d0c1e6e000 rw-p 00000000 00:00 0                          [heap]\n"
    "7f1c2a000000-7f1c2a021000 rw-p 00000000 00:00 0 \n"
    "7f1c2a400000-7f1c2a428000 r-xp 00028000 fe:1a 2228397                    /tmp/my lib.so "
    "(deleted)\n"
    "7f1c2a600000-7f1c2a601000 rw-s 00000000 00:05 3                          /dev/zero (deleted)\n"
    "7ffd4d1b8000-7ffd4d1d9000 rw-p 00000000 00:00 0                          [stack]\n"
    "7ffd4d1f6000-7ffd4d1f8000 r-xp 00000000 00:00 0                          [vdso]\n"
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

}  // namespace

TEST_CASE("parse_maps reads every field of /proc/PID/maps lines") {
  size_t bad = 99;
  const auto maps = parse_maps(kMaps, &bad);
  CHECK(bad == 0);
  REQUIRE(maps.size() == 9);

  const MapsEntry& text = maps[1];
  CHECK(text.start == 0x55d0c0a02000);
  CHECK(text.end == 0x55d0c0a07000);
  CHECK(text.readable);
  CHECK_FALSE(text.writable);
  CHECK(text.executable);
  CHECK_FALSE(text.shared);
  CHECK(text.offset == 0x2000);
  CHECK(text.dev_major == 8);
  CHECK(text.dev_minor == 1);
  CHECK(text.inode == 1048602);
  CHECK(text.path == "/usr/bin/cat");
  CHECK_FALSE(text.deleted);
  CHECK_FALSE(text.is_pseudo());

  CHECK(maps[2].path == "[heap]");
  CHECK(maps[2].is_pseudo());
  CHECK(maps[3].path.empty());  // anonymous
  CHECK(maps[3].inode == 0);

  CHECK(maps[4].path == "/tmp/my lib.so");  // spaces kept, suffix removed
  CHECK(maps[4].deleted);
  CHECK(maps[4].dev_major == 0xfe);
  CHECK(maps[4].dev_minor == 0x1a);
  CHECK(maps[5].shared);
  CHECK(maps[5].deleted);

  CHECK(maps[6].path == "[stack]");
  CHECK(maps[7].path == "[vdso]");
  CHECK(maps[7].executable);
  CHECK(maps[8].start == 0xffffffffff600000);
  CHECK_FALSE(maps[8].readable);
}

TEST_CASE("parse_maps skips and counts lines that do not parse") {
  size_t bad = 0;
  const auto maps = parse_maps(
      "garbage\n"
      "1000-2000 r-xp 00000000 08:01 12 /ok\n"
      "3000-zz r-xp 00000000 08:01 12 /bad-end\n"
      "3000-4000 r-x 00000000 08:01 12 /short-perms\n"
      "5000-6000 r-xp 00000000 0801 12 /bad-dev\n"
      "6000-7000 r-xp 00000000 08:01 12 /no-trailing-newline",
      &bad);
  REQUIRE(maps.size() == 2);
  CHECK(maps[0].path == "/ok");
  CHECK(maps[1].path == "/no-trailing-newline");
  CHECK(bad == 4);
}

TEST_CASE("read_maps, read_comm and list_threads read this process through /proc") {
  const pid_t self = ::getpid();
  auto maps = sprof::recorder::read_maps(self);
  REQUIRE(maps.has_value());
  bool found_exe = false;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe").string();
  for (const auto& m : *maps) found_exe |= (m.path == exe && m.executable);
  CHECK(found_exe);

  auto comm = sprof::recorder::read_comm(self, self);
  REQUIRE(comm.has_value());
  CHECK_FALSE(comm->empty());
  CHECK(comm->back() != '\n');

  auto tids = sprof::recorder::list_threads(self);
  REQUIRE(tids.has_value());
  CHECK(std::find(tids->begin(), tids->end(), self) != tids->end());
}

TEST_CASE("proc readers take a fake /proc root and report missing processes") {
  const auto root =
      std::filesystem::temp_directory_path() / ("sprof-fake-proc-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "42" / "task" / "42");
  std::filesystem::create_directories(root / "42" / "task" / "45");
  std::ofstream(root / "42" / "task" / "45" / "comm") << "worker\n";
  std::ofstream(root / "42" / "maps") << "1000-2000 r-xp 00000000 08:01 12 /bin/app\n";

  auto comm = sprof::recorder::read_comm(42, 45, root.string());
  REQUIRE(comm.has_value());
  CHECK(*comm == "worker");
  auto tids = sprof::recorder::list_threads(42, root.string());
  REQUIRE(tids.has_value());
  CHECK(*tids == std::vector<pid_t>{42, 45});
  auto maps = sprof::recorder::read_maps(42, root.string());
  REQUIRE(maps.has_value());
  REQUIRE(maps->size() == 1);
  CHECK((*maps)[0].path == "/bin/app");

  auto missing = sprof::recorder::read_maps(7, root.string());
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == sprof::Errc::kNotFound);
  std::filesystem::remove_all(root);
}

TEST_CASE("a /proc directory lists its numeric entries ascending and skips other names") {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("sprof-fake-proc-entries-" + std::to_string(::getpid()));
  for (const char* name : {"10", "2", "1", "self", "12a", "4294967296"}) {
    std::filesystem::create_directories(dir / name);
  }
  std::ofstream(dir / "7") << "an entry may be a file";
  auto numbers = sprof::recorder::list_numeric_entries(dir.string());
  REQUIRE(numbers.has_value());
  CHECK(*numbers == std::vector<uint32_t>{1, 2, 7, 10});  // 4294967296 does not fit a pid
  std::filesystem::remove_all(dir);

  auto missing = sprof::recorder::list_numeric_entries(dir.string());
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == sprof::Errc::kNotFound);
  CHECK(missing.error().message.find(dir.string()) != std::string::npos);
}

TEST_CASE("a /proc file that fails to read is an error, not an exception") {
  // A thread that exits while its comm or maps is read makes read(2) fail (ESRCH); libstdc++'s
  // filebuf throws on a failed read, which aborted an attach recording. A directory where the
  // file should be fails the same way, deterministically.
  const auto root = std::filesystem::temp_directory_path() /
                    ("sprof-fake-proc-unreadable-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "42" / "task" / "45" / "comm");
  std::filesystem::create_directories(root / "42" / "maps");
  CHECK_FALSE(sprof::recorder::read_comm(42, 45, root.string()).has_value());
  CHECK_FALSE(sprof::recorder::read_maps(42, root.string()).has_value());
  std::filesystem::remove_all(root);
}
