// sprof's side of the handshake: creating the memfd ring, the child's environment, and finding
// libsprof-heap.so next to the sprof executable.
#include "sprof/heap/heap_ring.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sprof/heap/ring_reader.hpp"

using namespace sprof::heap;

TEST_CASE("a created ring is readable and reachable through its /proc path") {
  HeapRingOptions options;
  options.data_bytes = 1 << 20;
  options.sample_interval_bytes = 4096;
  auto ring = MappedHeapRing::create(options);
  REQUIRE(ring.has_value());
  auto reader = RingReader::open(ring->area());
  REQUIRE(reader.has_value());
  CHECK(reader->config().sample_interval_bytes == 4096);
  CHECK(reader->config().creator_pid == static_cast<uint64_t>(getpid()));

  // What a launched program does: open the path, map it, see the same memory.
  const int fd = open(ring->path_for_children().c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(fd >= 0);
  auto* other = static_cast<RingHeader*>(
      mmap(nullptr, ring->area().size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  close(fd);
  REQUIRE(other != MAP_FAILED);
  other->counters.attached_processes = 5;
  CHECK(reader->counters().attached_processes == 5);
  munmap(other, ring->area().size());
}

TEST_CASE("ring options outside the format's bounds are refused") {
  HeapRingOptions options;
  SUBCASE("data size not a power of two") { options.data_bytes = 3 << 20; }
  SUBCASE("stack copy too large") { options.stack_copy_bytes = 1 << 20; }
  SUBCASE("tracked capacity too small") { options.tracked_capacity_log2 = 2; }
  SUBCASE("ring too small for four records with full stack copies") {
    options.data_bytes = 64 * 1024;
    options.stack_copy_bytes = 32 * 1024;
  }
  auto ring = MappedHeapRing::create(options);
  REQUIRE_FALSE(ring.has_value());
  CHECK(ring.error().code == sprof::Errc::kInvalidArgument);
}

TEST_CASE("the child environment preloads the interposer first and names the ring") {
  auto env = heap_child_environment("/opt/sprof/lib/sprof/libsprof-heap.so", "/proc/1/fd/3",
                                    "/usr/lib/other.so");
  REQUIRE(env.has_value());
  CHECK(*env == std::vector<std::string>{
                    "LD_PRELOAD=/opt/sprof/lib/sprof/libsprof-heap.so:/usr/lib/other.so",
                    "SPROF_HEAP_RING=/proc/1/fd/3"});
  auto alone = heap_child_environment("/x/libsprof-heap.so", "/proc/1/fd/3", nullptr);
  REQUIRE(alone.has_value());
  CHECK((*alone)[0] == "LD_PRELOAD=/x/libsprof-heap.so");
  CHECK_FALSE(heap_child_environment("/my dir/libsprof-heap.so", "/p", nullptr).has_value());
  CHECK_FALSE(heap_child_environment("/a:b/libsprof-heap.so", "/p", nullptr).has_value());
}

TEST_CASE("the interposer is looked for next to sprof, in lib/sprof, then in the build tree") {
  CHECK(interposer_candidates("/usr/local/bin") ==
        std::vector<std::string>{"/usr/local/bin/libsprof-heap.so",
                                 "/usr/local/lib/sprof/libsprof-heap.so",
                                 "/usr/local/heap/libsprof-heap.so"});
  const auto dir =
      std::filesystem::temp_directory_path() / ("sprof-heap-locate-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "bin");
  std::filesystem::create_directories(dir / "lib" / "sprof");
  std::ofstream(dir / "bin" / "sprof") << "";
  auto missing = locate_interposer((dir / "bin" / "sprof").string());
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().code == sprof::Errc::kNotFound);
  std::ofstream(dir / "lib" / "sprof" / "libsprof-heap.so") << "";
  auto found = locate_interposer((dir / "bin" / "sprof").string());
  REQUIRE(found.has_value());
  CHECK(*found == (dir / "lib" / "sprof" / "libsprof-heap.so").string());
  std::filesystem::remove_all(dir);
}
