// The interposer's pure parts, without a process to interpose: the sampled-address set, the
// /proc/self/maps scanner, the sampling draw (with the reader's weight estimate) and the
// bootstrap arena.
#include <doctest/doctest.h>
#include <sys/mman.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "interposer/address_set.hpp"
#include "interposer/bootstrap_arena.hpp"
#include "interposer/maps_scanner.hpp"
#include "interposer/sample_gap.hpp"
#include "sprof/heap/sample_weight.hpp"

using namespace sprof::heap;
using namespace sprof::heap::interposer;

namespace {

struct Set {
  explicit Set(size_t buckets) : storage(AddressSet::bytes_for(buckets) / sizeof(AddressBucket)) {
    set.init(storage.data(), buckets, &live);
  }
  std::vector<AddressBucket> storage;  // buckets, then the filter
  uint64_t live = 0;
  AddressSet set{};
};

}  // namespace

TEST_CASE("address set remembers, forgets and counts live addresses") {
  Set s(128);
  CHECK(s.set.insert(0x1000));
  CHECK(s.set.insert(0x2000));
  CHECK(s.live == 2);
  CHECK(s.set.contains(0x1000));
  CHECK(s.set.may_contain(0x1000));
  CHECK(s.set.erase(0x1000));
  CHECK_FALSE(s.set.may_contain(0x1000));
  CHECK_FALSE(s.set.erase(0x1000));
  CHECK_FALSE(s.set.contains(0x1000));
  CHECK_FALSE(s.set.erase(0x3000));
  CHECK(s.live == 1);
}

TEST_CASE("address set spills into the next buckets and refuses when all within reach are full") {
  Set s(16);
  // Fill far beyond one bucket; keys land wherever the hash sends them.
  std::vector<uint64_t> inserted;
  for (uint64_t k = 1; inserted.size() < 16 * 7; ++k)
    if (s.set.insert(k * 16))
      inserted.push_back(k * 16);
    else
      break;
  for (const uint64_t k : inserted) CHECK(s.set.contains(k));
  CHECK(s.live == inserted.size());
  // A completely full table has no room for anyone.
  size_t refused = 0;
  for (uint64_t k = 100000; k < 100100; ++k) refused += s.set.insert(k * 16) ? 0 : 1;
  CHECK(s.live + refused == inserted.size() + 100);
  CHECK(s.live <= 16 * 7);
  CHECK(refused > 0);
  for (const uint64_t k : inserted) CHECK(s.set.erase(k));
  // Refused inserts left no trace in the filter either.
  for (uint64_t k = 1; k < 100100; ++k) REQUIRE_FALSE(s.set.may_contain(k * 16));
}

TEST_CASE("address set stays consistent under concurrent inserts and erases") {
  Set s(1024);
  auto work = [&](uint64_t base) {
    for (int round = 0; round < 200; ++round) {
      for (uint64_t i = 0; i < 100; ++i) REQUIRE(s.set.insert(base + i * 16));
      for (uint64_t i = 0; i < 100; ++i) REQUIRE(s.set.erase(base + i * 16));
    }
  };
  std::thread a(work, 0x100000), b(work, 0x900000);
  a.join();
  b.join();
  CHECK(s.live == 0);
}

TEST_CASE("maps scanner finds the mapping around an address, whatever the chunking") {
  const std::string maps =
      "00400000-00452000 r-xp 00000000 08:02 173521      /usr/bin/dbus-daemon\n"
      "garbage line without a range\n"
      "7f0000000000-7f0000021000 rw-p 00000000 00:00 0 " +
      std::string(3000, 'x') +
      "\n"
      "7ffd3c5a1000-7ffd3c5c2000 rw-p 00000000 00:00 0                          [stack]\n";
  for (size_t chunk = 1; chunk <= maps.size(); chunk += (chunk < 40 ? 1 : 97)) {
    CAPTURE(chunk);
    MapsScanner scanner(0x7ffd3c5b0000);
    for (size_t i = 0; i < maps.size(); i += chunk)
      scanner.feed(maps.data() + i, std::min(chunk, maps.size() - i));
    CHECK(scanner.found());
    CHECK(scanner.start() == 0x7ffd3c5a1000);
    CHECK(scanner.end() == 0x7ffd3c5c2000);
  }
  MapsScanner gap(0x500000);
  gap.feed(maps.data(), maps.size());
  CHECK_FALSE(gap.found());
  CHECK(gap.done());  // stopped at the first mapping above the address
}

TEST_CASE("find_mapping gives the bounds of this thread's stack from /proc/self/maps") {
  int local = 0;
  uint64_t start = 0, end = 0;
  REQUIRE(find_mapping(reinterpret_cast<uint64_t>(&local), start, end));
  CHECK(start <= reinterpret_cast<uint64_t>(&local));
  CHECK(reinterpret_cast<uint64_t>(&local) < end);
  // The whole range is ours to read.
  void* probe = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(find_mapping(reinterpret_cast<uint64_t>(probe) + 100, start, end));
  CHECK(start <= reinterpret_cast<uint64_t>(probe));
  munmap(probe, 4096);
}

TEST_CASE("sample gaps average the configured interval") {
  uint64_t state = seed_random(7);
  constexpr int kDraws = 200000;
  constexpr uint64_t kMean = 512 * 1024;
  double sum = 0;
  for (int i = 0; i < kDraws; ++i) sum += static_cast<double>(draw_sample_gap(state, kMean));
  // Standard error of the mean of an exponential: mean / sqrt(n) = 0.22 %.
  CHECK(std::abs(sum / kDraws / kMean - 1.0) < 0.012);
  CHECK(draw_sample_gap(state, 1) >= 1);
}

TEST_CASE("weighting sampled allocations estimates the bytes allocated") {
  CHECK(estimated_bytes(100, 0) == 100);
  CHECK(estimated_bytes(0, 4096) == 0);
  CHECK(estimated_bytes(1, 1 << 19) == doctest::Approx(1 << 19).epsilon(0.001));
  CHECK(estimated_bytes(64 << 20, 1 << 19) == doctest::Approx(64 << 20).epsilon(0.001));
  // Simulate the interposer's countdown over mixed sizes and sum the estimates.
  for (const uint64_t size : {16ULL, 4096ULL, 300000ULL, 4ULL << 20}) {
    CAPTURE(size);
    uint64_t state = seed_random(size);
    constexpr uint64_t kInterval = 512 * 1024;
    const uint64_t total = 2ULL << 30;
    uint64_t countdown = draw_sample_gap(state, kInterval);
    double estimate = 0;
    for (uint64_t done = 0; done < total; done += size) {
      if (size < countdown) {
        countdown -= size;
      } else {
        estimate += estimated_bytes(size, kInterval);
        countdown = draw_sample_gap(state, kInterval);
      }
    }
    // About 4,000 samples: a 5 % bound is more than three standard errors.
    CHECK(estimate / static_cast<double>(total) == doctest::Approx(1.0).epsilon(0.05));
  }
}

namespace {

// A malloc for BootstrapArena::move_out that records what it handed out.
std::vector<void*> g_moved_to;
void* test_malloc(size_t size) {
  void* block = std::malloc(size);
  g_moved_to.push_back(block);
  return block;
}

}  // namespace

TEST_CASE("bootstrap arena: aligned blocks that remember their size, moved out by realloc") {
  alignas(16) static unsigned char storage[4096 * 3];
  BootstrapArena arena{storage, sizeof storage, 0};
  CHECK_FALSE(arena.ever_used());

  auto* a = static_cast<unsigned char*>(arena.allocate(10, 16));
  REQUIRE(a != nullptr);
  CHECK(arena.ever_used());
  CHECK(arena.owns(a));
  CHECK(reinterpret_cast<uintptr_t>(a) % 16 == 0);
  CHECK(arena.size_of(a) == 10);
  for (int i = 0; i < 10; ++i) a[i] = static_cast<unsigned char>(i + 1);

  void* page = arena.allocate(100, 4096);
  REQUIRE(page != nullptr);
  CHECK(reinterpret_cast<uintptr_t>(page) % 4096 == 0);
  CHECK(arena.size_of(page) == 100);
  CHECK(arena.size_of(a) == 10);              // the next block's header did not overwrite it
  CHECK(arena.allocate(8, 24) == nullptr);    // not a power of two
  CHECK(arena.allocate(8, 8192) == nullptr);  // beyond the arena's largest alignment

  // Never the arena's: the heap, the stack, one past its end.
  int local = 0;
  void* heap_block = std::malloc(1);
  CHECK_FALSE(arena.owns(heap_block));
  CHECK_FALSE(arena.owns(&local));
  CHECK_FALSE(arena.owns(storage + sizeof storage));
  CHECK(arena.owns(storage + sizeof storage - 1));
  std::free(heap_block);

  // realloc of an arena block: a block of the real allocator with the old bytes, larger or
  // smaller; the arena block is left alone.
  g_moved_to.clear();
  auto* grown = static_cast<unsigned char*>(arena.move_out(a, 50, test_malloc));
  REQUIRE(g_moved_to.size() == 1);
  CHECK(grown == g_moved_to[0]);
  CHECK_FALSE(arena.owns(grown));
  for (int i = 0; i < 10; ++i) CHECK(grown[i] == i + 1);
  auto* shrunk = static_cast<unsigned char*>(arena.move_out(a, 4, test_malloc));
  for (int i = 0; i < 4; ++i) CHECK(shrunk[i] == i + 1);
  CHECK(a[9] == 10);
  std::free(grown);
  std::free(shrunk);

  // Full: nullptr, and what was handed out stays valid.
  CHECK(arena.allocate(sizeof storage, 16) == nullptr);
  size_t blocks = 0;
  while (arena.allocate(64, 16) != nullptr) ++blocks;
  CHECK(blocks > 0);
  CHECK(blocks < sizeof storage / 64);
  CHECK(arena.size_of(page) == 100);
}

TEST_CASE("bootstrap arena: threads racing get disjoint blocks") {
  alignas(16) static unsigned char storage[64 * 1024];
  BootstrapArena arena{storage, sizeof storage, 0};
  constexpr int kThreads = 4;
  std::vector<std::vector<unsigned char*>> got(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      while (auto* b = static_cast<unsigned char*>(arena.allocate(32, 16))) {
        std::memset(b, i + 1, 32);
        got[size_t(i)].push_back(b);
      }
    });
  for (auto& t : threads) t.join();
  size_t total = 0;
  for (int i = 0; i < kThreads; ++i) {
    total += got[size_t(i)].size();
    for (unsigned char* b : got[size_t(i)]) {
      CHECK(b[0] == i + 1);
      CHECK(b[31] == i + 1);
      CHECK(arena.size_of(b) == 32);
    }
  }
  // 48 bytes a block (16 of header): every byte of the arena was handed out once.
  CHECK(total == sizeof storage / 48);
}
