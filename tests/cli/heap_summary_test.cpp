// The allocation lines of the end-of-recording summary (cli/heap_summary.cpp): the heap
// analysis's line after the totals and the retained paths.
#include "heap_summary.hpp"

#include <doctest/doctest.h>

using sprof::cli::heap_summary_lines;
using sprof::convert::HeapStats;

namespace {

HeapStats recorded_all() {
  HeapStats h;
  h.enabled = true;
  h.attached_processes = 1;
  h.calls = h.allocations = 1200;
  h.call_bytes = 50'000;
  h.temporary = 100;
  h.short_lived = 130;
  h.freed_blocks = 1000;
  h.mean_lifetime_ms = 2.5;
  h.sizes[sprof::heap::size_bucket(40)] = 250;
  h.sizes[sprof::heap::size_bucket(1000)] = 950;
  return h;
}

}  // namespace

TEST_CASE("the heap analysis line: temporaries, short-lived blocks, lifetime, common size") {
  const auto lines = heap_summary_lines(recorded_all(), {{"leak_site < main", 333, 1}});
  REQUIRE(lines.size() == 3);
  CHECK(lines[1].find("from leak_site < main") != std::string::npos);
  CHECK(lines[2] ==
        "sprof: heap: 100 temporary allocations (8 %), 130 blocks freed within 1 ms, mean "
        "lifetime 2.5 ms; most often 512-1023 B (79 %)");
}

TEST_CASE("the heap analysis line says 'about' for sampled estimates; none without records") {
  HeapStats sampled = recorded_all();
  sampled.sample_interval_bytes = 512 * 1024;
  const auto lines = heap_summary_lines(sampled, {});
  REQUIRE(lines.size() == 2);
  CHECK(lines[1].rfind("sprof: heap: about 100 temporary allocations", 0) == 0);
  HeapStats none = recorded_all();
  none.allocations = 0;
  const auto none_lines = heap_summary_lines(none, {});
  for (const std::string& line : none_lines) CHECK(line.find("temporary") == std::string::npos);
  // (What record-all mode counted and could not record gets its own line.)
  REQUIRE(none_lines.size() == 2);
  CHECK(none_lines[1].rfind("sprof: heap: 1,200 allocations were counted but not recorded", 0) ==
        0);
}

TEST_CASE("programs whose allocations bypass the interposer are named, one line each") {
  HeapStats h = recorded_all();
  h.malloc_bypassed_programs = {"/bin/own"};
  h.foreign_operator_new_programs = {"/bin/tc"};
  const auto lines = heap_summary_lines(h, {});
  REQUIRE(lines.size() == 4);
  CHECK(lines[2] ==
        "sprof: heap: /bin/own defines its own malloc: its allocations are not recorded");
  CHECK(lines[3] ==
        "sprof: heap: /bin/tc links an allocator whose operator new does not call malloc: blocks "
        "from new are not recorded");
}

TEST_CASE("attached to a running program (-p): earlier allocations are said to be unknown") {
  HeapStats all = recorded_all();
  all.running_attaches = 1;
  all.unmatched_frees = 7;
  const auto lines = heap_summary_lines(all, {});
  REQUIRE(lines.size() == 3);
  CHECK(lines[1] ==
        "sprof: heap: attached to 1 running program: allocations before the attach are unknown; "
        "7 frees of earlier blocks ignored");
  HeapStats sampled = all;
  sampled.sample_interval_bytes = 512 * 1024;
  sampled.running_attaches = 2;
  CHECK(heap_summary_lines(sampled, {})[1] ==
        "sprof: heap: attached to 2 running programs: allocations before the attach are "
        "unknown; their frees are not recorded");
}

TEST_CASE("record-all mode says how many counted calls it could not record, and why") {
  HeapStats h = recorded_all();
  h.calls = 1202;  // two by the dynamic loader before the interposer attached
  const auto lines = heap_summary_lines(h, {});
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].rfind("sprof: heap: 1,200 of 1,202 allocations recorded", 0) == 0);
  CHECK(lines[2] ==
        "sprof: heap: 2 allocations were counted but not recorded: made before the interposer "
        "could attach (by the dynamic loader, before libc started) or from inside its hook");
  // Sampled mode leaves calls out on purpose, and dropped records have a line of their own.
  HeapStats sampled = h;
  sampled.sample_interval_bytes = 512 * 1024;
  CHECK(heap_summary_lines(sampled, {}).size() == 2);
  CHECK(heap_summary_lines(recorded_all(), {}).size() == 2);
}
