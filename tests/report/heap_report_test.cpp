// `sprof report --heap` on a hand-made self-contained profile: native-allocation rows read back
// (checked like every table), sites by function path across threads, temporary allocations,
// lifetimes, what each site held at the peak and leaked, folded rows kept out of the counts, the
// recording's totals from meta preferred, and the text and JSON forms.
#include "sprof/report/heap_report.hpp"

#include <doctest/doctest.h>
#include <simdjson.h>

#include "report_profile_builder.hpp"
#include "sprof/heap/heap_analysis.hpp"
#include "sprof/heap/sample_weight.hpp"
#include "sprof/report/heap_report_json.hpp"
#include "sprof/report/heap_report_text.hpp"
#include "sprof/report/heap_weights.hpp"
#include "sprof/report/report_view.hpp"

namespace sprof::report {
namespace {

// The report profile's two threads with allocations (times in ms):
//   main   1    100 B at leaf (leaf < compute < main), freed at 1.2: temporary, short-lived
//          2   1000 B at compute, freed at 10 (8 ms)
//          3     50 B at leaf, never freed: leaked
//          11   500 B folded row at leaf, freed at 12
//   worker 2.5   30 B at 0xB0 (main's address too: another table), freed at 4: temporary
// Live bytes peak at 1,080 at 3 ms: compute 1000, leaf 50, the worker's 30.
profile::Profile heap_profile(bool with_recorded_totals) {
  profile::Profile p = test::make_report_profile();
  p.meta.extra.emplace_back("heap", std::string("all"));
  if (with_recorded_totals) {
    p.meta.extra.emplace_back("heapCalls", int64_t{7});
    p.meta.extra.emplace_back("heapTemporary", int64_t{5});
    p.meta.extra.emplace_back("heapPeakLiveBytes", int64_t{2000});
    p.meta.extra.emplace_back("heapSizeHistogram", std::string("16:7"));
  }
  const auto at = [](int f) { return uint64_t{0x401010} + 0x100 * static_cast<uint64_t>(f); };
  const auto stack_of = [&](profile::Thread& t, std::initializer_list<int> functions) {
    std::optional<uint32_t> s;
    for (int f : functions) {
      s = t.intern_stack(s, t.intern_address_frame(at(f), profile::Category::kUser));
    }
    return *s;
  };
  profile::Thread& main = p.processes[0].threads[0];
  const uint32_t leaf = stack_of(main, {0, 1, 2});
  const uint32_t compute = stack_of(main, {0, 1});
  const uint64_t folded = heap::kFoldedAddressBase + 1;
  for (const profile::NativeAllocation& a :
       std::initializer_list<profile::NativeAllocation>{{1, 100, leaf, 0xA0, 100},
                                                        {1.2, -100, std::nullopt, 0xA0, 100},
                                                        {2, 1000, compute, 0xB0, 100},
                                                        {3, 50, leaf, 0xC0, 100},
                                                        {10, -1000, std::nullopt, 0xB0, 100},
                                                        {11, 500, leaf, folded, 100},
                                                        {12, -500, std::nullopt, folded, 100}}) {
    main.add_native_allocation(a);
  }
  profile::Thread& worker = p.processes[0].threads[1];
  const uint32_t worker_leaf = stack_of(worker, {4, 1, 2});
  worker.add_native_allocation({2.5, 30, worker_leaf, 0xB0, 101});
  worker.add_native_allocation({4, -30, std::nullopt, 0xB0, 101});
  return p;
}

ReportProfile read_back(const profile::Profile& p) {
  auto read =
      read_processed_profile(profile::processed_json_string(p, test::make_report_symbols()));
  REQUIRE_MESSAGE(read.has_value(), (read ? "" : read.error().message));
  return std::move(*read);
}

ThreadSet all_threads(const ReportProfile& p) {
  ThreadSet threads;
  for (const ReportThread& t : p.threads) threads.push_back(&t);
  return threads;
}

std::string path_names(const ReportProfile& p, const HeapSite& site) {
  std::string out;
  for (uint32_t f : site.path) out += (out.empty() ? "" : " < ") + p.functions[f].name;
  return out;
}

const HeapSite& site_named(const ReportProfile& p, const HeapReport& r, const std::string& path) {
  for (const HeapSite& s : r.sites) {
    if (path_names(p, s) == path) return s;
  }
  FAIL("no site " << path);
  return r.sites.front();
}

}  // namespace

TEST_CASE("native-allocation rows read back from a self-contained profile") {
  const ReportProfile p = read_back(heap_profile(false));
  REQUIRE(p.threads[0].allocations.size() == 7);
  const AllocationRow& folded = p.threads[0].allocations[5];
  CHECK(folded.time_ms == 11);
  CHECK(folded.bytes == 500);
  CHECK(folded.address == heap::kFoldedAddressBase + 1);
  CHECK(folded.stack.has_value());
  CHECK_FALSE(p.threads[0].allocations[1].stack.has_value());
  CHECK(p.threads[1].allocations.size() == 2);
  CHECK(p.threads[1].allocations[0].thread_id == 101);
}

TEST_CASE("heap report: sites by function path, temporaries, lifetimes, peak holders, leaks") {
  const ReportProfile p = read_back(heap_profile(false));
  auto built = build_heap_report(p, all_threads(p));
  REQUIRE(built.has_value());
  const HeapReport& r = *built;
  REQUIRE(r.sites.size() == 3);
  CHECK(path_names(p, r.sites[0]) == "compute < main");  // by bytes, largest first

  const heap::SiteStats& leaf = site_named(p, r, "leaf < compute < main").stats;
  CHECK(leaf.bytes == 650);
  CHECK(leaf.calls == 2);  // the folded row is no call
  CHECK(leaf.folded_rows == 1);
  CHECK(leaf.folded_bytes == 500);
  CHECK(leaf.temporary == 1);
  CHECK(leaf.freed == 1);
  CHECK(leaf.short_lived == 1);
  CHECK(leaf.average_lifetime_ms() == doctest::Approx(0.2));
  CHECK(leaf.peak_bytes == 50);
  CHECK(leaf.leaked_bytes == 50);
  CHECK(leaf.leaked_blocks == 1);

  const heap::SiteStats& compute = site_named(p, r, "compute < main").stats;
  CHECK(compute.temporary == 0);
  CHECK(compute.average_lifetime_ms() == doctest::Approx(8));
  CHECK(compute.short_lived == 0);
  CHECK(compute.peak_bytes == 1000);

  const heap::SiteStats& worker = site_named(p, r, "leaf < compute < worker_entry").stats;
  CHECK(worker.temporary == 1);
  CHECK(worker.peak_bytes == 30);

  CHECK_FALSE(r.totals.from_recording);
  CHECK(r.totals.calls == 4);
  CHECK(r.totals.temporary == 2);
  CHECK(r.totals.peak_bytes == 1080);
  CHECK(r.totals.peak_time_ms == 3);
  CHECK(r.totals.leaked_bytes == 50);
  CHECK(r.totals.sizes[heap::size_bucket(100)] == 1);
  CHECK(r.totals.sizes[heap::size_bucket(30)] == 1);
  CHECK(r.rows.unmatched_frees == 0);
}

TEST_CASE("heap report: the recording's totals from meta, unless some threads are selected") {
  const ReportProfile p = read_back(heap_profile(true));
  auto all = build_heap_report(p, all_threads(p));
  REQUIRE(all.has_value());
  CHECK(all->totals.from_recording);
  CHECK(all->totals.calls == 7);
  CHECK(all->totals.temporary == 5);
  CHECK(all->totals.peak_bytes == 2000);
  CHECK(all->totals.sizes[5] == 7);
  CHECK(all->rows.all.peak_bytes == 1080);  // the rows' own

  auto worker = build_heap_report(p, {&p.threads[1]});
  REQUIRE(worker.has_value());
  CHECK_FALSE(worker->totals.from_recording);
  CHECK(worker->totals.calls == 1);
  CHECK(worker->totals.peak_bytes == 30);
}

TEST_CASE("heap report of a sampled profile: sizes from the estimates, calls estimated") {
  constexpr uint64_t kInterval = 512 * 1024;
  profile::Profile p = test::make_report_profile();
  p.meta.extra.emplace_back("heap", std::string("sampled"));
  p.meta.extra.emplace_back("heapIntervalBytes", static_cast<int64_t>(kInterval));
  profile::Thread& main = p.processes[0].threads[0];
  const uint32_t stack = main.intern_stack(
      std::nullopt, main.intern_address_frame(0x401010, profile::Category::kUser));
  const int64_t small = std::llround(heap::estimated_bytes(64, kInterval));
  const int64_t large = std::llround(heap::estimated_bytes(4 << 20, kInterval));
  main.add_native_allocation({1, small, stack, 0x10, 100});
  main.add_native_allocation({2, large, stack, 0x20, 100});
  const ReportProfile read = read_back(p);
  auto r = build_heap_report(read, all_threads(read));
  REQUIRE(r.has_value());
  CHECK(r->sampled);
  CHECK(r->interval_bytes == kInterval);
  REQUIRE(r->sites.size() == 1);
  const double expected = heap::estimated_calls(64, kInterval) +
                          heap::estimated_calls(4 << 20, kInterval);  // about 8,193
  CHECK(r->sites[0].stats.calls == doctest::Approx(expected).epsilon(0.02));
  CHECK(r->totals.sizes[heap::size_bucket(64)] > 8000);
  CHECK(r->totals.sizes[heap::size_bucket(4 << 20)] == doctest::Approx(1).epsilon(0.01));
}

TEST_CASE("heap report: a profile without allocations is an error saying how to get them") {
  const ReportProfile p = read_back(test::make_report_profile());
  auto r = build_heap_report(p, all_threads(p));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == Errc::kInvalidArgument);
  CHECK(r.error().message.find("--heap") != std::string::npos);
}

TEST_CASE("heap report as text and JSON") {
  const ReportProfile p = read_back(heap_profile(false));
  const ThreadSet threads = all_threads(p);
  auto r = build_heap_report(p, threads);
  REQUIRE(r.has_value());
  const std::string text = heap_report_text(p, *r, 0, {160, false});
  INFO(text);
  CHECK(text.find("4 calls") != std::string::npos);
  CHECK(text.find("2 temporary (50%)") != std::string::npos);
  CHECK(text.find("peak 1.1 KiB live at 3.000 ms") != std::string::npos);
  CHECK(text.find("leaf < compute < main") != std::string::npos);
  CHECK(text.find("1 folded rows") != std::string::npos);
  CHECK(text.find("64 B - 127 B") != std::string::npos);

  const std::string json = heap_report_json(p, summarize(p, threads), *r, 2);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
  CHECK(std::string_view(doc["view"]) == "heap");
  CHECK(std::string_view(doc["heap"]["totalsFrom"]) == "rows");
  CHECK(int64_t(doc["heap"]["totals"]["peakBytes"]) == 1080);
  CHECK(uint64_t(doc["heap"]["foldedRows"]) == 1);
  simdjson::dom::array sites = doc["heap"]["sites"];
  REQUIRE(sites.size() == 2);  // --limit 2
  CHECK(std::string_view(sites.at(1)["function"]) == "leaf");
  CHECK(std::string_view(sites.at(1)["callers"].at(0)) == "compute");
  CHECK(uint64_t(sites.at(1)["calls"]) == 2);
  CHECK(uint64_t(sites.at(1)["temporary"]) == 1);
  CHECK(int64_t(sites.at(1)["peakBytes"]) == 50);
  CHECK(int64_t(sites.at(1)["leakedBytes"]) == 50);
  CHECK(double(sites.at(1)["meanLifetimeMs"]) == doctest::Approx(0.2));
}

TEST_CASE("memory per stack: an empty allocation is a block of its own, folded rows mark counts") {
  profile::Profile p = heap_profile(false);
  profile::Thread& main = p.processes[0].threads[0];
  // malloc(0) at the leaf, never freed: a row of 0 bytes with a stack is an allocation.
  const std::optional<uint32_t> leaf = main.native_allocations().front().stack;
  main.add_native_allocation({13, 0, leaf, 0xD0, 100});
  const ReportProfile read = read_back(p);
  const ReportThread& thread = read.threads[0];
  const uint32_t leaf_stack = *thread.allocations.front().stack;
  const ThreadMemory memory = memory_per_stack(thread);
  const StackMemory& at_leaf = memory.stacks[leaf_stack];
  CHECK(at_leaf.allocated_bytes == 100 + 50 + 500);
  CHECK(at_leaf.allocated_blocks == 4);  // 100, 50, the folded row, the empty block
  CHECK(at_leaf.retained_bytes == 50);
  CHECK(at_leaf.retained_blocks == 2);  // the 50 bytes and the empty block
  CHECK(memory.folded);
  CHECK_FALSE(memory_per_stack(read.threads[1]).folded);
}

}  // namespace sprof::report
