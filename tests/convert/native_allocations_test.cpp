// Allocation records in the converter, without a kernel: the bookkeeping of NativeAllocations
// (balanced tables, frees in the allocating thread's table, lost and unmatched frees, the memory
// counter, peak, what each image still held when it ended, programs that did not load the
// interposer) and the converter's part (the interposer's frames dropped by module, fork and exec).
#include "sprof/convert/native_allocations.hpp"

#include <doctest/doctest.h>

#include <map>
#include <numeric>

#include "fake_host_files.hpp"
#include "sprof/convert/profile_converter.hpp"
#include "sprof/heap/sample_weight.hpp"
#include "synthetic_records.hpp"

using namespace sprof;
using namespace sprof::convert;

namespace {

constexpr uint64_t kOrigin = 1'000'000'000;
uint64_t at_us(uint64_t us) { return kOrigin + us * 1'000; }

perf::HeapAllocRecord alloc(uint32_t pid, uint32_t tid, uint64_t us, uint64_t address,
                            uint64_t size) {
  perf::HeapAllocRecord r;
  r.id = test::sample_id(pid, tid, at_us(us));
  r.address = address;
  r.size = size;
  return r;
}

perf::HeapFreeRecord free_of(uint32_t pid, uint32_t tid, uint64_t us, uint64_t address) {
  perf::HeapFreeRecord r;
  r.id = test::sample_id(pid, tid, at_us(us));
  r.address = address;
  return r;
}

double ms(uint64_t us) { return static_cast<double>(us) / 1000; }

// A profile with one process of two threads, as the converter would have made it.
profile::Profile two_threads() {
  profile::Profile p;
  profile::Process process;
  process.pid = 10;
  process.threads.resize(2);
  process.threads[0].tid = 10;
  process.threads[1].tid = 11;
  p.processes.push_back(std::move(process));
  return p;
}

int64_t sum_of(const std::vector<profile::NativeAllocation>& rows) {
  return std::accumulate(rows.begin(), rows.end(), int64_t{0},
                         [](int64_t s, const profile::NativeAllocation& a) { return s + a.bytes; });
}

int64_t counter_total(const profile::Process& process) {
  int64_t total = 0;
  for (const auto& s : process.counters.at(0).samples) total += s.count;
  return total;
}

// An unwinder that returns fixed frames, whatever it is given.
class FixedUnwinder final : public unwind::Unwinder {
 public:
  explicit FixedUnwinder(std::vector<uint64_t> frames) : frames_(std::move(frames)) {}
  void unwind(const unwind::UserRegs&, const unwind::StackMemory&, const unwind::AddressSpace&,
              unwind::UnwindResult& out) override {
    out.frames.clear();
    for (size_t i = 0; i < frames_.size(); ++i) {
      out.frames.push_back(i == 0 ? FrameAddress::ip(frames_[i])
                                  : FrameAddress::return_address(frames_[i]));
    }
    out.stop = unwind::UnwindStop::kComplete;
  }

 private:
  std::vector<uint64_t> frames_;
};

}  // namespace

TEST_CASE("a free goes into the table of the thread that allocated the block") {
  profile::Profile p = two_threads();
  HeapStats stats;
  NativeAllocations heap(0, stats);
  heap.allocate(p, {0, 0}, alloc(10, 10, 100, 0x1000, 500), 7, ms(100));
  heap.free(p, free_of(10, 11, 200, 0x1000), ms(200));  // freed by the other thread
  const auto& main = p.processes[0].threads[0].native_allocations();
  REQUIRE(main.size() == 2);
  CHECK(main[0].bytes == 500);
  CHECK(main[0].stack == 7u);
  CHECK(main[0].thread_id == 10);
  CHECK(main[1].bytes == -500);
  CHECK_FALSE(main[1].stack.has_value());
  CHECK(main[1].memory_address == 0x1000);
  CHECK(main[1].thread_id == 11);
  CHECK(p.processes[0].threads[1].native_allocations().empty());
  CHECK(stats.frees == 1);
  CHECK(stats.peak_live_bytes == 500);
  CHECK(stats.peak_time_ms == ms(100));
}

TEST_CASE("sampled allocations weigh the bytes they stand for") {
  profile::Profile p = two_threads();
  HeapStats stats;
  constexpr uint64_t kInterval = 512 * 1024;
  NativeAllocations heap(kInterval, stats);
  heap.allocate(p, {0, 0}, alloc(10, 10, 1, 0x1000, 100), std::nullopt, ms(1));
  heap.allocate(p, {0, 0}, alloc(10, 10, 2, 0x2000, 64ULL << 20), std::nullopt, ms(2));
  const auto& rows = p.processes[0].threads[0].native_allocations();
  CHECK(rows[0].bytes == std::llround(heap::estimated_bytes(100, kInterval)));
  CHECK(rows[0].bytes > 500000);              // a small block stands for about one interval
  CHECK(rows[1].bytes == int64_t{64} << 20);  // a huge one for itself
  CHECK(stats.estimated_bytes == rows[0].bytes + rows[1].bytes);
}

TEST_CASE("an address allocated again while live means its free was lost") {
  profile::Profile p = two_threads();
  HeapStats stats;
  NativeAllocations heap(0, stats);
  heap.allocate(p, {0, 0}, alloc(10, 10, 1, 0x1000, 300), 1, ms(1));
  heap.allocate(p, {0, 1}, alloc(10, 11, 2, 0x1000, 700), 2, ms(2));
  heap.free(p, free_of(10, 10, 3, 0x9999), ms(3));  // never recorded as allocated
  const auto& main = p.processes[0].threads[0].native_allocations();
  REQUIRE(main.size() == 2);
  CHECK(main[1].bytes == -300);  // the old block is freed where it was allocated
  CHECK(p.processes[0].threads[1].native_allocations().size() == 1);
  CHECK(stats.lost_frees == 1);
  CHECK(stats.unmatched_frees == 1);
  CHECK(stats.allocations == 2);
}

TEST_CASE("the memory counter sums to the live bytes and gathers close changes") {
  profile::Profile p = two_threads();
  HeapStats stats;
  NativeAllocations heap(0, stats);
  // Three changes within one millisecond, then one 5 ms later.
  heap.allocate(p, {0, 0}, alloc(10, 10, 100, 0x1000, 1000), std::nullopt, ms(100));
  heap.allocate(p, {0, 0}, alloc(10, 10, 300, 0x2000, 2000), std::nullopt, ms(300));
  heap.free(p, free_of(10, 10, 900, 0x1000), ms(900));
  heap.allocate(p, {0, 1}, alloc(10, 11, 5900, 0x3000, 4000), std::nullopt, ms(5900));
  heap.finish(p, ms(6000));
  const auto& samples = p.processes[0].counters.at(0).samples;
  REQUIRE(samples.size() == 2);
  CHECK(samples[0].time_ms == ms(900));
  CHECK(samples[0].count == 2000);
  CHECK(samples[0].number == 3);
  CHECK(samples[1].count == 4000);
  CHECK(counter_total(p.processes[0]) == 6000);
  CHECK(p.processes[0].counters[0].category == "Memory");
  CHECK(stats.peak_live_bytes == 6000);
  CHECK(stats.peak_time_ms == ms(5900));
}

TEST_CASE("what a process image still holds when it ends is retained, by allocation site") {
  profile::Profile p = two_threads();
  HeapStats stats;
  NativeAllocations heap(0, stats);
  heap.allocate(p, {0, 0}, alloc(10, 10, 1, 0x1000, 100), 4, ms(1));
  heap.allocate(p, {0, 0}, alloc(10, 10, 2, 0x2000, 200), 4, ms(2));
  heap.allocate(p, {0, 1}, alloc(10, 11, 3, 0x3000, 5000), 9, ms(3));
  heap.allocate(p, {0, 1}, alloc(10, 11, 4, 0x4000, 1), 9, ms(4));
  heap.free(p, free_of(10, 11, 5, 0x4000), ms(5));
  heap.end_image(10, ms(6));
  heap.free(p, free_of(10, 10, 7, 0x1000), ms(7));  // after the image ended: unmatched
  heap.finish(p, ms(8));
  CHECK(stats.live_at_exit_bytes == 5300);
  CHECK(stats.live_at_exit_blocks == 3);
  REQUIRE(stats.retained.size() == 2);
  CHECK(stats.retained[0].bytes == 5000);
  CHECK(stats.retained[0].thread == 1);
  CHECK(stats.retained[0].stack == 9u);
  CHECK(stats.retained[1].bytes == 300);
  CHECK(stats.retained[1].blocks == 2);
  CHECK(stats.unmatched_frees == 1);
  // The tables keep the blocks allocated: the front end shows them as retained.
  CHECK(sum_of(p.processes[0].threads[0].native_allocations()) == 300);
  CHECK(sum_of(p.processes[0].threads[1].native_allocations()) == 5000);
}

TEST_CASE("an exec'd program that never attached is named") {
  profile::Profile p = two_threads();
  HeapStats stats;
  NativeAllocations heap(0, stats);
  heap.note_exec(10, 0, "app");
  perf::HeapAttachRecord attach;
  attach.id = test::sample_id(10, 10, at_us(1));
  heap.note_attach(attach);
  heap.note_exec(20, 1, "static-tool");
  perf::HeapAttachRecord forked;  // a fork child of 20 says nothing about 20's own image
  forked.id = test::sample_id(20, 20, at_us(2));
  forked.fork = true;
  heap.note_attach(forked);
  heap.finish(p, ms(3));
  CHECK(stats.programs == 2);
  CHECK(stats.unhooked_programs == std::vector<std::string>{"static-tool"});
}

TEST_CASE("attach records whose calls bypass the interposer name their executables once") {
  profile::Profile p = two_threads();
  HeapStats stats;
  NativeAllocations heap(0, stats);
  perf::HeapAttachRecord own;
  own.id = test::sample_id(10, 10, at_us(1));
  own.executable = "/bin/own-malloc";
  own.malloc_bypassed = true;
  heap.note_attach(own);
  perf::HeapAttachRecord own_child = own;  // its fork child says the same
  own_child.id = test::sample_id(11, 11, at_us(2));
  own_child.fork = true;
  heap.note_attach(own_child);
  perf::HeapAttachRecord tc;
  tc.id = test::sample_id(20, 20, at_us(3));
  tc.executable = "/bin/tc-app";
  tc.foreign_operator_new = true;
  heap.note_attach(tc);
  perf::HeapAttachRecord plain;
  plain.id = test::sample_id(30, 30, at_us(4));
  plain.executable = "/bin/plain";
  heap.note_attach(plain);
  heap.finish(p, ms(5));
  CHECK(stats.malloc_bypassed_programs == std::vector<std::string>{"/bin/own-malloc"});
  CHECK(stats.foreign_operator_new_programs == std::vector<std::string>{"/bin/tc-app"});
}

TEST_CASE("the converter drops the interposer's frames and keeps allocations per image") {
  constexpr uint64_t kHeapLib = 0x7f0000000000, kApp = 0x555555554000;
  FixedUnwinder unwinder({kHeapLib + 0x10, kHeapLib + 0x200, kApp + 0x300, kApp + 0x400});
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ConverterOptions o;
  o.origin_monotonic_ns = kOrigin;
  o.root_pid = 10;
  o.heap = HeapOptions{0, "libsprof-heap.so", &unwinder};
  ProfileConverter c(o, cache);

  auto mmap = [](uint32_t pid, const std::string& path, uint64_t start, uint64_t us) {
    perf::Mmap2Record m;
    m.id = test::sample_id(pid, pid, at_us(us));
    m.pid = m.tid = pid;
    m.addr = start;
    m.len = 0x10000;
    m.executable = true;
    m.filename = path;
    return m;
  };
  c.consume(test::comm_record(10, 10, "app", true, at_us(0)));
  c.consume(mmap(10, "/opt/sprof/lib/sprof/libsprof-heap.so", kHeapLib, 0));
  c.consume(mmap(10, "/opt/app", kApp, 0));
  perf::HeapAttachRecord attach;
  attach.id = test::sample_id(10, 10, at_us(1));
  c.consume(attach);
  c.consume(alloc(10, 10, 10, 0x1000, 64));
  // A fork child frees a block it inherited (unmatched) and allocates its own.
  c.consume(test::fork_record(20, 10, 20, 10, at_us(20)));
  c.consume(free_of(20, 20, 21, 0x1000));
  c.consume(alloc(20, 20, 22, 0x5000, 32));
  c.consume(test::exit_record(20, 20, at_us(30)));
  // An exec replaces the program: what it held stays retained in the old image.
  c.consume(test::comm_record(10, 10, "next", true, at_us(40)));
  const profile::Profile p = c.finish(at_us(50));
  const HeapStats& stats = c.stats().heap;

  const profile::Thread& main = p.processes[0].threads[0];
  REQUIRE(main.native_allocations().size() == 1);
  const auto stack = main.native_allocations()[0].stack;
  REQUIRE(stack.has_value());
  // Leaf first: the app's two frames only.
  std::vector<std::string> locations;
  for (std::optional<uint32_t> s = stack; s; s = main.stacks()[*s].prefix) {
    locations.push_back(main.strings()[main.frames()[main.stacks()[*s].frame].location]);
  }
  CHECK(locations == std::vector<std::string>{"0x555555554300", "0x555555554400"});
  CHECK(stats.unwind_stops[0] == 2);
  CHECK(stats.unmatched_frees == 1);
  CHECK(stats.live_at_exit_bytes ==
        96);  // the child's 32 B at its exit, the program's 64 B at exec
  CHECK(stats.retained.size() == 2);
  CHECK(stats.programs == 2);
  CHECK(stats.unhooked_programs == std::vector<std::string>{"next"});
  // One counter per image that allocated.
  CHECK(p.processes[0].counters.size() == 1);
  CHECK(counter_total(p.processes[0]) == 64);
}

TEST_CASE("ending an image looks only at the blocks that image held") {
  // A program with many live blocks that forks many short-lived children (or a ring forged to
  // look like one): each child's exit must cost the child's blocks, not the parent's.
  constexpr uint32_t kParentBlocks = 2000, kChildren = 1000;
  profile::Profile p = two_threads();
  HeapStats stats;
  NativeAllocations heap(0, stats);
  for (uint32_t i = 0; i < kParentBlocks; ++i) {
    heap.allocate(p, {0, 0}, alloc(10, 10, 1, 0x100000 + i * 16ULL, 16), std::nullopt, ms(1));
  }
  for (uint32_t child = 0; child < kChildren; ++child) {
    const uint32_t pid = 100 + child;
    heap.allocate(p, {0, 1}, alloc(pid, pid, 2 + child, 0x100000, 8), std::nullopt, ms(2));
    heap.end_image(pid, ms(2 + child));
  }
  heap.finish(p, ms(5000));
  // Every block was looked at once, when its image ended: linear in what was recorded.
  CHECK(heap.blocks_visited_at_image_end() == kParentBlocks + kChildren);
  CHECK(stats.live_at_exit_blocks == kParentBlocks + kChildren);
  CHECK(stats.live_at_exit_bytes == kParentBlocks * 16 + kChildren * 8);
}

// Long record-everything runs (FoldingOptions): after the exact rows, blocks allocated and freed
// within one bucket are folded into one pair of rows per call path; everything the front end
// computes from the table (bytes per call path, retained, deallocated) and the counter stay.
namespace {

// The sum of the rows paired by address that are still unpaired: the retained bytes the front
// end computes from a balanced table.
int64_t retained_in(const std::vector<profile::NativeAllocation>& rows) {
  std::map<uint64_t, int64_t> live;
  for (const auto& r : rows) {
    if (r.bytes >= 0) {
      live[r.memory_address] += r.bytes;
    } else {
      live.erase(r.memory_address);
    }
  }
  int64_t total = 0;
  for (const auto& [address, bytes] : live) total += bytes;
  return total;
}

// Allocated bytes per stack, as the front end's "Allocated Memory" call tree sums them.
std::map<uint32_t, int64_t> allocated_by_stack(const std::vector<profile::NativeAllocation>& rows) {
  std::map<uint32_t, int64_t> by_stack;
  for (const auto& r : rows) {
    if (r.bytes > 0) by_stack[r.stack.value_or(UINT32_MAX)] += r.bytes;
  }
  return by_stack;
}

// 1,000 blocks of 16 bytes on stack 1, each freed 10 us after it was allocated, and every
// hundredth kept (a leak) on stack 2; one allocation every 50 us, 50 ms in all.
void short_lived_workload(NativeAllocations& heap, profile::Profile& p) {
  for (uint64_t i = 0; i < 1000; ++i) {
    const uint64_t us = 1000 + i * 50;
    const uint64_t address = 0x10000 + i * 16;
    const bool leak = i % 100 == 99;
    heap.allocate(p, {0, 0}, alloc(10, 10, us, address, leak ? 64 : 16), leak ? 2 : 1, ms(us));
    if (!leak) heap.free(p, free_of(10, 10, us + 10, address), ms(us + 10));
  }
  heap.finish(p, ms(60'000));
}

}  // namespace

TEST_CASE("a long record-all run folds short-lived blocks and keeps every total") {
  profile::Profile exact_profile = two_threads();
  HeapStats exact_stats;
  NativeAllocations exact(0, exact_stats);  // the default keeps ~1 M rows exact
  short_lived_workload(exact, exact_profile);

  profile::Profile folded_profile = two_threads();
  HeapStats folded_stats;
  NativeAllocations folded(0, folded_stats, FoldingOptions{.exact_rows = 100, .bucket_ms = 10});
  short_lived_workload(folded, folded_profile);

  const auto& exact_rows = exact_profile.processes[0].threads[0].native_allocations();
  const auto& rows = folded_profile.processes[0].threads[0].native_allocations();
  CHECK(exact_rows.size() == 1990);  // 990 pairs and 10 leaks
  CHECK(exact_stats.folding_from_ms < 0);
  CHECK(exact_stats.folded_blocks == 0);
  // The first 100 rows are exact (50 pairs); then 200 us a pair. Buckets of 10 ms hold 200
  // allocations each: 5 buckets, each written as one pair for stack 1 plus its two leaks.
  CHECK(folded_stats.folding_from_ms == doctest::Approx(ms(1000 + 50 * 50)));
  CHECK(rows.size() < 150);
  CHECK(folded_stats.folded_blocks > 900);
  CHECK(folded_stats.folded_bytes == static_cast<int64_t>(folded_stats.folded_blocks) * 16);
  // What the front end computes is unchanged.
  CHECK(sum_of(rows) == sum_of(exact_rows));
  CHECK(retained_in(rows) == retained_in(exact_rows));
  CHECK(retained_in(rows) == 10 * 64);
  CHECK(allocated_by_stack(rows) == allocated_by_stack(exact_rows));
  CHECK(counter_total(folded_profile.processes[0]) == counter_total(exact_profile.processes[0]));
  CHECK(folded_stats.live_at_exit_bytes == exact_stats.live_at_exit_bytes);
  CHECK(folded_stats.allocations == exact_stats.allocations);
  // The analyses see every record before folding: their totals are exact either way (990
  // blocks freed 10 us after their allocation, before the thread's next one).
  for (const HeapStats* s : {&exact_stats, &folded_stats}) {
    CHECK(s->temporary == 990);
    CHECK(s->short_lived == 990);
    CHECK(s->freed_blocks == 990);
    CHECK(s->mean_lifetime_ms == doctest::Approx(0.01));
    CHECK(s->sizes[heap::size_bucket(16)] == 990);
    CHECK(s->sizes[heap::size_bucket(64)] == 10);
    CHECK(s->peak_live_bytes == 10 * 64);
  }
  // The table stays in time order, and folded pairs pair with each other only.
  for (size_t i = 1; i < rows.size(); ++i) CHECK(rows[i - 1].time_ms <= rows[i].time_ms);
  size_t folded_allocations = 0;
  for (const auto& r : rows) {
    if (r.memory_address >= AllocationBucket::kFoldedAddressBase && r.bytes > 0) {
      ++folded_allocations;
      CHECK(r.stack == 1u);
      CHECK(r.bytes % 16 == 0);
    }
  }
  CHECK(folded_allocations >= 5);
}

TEST_CASE("a block that outlives its bucket keeps its own rows, and its free pairs with it") {
  profile::Profile p = two_threads();
  HeapStats stats;
  NativeAllocations heap(0, stats, FoldingOptions{.exact_rows = 0, .bucket_ms = 10});
  heap.allocate(p, {0, 0}, alloc(10, 10, 1000, 0x1000, 100), 3, ms(1000));  // bucket 1
  heap.allocate(p, {0, 1}, alloc(10, 11, 2000, 0x2000, 40), 4, ms(2000));   // bucket 1, folded
  heap.free(p, free_of(10, 11, 3000, 0x2000), ms(3000));
  heap.free(p, free_of(10, 11, 25'000, 0x1000), ms(25'000));  // bucket 2, by the other thread
  heap.finish(p, ms(30'000));
  const auto& main = p.processes[0].threads[0].native_allocations();
  REQUIRE(main.size() == 2);
  CHECK(main[0].memory_address == 0x1000);
  CHECK(main[0].bytes == 100);
  CHECK(main[1].memory_address == 0x1000);
  CHECK(main[1].bytes == -100);
  CHECK(main[1].thread_id == 11);
  const auto& other = p.processes[0].threads[1].native_allocations();
  REQUIRE(other.size() == 2);
  CHECK(other[0].memory_address == other[1].memory_address);
  CHECK(other[0].memory_address >= AllocationBucket::kFoldedAddressBase);
  CHECK(other[0].bytes == 40);
  CHECK(other[0].stack == 4u);
  CHECK(other[1].bytes == -40);
  CHECK(stats.folded_blocks == 1);
}

TEST_CASE("a free recorded with its stack gets it, unwound like an allocation's") {
  constexpr uint64_t kHeapLib = 0x7f0000000000, kApp = 0x555555554000;
  FixedUnwinder unwinder({kHeapLib + 0x10, kApp + 0x700, kApp + 0x800});
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ConverterOptions o;
  o.origin_monotonic_ns = kOrigin;
  o.root_pid = 10;
  o.heap = HeapOptions{0, "libsprof-heap.so", &unwinder};
  ProfileConverter c(o, cache);
  auto mmap = [](const std::string& path, uint64_t start) {
    perf::Mmap2Record m;
    m.id = test::sample_id(10, 10, at_us(0));
    m.pid = m.tid = 10;
    m.addr = start;
    m.len = 0x10000;
    m.executable = true;
    m.filename = path;
    return m;
  };
  c.consume(test::comm_record(10, 10, "app", true, at_us(0)));
  c.consume(mmap("/opt/sprof/lib/sprof/libsprof-heap.so", kHeapLib));
  c.consume(mmap("/opt/app", kApp));
  c.consume(alloc(10, 10, 10, 0x1000, 64));
  c.consume(alloc(10, 10, 11, 0x2000, 32));
  // Freed by another thread of the process, with the free's registers and stack.
  perf::HeapFreeRecord stacked = free_of(10, 11, 20, 0x1000);
  stacked.regs = heap::CapturedRegs{};
  stacked.regs->ip = kHeapLib + 0x10;
  stacked.regs->sp = 0x7ffe00000000;
  stacked.stack.assign(64, 0);
  c.consume(stacked);
  c.consume(free_of(10, 10, 21, 0x2000));  // without a stack
  const profile::Profile p = c.finish(at_us(50));

  const profile::Thread& main = p.processes[0].threads[0];
  const auto& rows = main.native_allocations();
  REQUIRE(rows.size() == 4);
  CHECK(rows[2].bytes == -64);
  CHECK(rows[2].thread_id == 11);
  REQUIRE(rows[2].stack.has_value());
  std::vector<std::string> locations;
  for (std::optional<uint32_t> s = rows[2].stack; s; s = main.stacks()[*s].prefix) {
    locations.push_back(main.strings()[main.frames()[main.stacks()[*s].frame].location]);
  }
  // In the allocating thread's table, leaf first, without the interposer's frame.
  CHECK(locations == std::vector<std::string>{"0x555555554700", "0x555555554800"});
  CHECK(rows[3].bytes == -32);
  CHECK_FALSE(rows[3].stack.has_value());
}

TEST_CASE("folded pairs keep each free stack apart") {
  profile::Profile p = two_threads();
  HeapStats stats;
  NativeAllocations heap(0, stats, FoldingOptions{.exact_rows = 0, .bucket_ms = 10});
  // Four blocks of one allocation stack, freed within the bucket at two free stacks.
  for (uint64_t i = 0; i < 4; ++i) {
    const uint64_t us = 100 + i * 10;
    heap.allocate(p, {0, 0}, alloc(10, 10, us, 0x1000 + i * 16, 16), 1, ms(us));
    heap.free(p, free_of(10, 10, us + 5, 0x1000 + i * 16), ms(us + 5), i % 2 == 0 ? 5u : 6u);
  }
  heap.finish(p, ms(1000));
  const auto& rows = p.processes[0].threads[0].native_allocations();
  std::map<uint32_t, int64_t> freed_by_stack;
  for (const auto& r : rows) {
    if (r.bytes < 0) freed_by_stack[r.stack.value_or(0)] += r.bytes;
  }
  CHECK(freed_by_stack == std::map<uint32_t, int64_t>{{5, -32}, {6, -32}});
  CHECK(sum_of(rows) == 0);
  CHECK(stats.folded_blocks == 4);
}
