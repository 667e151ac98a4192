// HeapRingInput from the ring's bytes: records a program committed come out of its rounds
// decoded (once: the copy into the backlog only frames them), and one that is framed but does
// not decode is counted as malformed instead.
#include "heap/heap_ring_input.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <variant>
#include <vector>

#include "../heap/heap_record_builder.hpp"

namespace sprof::recorder {
namespace {

namespace fs = std::filesystem;

// A directory laid out like an install: sprof beside libsprof-heap.so (HeapRingInput only
// checks that the interposer is there; nothing loads it).
struct FakeInstall {
  FakeInstall()
      : dir(fs::temp_directory_path() / ("sprof-ring-input-" + std::to_string(getpid()))) {
    fs::create_directories(dir);
    std::ofstream(dir / "sprof") << "";
    std::ofstream(dir / heap::kInterposerFileName) << "";
  }
  ~FakeInstall() { fs::remove_all(dir); }
  std::string executable() const { return (dir / "sprof").string(); }
  fs::path dir;
};

// The ring as a program maps it: records are written, then committed, at the head.
struct ProgramSide {
  explicit ProgramSide(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR);
    REQUIRE(fd >= 0);
    struct stat st {};
    REQUIRE(::fstat(fd, &st) == 0);
    size = static_cast<size_t>(st.st_size);
    area = static_cast<uint8_t*>(::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    ::close(fd);
    REQUIRE(area != MAP_FAILED);
  }
  ~ProgramSide() { ::munmap(area, size); }
  heap::RingHeader* header() const { return reinterpret_cast<heap::RingHeader*>(area); }

  // False when the ring has no room for it (the reader has not handed enough back).
  bool put(std::vector<uint8_t> record) {
    const uint64_t position = header()->write_head;
    const uint64_t data_bytes = header()->config.data_bytes;
    if (position + record.size() - header()->read_tail > data_bytes) return false;
    const uint64_t word = heap::commit_word(position);
    std::memcpy(record.data(), &word, sizeof word);
    uint8_t* data = area + header()->config.header_bytes;
    for (size_t i = 0; i < record.size(); ++i) data[(position + i) % data_bytes] = record[i];
    header()->write_head = position + record.size();
    return true;
  }

  uint8_t* area = nullptr;
  size_t size = 0;
};

TEST_CASE("heap ring input: records decoded once from the backlog, a malformed one counted") {
  FakeInstall install;
  auto input = HeapRingInput::create(heap_ring_options(HeapMode::kAll, 0, false, false),
                                     install.executable());
  REQUIRE(input.has_value());
  ProgramSide program((*input)->ring_path());

  heap::test::AllocSpec alloc;
  alloc.fields.address = 0x5555'0000'2000;
  REQUIRE(program.put(heap::test::alloc_record(alloc)));
  // Framed (a plausible size, committed), but pid and tid are 0: decode_record rejects it.
  std::vector<uint8_t> bad = heap::test::free_record(0x5555'0000'3000);
  std::memset(bad.data() + sizeof(heap::RecordHeader), 0, bad.size() - sizeof(heap::RecordHeader));
  REQUIRE(program.put(bad));
  REQUIRE(program.put(heap::test::free_record(0x5555'0000'2000)));

  std::vector<uint64_t> addresses;
  auto add = [&](sprof::perf::Record&& r) {
    if (const auto* a = std::get_if<sprof::perf::HeapAllocRecord>(&r))
      addresses.push_back(a->address);
    if (const auto* f = std::get_if<sprof::perf::HeapFreeRecord>(&r))
      addresses.push_back(f->address);
  };
  (*input)->set_final(true);
  int rounds = 0;
  while ((*input)->read_round(add) && ++rounds < 10) {
  }
  CHECK(addresses == std::vector<uint64_t>{0x5555'0000'2000, 0x5555'0000'2000});
  convert::HeapStats stats;
  (*input)->add_stats(stats);
  CHECK(stats.ring_malformed == 1);
  // Everything was handed back to the program.
  CHECK(program.header()->read_tail == program.header()->write_head);
}

TEST_CASE("heap ring input: the backlog never holds more than the ring's size") {
  FakeInstall install;
  // The sampled mode's ring (8 MiB) fills faster in a test than record-all's 64 MiB.
  auto input = HeapRingInput::create(
      heap_ring_options(HeapMode::kSampled, 512 * 1024, false, false), install.executable());
  REQUIRE(input.has_value());
  ProgramSide program((*input)->ring_path());
  const uint64_t ring_bytes = program.header()->config.data_bytes;
  uint64_t address = 0x5555'0000'0000;
  size_t written = 0;
  auto fill_ring = [&] {
    heap::test::AllocSpec alloc;
    alloc.fields.address = address += 16;
    while (program.put(heap::test::alloc_record(alloc))) {
      alloc.fields.address = address += 16;
      ++written;
    }
  };
  size_t read = 0;
  auto add = [&](sprof::perf::Record&&) { ++read; };
  // A full ring is copied out whole, and a round decodes a part of it. The ring is full again
  // while most of the backlog is unread: the next copies take only what fits beside it, read
  // records included, until those are moved out.
  for (int i = 0; i < 6; ++i) {
    fill_ring();
    (*input)->read_round(add);
    CHECK((*input)->backlog_capacity() <= ring_bytes + heap::kMaxRecordBytes);
  }
  (*input)->set_final(true);
  for (int rounds = 0; (*input)->read_round(add) && rounds < 1000; ++rounds) {
    if (rounds < 20 && rounds % 4 == 0) fill_ring();
  }
  CHECK((*input)->backlog_capacity() <= ring_bytes + heap::kMaxRecordBytes);
  CHECK(read == written);  // nothing was lost on the way
}

}  // namespace
}  // namespace sprof::recorder
