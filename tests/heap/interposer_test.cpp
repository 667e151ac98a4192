// libsprof-heap.so in real programs (tests/targets/heap), recorded with sprof-heap-run: what it
// records must match what the programs did, by site, by size, by process, in both modes.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "heap_recording.hpp"
#include "sprof/heap/sample_weight.hpp"

using namespace sprof::heap;
using namespace sprof::heap::test;

namespace {

const char* const kSites[] = {"site_small", "site_medium", "site_large"};
const uint64_t kSiteBlock[] = {256, 4096, 65536};

// "site_small calls=N bytes=M" lines and "leak_site bytes=M" from hp_sites; calls under
// "<site> calls".
std::map<std::string, uint64_t> site_bytes(const std::string& out) {
  std::map<std::string, uint64_t> bytes;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    char name[64] = {};
    unsigned long long calls = 0, b = 0;
    if (std::sscanf(line.c_str(), "%63s calls=%llu bytes=%llu", name, &calls, &b) == 3) {
      bytes[name] = b;
      bytes[std::string(name) + " calls"] = calls;
    } else if (std::sscanf(line.c_str(), "%63s bytes=%llu", name, &b) == 2) {
      bytes[name] = b;
    }
  }
  return bytes;
}

void require_clean_run(const HeapRecording& r) {
  INFO(r.process.err);
  REQUIRE_FALSE(r.process.timed_out);
  REQUIRE(r.process.exit_code == 0);
  REQUIRE(r.dump_ok);
  CHECK(r.stats.malformed_records == 0);
  CHECK(r.header.counters.attached_processes >= 1);
}

// Replays the records in ring order: every free must end a block that is live in that process.
// Returns the blocks still live at the end, by address.
std::map<uint64_t, HeapAlloc> replay(const HeapRecording& r, bool frees_must_match) {
  std::map<uint64_t, HeapAlloc> live;
  size_t unmatched = 0;
  for (const auto& e : r.events) {
    if (const auto* a = std::get_if<HeapAlloc>(&e)) {
      live[a->address] = *a;
    } else if (const auto* f = std::get_if<HeapFree>(&e)) {
      auto it = live.find(f->address);
      if (it == live.end() || it->second.pid != f->pid) {
        ++unmatched;
        continue;
      }
      live.erase(it);
    }
  }
  if (frees_must_match) CHECK(unmatched == 0);
  return live;
}

// Default sampling interval, but a ring that holds the whole run (~2,400 samples of ~1.1 KiB
// each) so that no record is dropped however far the drainer falls behind on a busy machine:
// these tests are about what sampling picks, not about drain speed (a full ring drops and
// counts, and the tests of the ring cover that).
const std::vector<std::string> kDefaultSamplingLossless = {"--stack-bytes", "1024", "--ring-bytes",
                                                           "67108864"};

}  // namespace

TEST_CASE("default sampling splits allocated bytes between sites within 5 points of the truth") {
  auto r = record_heap("hp_sites", kDefaultSamplingLossless);
  require_clean_run(r);
  CHECK(r.header.counters.dropped_records == 0);
  TargetSymbols symbols(target_path("hp_sites"));
  REQUIRE(symbols.ok());
  const auto truth = site_bytes(r.process.out);
  const uint64_t interval = r.header.config.sample_interval_bytes;
  CHECK(interval == 512 * 1024);

  std::map<std::string, double> estimate;
  size_t samples = 0;
  for (const auto& a : r.allocs()) {
    const std::string site = caller_function(a, r, symbols);
    for (size_t s = 0; s < 3; ++s) {
      if (site != kSites[s]) continue;
      CHECK(a.size == kSiteBlock[s]);  // attribution by return address agrees with the size
      estimate[site] += estimated_bytes(a.size, interval);
      ++samples;
    }
  }
  double true_total = 0, estimated_total = 0;
  for (const char* s : kSites) {
    true_total += static_cast<double>(truth.at(s));
    estimated_total += estimate[s];
  }
  CAPTURE(samples);
  // 1.2 GiB at 512 KiB: ~2,400 samples, for a standard deviation of about one point per share.
  REQUIRE(samples > 1000);
  for (const char* s : kSites) {
    const double true_share = static_cast<double>(truth.at(s)) / true_total;
    const double estimated_share = estimate[s] / estimated_total;
    CAPTURE(s);
    CAPTURE(true_share);
    CAPTURE(estimated_share);
    CHECK(std::abs(true_share - estimated_share) < 0.05);
  }
  // The totals the interposer keeps count every call, sampled or not.
  uint64_t program_calls = 0;
  for (const char* s : kSites) program_calls += truth.at(std::string(s) + " calls");
  CHECK(r.header.counters.allocations >= program_calls);
  CHECK(r.header.counters.allocations < program_calls + 1000);
  CHECK(r.header.counters.sampled_allocations == r.allocs().size());
}

TEST_CASE("default sampling records the free of every sampled block, and none of the leak") {
  auto r = record_heap("hp_sites", kDefaultSamplingLossless);
  require_clean_run(r);
  TargetSymbols symbols(target_path("hp_sites"));
  const auto live = replay(r, /*frees_must_match=*/true);
  size_t leak_blocks = 0;
  for (const auto& [address, a] : live) {
    const std::string site = caller_function(a, r, symbols);
    CAPTURE(site);
    CHECK(site != "site_small");
    CHECK(site != "site_medium");
    CHECK(site != "site_large");
    if (site == "leak_site") ++leak_blocks;
  }
  // Each leak block is 1 MiB or more: at 512 KiB, missing all three has odds below 1e-6.
  CHECK(leak_blocks >= 1);
  size_t leak_records = 0;
  for (const auto& a : r.allocs()) leak_records += caller_function(a, r, symbols) == "leak_site";
  CHECK(leak_records == leak_blocks);
}

TEST_CASE("record-all mode gives exact bytes per site and the exact leak") {
  auto r = record_heap("hp_sites", {"--all", "--stack-bytes", "1024", "--ring-bytes", "67108864"},
                       {"6144"});
  require_clean_run(r);
  REQUIRE(r.header.counters.dropped_records == 0);
  TargetSymbols symbols(target_path("hp_sites"));
  const auto truth = site_bytes(r.process.out);
  std::map<std::string, uint64_t> recorded;
  std::set<uint32_t> threads;
  for (const auto& a : r.allocs()) {
    CHECK(a.all_mode());
    const std::string site = caller_function(a, r, symbols);
    recorded[site] += a.size;
    if (site == "site_small") threads.insert(a.tid);
  }
  for (const char* s : kSites) {
    CAPTURE(s);
    CHECK(recorded[s] == truth.at(s));
  }
  CHECK(threads.size() == 3);
  std::map<std::string, uint64_t> retained;
  for (const auto& [address, a] : replay(r, /*frees_must_match=*/false))
    retained[caller_function(a, r, symbols)] += a.size;
  CHECK(retained["leak_site"] == truth.at("leak_site"));
  for (const char* s : kSites) CHECK(retained[s] == 0);
}

TEST_CASE("registers and stack copies are the state at malloc's entry") {
  auto r = record_heap(
      "hp_sites", {"--all", "--copy-stacks", "--stack-bytes", "1024", "--ring-bytes", "67108864"},
      {"1024"});
  require_clean_run(r);
  TargetSymbols symbols(target_path("hp_sites"));
  std::set<uint64_t> malloc_ips;
  size_t checked = 0;
  for (const auto& a : r.allocs()) {
    const std::string site = caller_function(a, r, symbols);
    if (site.rfind("site_", 0) != 0 && site != "leak_site") continue;
    ++checked;
    CAPTURE(site);
    REQUIRE(a.stack.size() == 1024);
    // At a function's entry the return address was just pushed onto a 16-byte aligned stack.
    CHECK(a.regs.sp % 16 == 8);
    CHECK(a.stack_end >= a.regs.sp + a.stack.size());
    // The sites keep frame pointers: at malloc's entry %rbp is the site's frame, on the stack.
    CHECK(a.regs.bp > a.regs.sp);
    CHECK(a.regs.bp < a.stack_end);
    // The instruction pointer is the interposer's capture stub, not the program.
    CHECK(caller_function(HeapAlloc{a}, r, symbols) == site);
    const uint64_t bias = r.main_by_pid.at(a.pid) - *symbols.address_of("main");
    CHECK(symbols.function_at(a.regs.ip - bias).empty());
    if (a.function == AllocFunction::kMalloc) malloc_ips.insert(a.regs.ip);
  }
  CHECK(checked > 1000);
  CHECK(malloc_ips.size() == 1);
}

TEST_CASE("realloc chains and aligned allocations are recorded as the program made them") {
  auto r = record_heap("hp_realloc_aligned", {"--all", "--stack-bytes", "512"});
  require_clean_run(r);
  CHECK(r.process.out.find("ok\n") != std::string::npos);
  TargetSymbols symbols(target_path("hp_realloc_aligned"));

  std::vector<size_t> chain;  // indexes into events of the chain's realloc records
  for (size_t i = 0; i < r.events.size(); ++i) {
    const auto* a = std::get_if<HeapAlloc>(&r.events[i]);
    if (a != nullptr && a->is_realloc && caller_function(*a, r, symbols) == "realloc_chain")
      chain.push_back(i);
  }
  REQUIRE(chain.size() == 18);  // 16 B .. 1 MiB, then reallocarray
  uint64_t previous = 0, size = 16;
  for (size_t k = 0; k < chain.size(); ++k) {
    const auto& a = std::get<HeapAlloc>(r.events[chain[k]]);
    CAPTURE(k);
    CHECK(a.old_address == previous);
    CHECK(a.size == (k < 17 ? size : 1000000));
    CHECK(a.function == (k < 17 ? AllocFunction::kRealloc : AllocFunction::kReallocArray));
    if (previous != 0) {
      // The old block's free is recorded first, by the same thread, right before.
      const auto* f = std::get_if<HeapFree>(&r.events[chain[k] - 1]);
      REQUIRE(f != nullptr);
      CHECK(f->address == previous);
    }
    previous = a.address;
    size *= 2;
  }
  const auto live = replay(r, false);
  CHECK(live.count(previous) == 0);

  struct Expected {
    AllocFunction function;
    uint64_t size;
    uint64_t alignment;
  };
  const Expected expected[] = {
      {AllocFunction::kPosixMemalign, 1000, 64}, {AllocFunction::kAlignedAlloc, 8192, 4096},
      {AllocFunction::kMemalign, 300, 256},      {AllocFunction::kValloc, 5000, 0},
      {AllocFunction::kPvalloc, 5000, 0},        {AllocFunction::kCalloc, 300, 0}};
  for (const auto& e : expected) {
    size_t found = 0;
    for (const auto& a : r.allocs()) {
      if (a.function != e.function || caller_function(a, r, symbols) != "aligned_site") continue;
      ++found;
      CHECK(a.size == e.size);
      CHECK(a.alignment == e.alignment);
      if (e.alignment != 0) CHECK(a.address % e.alignment == 0);
      CHECK(live.count(a.address) == 0);
    }
    CAPTURE(static_cast<int>(e.function));
    CHECK(found == 1);
  }
  // operator new[] and aligned operator new reach the interposer through libstdc++.
  size_t new_arrays = 0, aligned_news = 0;
  for (const auto& a : r.allocs()) {
    new_arrays += a.function == AllocFunction::kMalloc && a.size == 1234;
    aligned_news += a.alignment == 128 && a.size == 384;
  }
  CHECK(new_arrays == 1);
  CHECK(aligned_news == 1);
}

TEST_CASE("fork children and exec'd children attach and record their own allocations") {
  auto r = record_heap("hp_fork_exec", {"--all", "--stack-bytes", "512"});
  require_clean_run(r);
  CHECK(r.process.out.find("children ok=1") != std::string::npos);
  TargetSymbols symbols(target_path("hp_fork_exec"));

  std::map<std::string, std::set<uint32_t>> pids_by_site;
  for (const auto& a : r.allocs()) {
    const std::string site = caller_function(a, r, symbols);
    if (site.find("_site") != std::string::npos) {
      pids_by_site[site].insert(a.pid);
      CHECK(a.size == (site == "parent_site" ? 1111 : site == "fork_child_site" ? 2222 : 3333));
    }
  }
  REQUIRE(pids_by_site["parent_site"].size() == 1);
  REQUIRE(pids_by_site["fork_child_site"].size() == 1);
  REQUIRE(pids_by_site["exec_child_site"].size() == 1);
  const uint32_t parent = *pids_by_site["parent_site"].begin();
  const uint32_t forked = *pids_by_site["fork_child_site"].begin();
  const uint32_t execed = *pids_by_site["exec_child_site"].begin();
  CHECK(forked != parent);
  CHECK(execed != parent);
  CHECK(execed != forked);

  // Attach records: the program's start, each fork child, and the exec'd image.
  std::vector<std::tuple<uint32_t, AttachHow, uint32_t>> attaches;
  for (const auto& at : r.attaches()) {
    attaches.emplace_back(at.pid, at.how, at.ppid);
    CHECK(at.exe.find("hp_fork_exec") != std::string_view::npos);
  }
  using T = std::tuple<uint32_t, AttachHow, uint32_t>;
  CHECK(std::count(attaches.begin(), attaches.end(), T{forked, AttachHow::kFork, parent}) == 1);
  CHECK(std::count(attaches.begin(), attaches.end(), T{execed, AttachHow::kFork, parent}) == 1);
  CHECK(std::count(attaches.begin(), attaches.end(), T{execed, AttachHow::kStart, parent}) == 1);
  CHECK(r.header.counters.attached_processes == attaches.size());
  CHECK(replay(r, false).size() < 100);  // frees are matched in every process
}

TEST_CASE("allocations that fail are neither counted nor recorded, in both modes") {
  // hp_failed_alloc asks each allocation function for 1 PiB (11 requests), then allocates 4 KiB.
  constexpr uint64_t kHuge = uint64_t{1} << 50;
  for (const bool all : {true, false}) {
    CAPTURE(all);
    auto r = record_heap("hp_failed_alloc",
                         all ? std::vector<std::string>{"--all"} : std::vector<std::string>{});
    require_clean_run(r);
    CHECK(r.process.out.find("failed=11 good_bytes=4096") != std::string::npos);
    const RingCounters& c = r.header.counters;
    CHECK(c.allocated_bytes < kHuge);
    CHECK(c.sampled_bytes < kHuge);
    uint64_t recorded_bytes = 0;
    for (const auto& a : r.allocs()) {
      CHECK(a.size < kHuge);
      recorded_bytes += a.size;
    }
    if (all) {
      // Every allocation that succeeded was recorded, and nothing else was counted.
      REQUIRE(c.dropped_records == 0);
      CHECK(c.allocations == r.allocs().size() + c.reentrant_calls);
      CHECK(c.allocated_bytes == recorded_bytes);
      CHECK(recorded_bytes >= 4096);
    }
  }
}
