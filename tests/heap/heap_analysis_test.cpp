// HeapAnalysis from hand-made event sequences: heaptrack's temporary allocations (per thread),
// DHAT's peak and who held it, leaks at the end of a space and at finish, lifetimes and
// short-lived blocks, the size histogram, folded rows, lost and unmatched frees, sampled
// estimates.
#include "sprof/heap/heap_analysis.hpp"

#include <doctest/doctest.h>

#include "sprof/heap/sample_weight.hpp"

using namespace sprof::heap;

namespace {

AllocationEvent alloc(double ms, int64_t thread, uint64_t address, uint64_t size, uint32_t site,
                      uint64_t space = 1) {
  AllocationEvent e;
  e.time_ms = ms;
  e.space = space;
  e.thread = thread;
  e.address = address;
  e.size = size;
  e.bytes = static_cast<int64_t>(size);
  e.site = site;
  return e;
}

FreeEvent free_of(double ms, int64_t thread, uint64_t address, uint64_t space = 1) {
  return {ms, space, thread, address};
}

}  // namespace

TEST_CASE("temporary: freed by its thread before that thread allocates or frees anything else") {
  HeapAnalysis a;
  a.allocate(alloc(0, 7, 0x100, 8, 0));
  a.free(free_of(1, 7, 0x100));  // temporary
  a.allocate(alloc(2, 7, 0x200, 8, 1));
  a.allocate(alloc(3, 7, 0x300, 8, 1));
  a.free(free_of(4, 7, 0x200));  // not: 0x300 came after it
  a.free(free_of(5, 7, 0x300));  // not: the thread freed 0x200 in between
  a.allocate(alloc(6, 7, 0x400, 8, 2));
  a.allocate(alloc(7, 8, 0x500, 8, 2));  // another thread's allocation does not matter
  a.free(free_of(8, 7, 0x400));          // temporary
  a.allocate(alloc(9, 7, 0x600, 8, 2));
  a.free(free_of(10, 8, 0x600));  // freed by another thread: not temporary
  a.finish();
  CHECK(a.sites()[0].temporary == 1);
  CHECK(a.sites()[1].temporary == 0);
  CHECK(a.sites()[2].temporary == 1);
  CHECK(a.totals().all.temporary == 2);
  CHECK(a.totals().all.calls == 6);
  CHECK(a.totals().all.freed == 5);
  CHECK(a.sites()[2].leaked_blocks == 1);  // 0x500
}

TEST_CASE("peak: the largest live total, and what each site held at that moment") {
  HeapAnalysis a;
  a.allocate(alloc(0, 1, 0x10, 100, 0));
  a.allocate(alloc(1, 1, 0x20, 300, 1));
  a.free(free_of(2, 1, 0x10));             // 300 live
  a.allocate(alloc(3, 1, 0x30, 50, 2));    // 350
  a.allocate(alloc(4, 1, 0x40, 1000, 0));  // 1350: the peak
  a.free(free_of(5, 1, 0x40));             // 350
  a.allocate(alloc(6, 1, 0x50, 900, 2));   // 1250: below the peak
  a.free(free_of(7, 1, 0x20));
  a.finish();
  CHECK(a.totals().all.peak_bytes == 1350);
  CHECK(a.totals().peak_time_ms == 4);
  CHECK(a.sites()[0].peak_bytes == 1000);
  CHECK(a.sites()[1].peak_bytes == 300);
  CHECK(a.sites()[2].peak_bytes == 50);
  CHECK(a.sites()[2].leaked_bytes == 950);
  CHECK(a.sites()[2].leaked_blocks == 2);
  CHECK(a.totals().all.leaked_bytes == 950);
}

TEST_CASE("peak: a peak reached last is taken at finish; sites untouched since keep theirs") {
  HeapAnalysis a;
  a.allocate(alloc(0, 1, 0x10, 10, 0));
  a.allocate(alloc(1, 1, 0x20, 20, 1));
  a.free(free_of(2, 1, 0x20));  // snapshot of the 30-byte peak
  a.allocate(alloc(3, 1, 0x30, 40, 1));
  a.allocate(alloc(4, 1, 0x40, 5, 2));  // 55 live, never freed
  a.finish();
  CHECK(a.totals().all.peak_bytes == 55);
  CHECK(a.sites()[0].peak_bytes == 10);
  CHECK(a.sites()[1].peak_bytes == 40);
  CHECK(a.sites()[2].peak_bytes == 5);
}

TEST_CASE("end_space: a space's live blocks are leaks and no longer live") {
  HeapAnalysis a;
  a.allocate(alloc(0, 1, 0x10, 100, 0, /*space=*/1));
  a.allocate(alloc(1, 2, 0x10, 60, 1, /*space=*/2));  // same address, another space
  a.end_space(1);
  a.allocate(alloc(2, 2, 0x20, 50, 1, 2));  // 110 live: below the 160 peak
  a.free(free_of(3, 2, 0x10, 2));
  a.free(free_of(4, 1, 0x10, 1));  // space 1 ended: unmatched
  a.finish();
  CHECK(a.totals().all.peak_bytes == 160);
  CHECK(a.sites()[0].leaked_bytes == 100);
  CHECK(a.sites()[1].leaked_bytes == 50);
  CHECK(a.totals().all.leaked_blocks == 2);
  CHECK(a.totals().unmatched_frees == 1);
  CHECK(a.totals().all.live_bytes == 0);
}

TEST_CASE("lifetimes: average over freed blocks, short-lived under 1 ms") {
  HeapAnalysis a;
  a.allocate(alloc(10, 1, 0x10, 8, 0));
  a.allocate(alloc(10, 1, 0x20, 8, 0));
  a.allocate(alloc(10, 1, 0x30, 8, 0));
  a.free(free_of(10.5, 1, 0x10));  // 0.5 ms: short-lived
  a.free(free_of(11, 1, 0x20));    // 1 ms: not
  a.free(free_of(14.5, 1, 0x30));  // 4.5 ms
  a.finish();
  const SiteStats& s = a.sites()[0];
  CHECK(s.freed == 3);
  CHECK(s.short_lived == 1);
  CHECK(s.average_lifetime_ms() == doctest::Approx(2.0));
}

TEST_CASE("size histogram: power-of-two buckets of the requested sizes") {
  CHECK(size_bucket(0) == 0);
  CHECK(size_bucket(1) == 1);
  CHECK(size_bucket(2) == 2);
  CHECK(size_bucket(3) == 2);
  CHECK(size_bucket(4) == 3);
  CHECK(size_bucket(1 << 20) == 21);
  CHECK(size_bucket(UINT64_MAX) == 64);
  CHECK(bucket_lower_bound(0) == 0);
  CHECK(bucket_lower_bound(21) == 1 << 20);
  HeapAnalysis a;
  uint64_t address = 0x1000;
  for (uint64_t size : {0, 1, 16, 31, 32, 1 << 20}) a.allocate(alloc(0, 1, address++, size, 0));
  a.finish();
  const SizeHistogram& h = a.totals().sizes;
  CHECK(h[0] == 1);
  CHECK(h[1] == 1);
  CHECK(h[5] == 2);  // 16 and 31
  CHECK(h[6] == 1);
  CHECK(h[21] == 1);
}

TEST_CASE("folded rows: bytes and live memory, never calls, lifetimes or sizes") {
  HeapAnalysis a;
  AllocationEvent folded = alloc(0, 1, (uint64_t{1} << 63) + 1, 0, 0);
  folded.bytes = 4000;
  folded.folded = true;
  a.allocate(folded);
  a.free(free_of(0.1, 1, folded.address));
  a.allocate(alloc(1, 1, 0x10, 10, 0));
  a.free(free_of(1.1, 1, 0x10));
  a.finish();
  const SiteStats& s = a.sites()[0];
  CHECK(s.bytes == 4010);
  CHECK(s.calls == 1);
  CHECK(s.records == 1);
  CHECK(s.folded_rows == 1);
  CHECK(s.folded_bytes == 4000);
  CHECK(s.freed == 1);
  CHECK(s.short_lived == 1);
  CHECK(s.temporary == 1);
  CHECK(s.peak_bytes == 4000);
  CHECK(a.totals().sizes[4] == 1);  // only the 10-byte block
}

TEST_CASE("an allocation at a live address ends the old block there (its free was lost)") {
  HeapAnalysis a;
  a.allocate(alloc(0, 1, 0x10, 100, 0));
  a.allocate(alloc(2, 1, 0x10, 30, 1));
  a.finish();
  CHECK(a.sites()[0].freed == 1);
  CHECK(a.sites()[0].temporary == 1);
  CHECK(a.sites()[0].leaked_bytes == 0);
  CHECK(a.sites()[1].leaked_bytes == 30);
  CHECK(a.totals().all.peak_bytes == 100);
}

TEST_CASE("sampled: calls are the estimate 1/p per sample, with its variance") {
  constexpr uint64_t kInterval = 512 * 1024;
  HeapAnalysis a;
  AllocationEvent e = alloc(0, 1, 0x10, 64, 0);
  e.bytes = std::llround(estimated_bytes(64, kInterval));
  e.calls = estimated_calls(64, kInterval);
  a.allocate(e);
  a.free(free_of(0.5, 1, 0x10));
  a.finish();
  const double c = 1 / -std::expm1(-64.0 / kInterval);
  CHECK(a.sites()[0].calls == doctest::Approx(c));
  CHECK(a.sites()[0].calls_variance == doctest::Approx(c * c - c));
  CHECK(a.sites()[0].temporary == doctest::Approx(c));
  CHECK(a.totals().sizes[7] == doctest::Approx(c));
}

TEST_CASE("size_from_estimated_bytes inverts the rounded estimate") {
  constexpr uint64_t kInterval = 512 * 1024;
  for (uint64_t size : {16, 64, 1000, 4096, 100000, 1 << 20, 50 << 20}) {
    INFO(size);
    const int64_t bytes = std::llround(estimated_bytes(size, kInterval));
    const uint64_t back = size_from_estimated_bytes(bytes, kInterval);
    CHECK(back + 2 >= size);
    CHECK(back <= size + 2);
    CHECK(size_bucket(back) == size_bucket(size));  // powers of two stay in their bucket
  }
  // Above the interval the estimate is close to the size and every size comes back.
  CHECK(size_from_estimated_bytes(std::llround(estimated_bytes(3'000'001, kInterval)), kInterval) ==
        3'000'001);
  CHECK(size_from_estimated_bytes(12345, 0) == 12345);
  CHECK(size_from_estimated_bytes(0, kInterval) == 0);
}

TEST_CASE("size histogram text: written and read back; anything else is refused") {
  SizeHistogram h{};
  h[0] = 2;
  h[5] = 100.4;  // sampled estimates are rounded
  h[21] = 3;
  CHECK(format_size_histogram(h) == "0:2 16:100 1048576:3");
  const auto back = parse_size_histogram("0:2 16:100 1048576:3");
  REQUIRE(back.has_value());
  CHECK((*back)[0] == 2);
  CHECK((*back)[5] == 100);
  CHECK((*back)[21] == 3);
  CHECK(parse_size_histogram("")->at(5) == 0);
  CHECK_FALSE(parse_size_histogram("17:3").has_value());  // starts no bucket
  CHECK_FALSE(parse_size_histogram("16:").has_value());
  CHECK_FALSE(parse_size_histogram("16:3,32:1").has_value());
  CHECK_FALSE(parse_size_histogram("x").has_value());
}
