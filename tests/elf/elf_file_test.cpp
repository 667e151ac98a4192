#include "elf_file.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <string>

namespace sprof::elf {
namespace {

// Resident kB of the mapping of this process that holds `address`, from /proc/self/smaps.
long resident_kb_of_mapping(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long start = 0, end = 0;
    // A mapping's first line starts "start-end "; its fields ("Rss:   12 kB") never parse so.
    if (std::sscanf(line.c_str(), "%lx-%lx ", &start, &end) == 2) {
      inside = start <= at && at < end;
      continue;
    }
    long kb = 0;
    if (inside && std::sscanf(line.c_str(), "Rss: %ld kB", &kb) == 1) return kb;
  }
  return -1;
}

uint64_t sum_of(std::span<const uint8_t> bytes) {
  return std::accumulate(bytes.begin(), bytes.end(), uint64_t{0});
}

TEST_CASE("a mapped ELF file's pages are given back, and read again the same") {
  // This test program: built with debug info, so .debug_info spans many pages.
  auto file = ElfFile::open("/proc/self/exe");
  REQUIRE(file.has_value());
  const std::span<const uint8_t> info = file->section_bytes(file->section_by_name(".debug_info"));
  REQUIRE(info.size() > (1u << 20));
  const uint64_t before = sum_of(info);  // touches every page
  const long resident = resident_kb_of_mapping(info.data());
  CHECK(resident >= static_cast<long>(info.size() / 1024));

  file->drop_mapped_pages();
  CHECK(resident_kb_of_mapping(info.data()) < resident / 4);
  CHECK(sum_of(info) == before);
}

}  // namespace
}  // namespace sprof::elf
