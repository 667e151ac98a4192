// The converter from bytes-free synthetic records: process/thread tracking, exec, names, stacks
// and libs, without a kernel.
#include "sprof/convert/profile_converter.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "fake_host_files.hpp"
#include "sprof_test/paths.hpp"
#include "synthetic_records.hpp"

using namespace sprof;
using namespace sprof::convert;

namespace {

constexpr uint64_t kOrigin = 1'000'000'000;
using test::kContextKernel;
using test::kContextUser;

uint64_t at_ms(uint64_t ms) { return kOrigin + ms * 1'000'000; }

perf::SampleId id(uint32_t pid, uint32_t tid, uint64_t ms) {
  return test::sample_id(pid, tid, at_ms(ms));
}

perf::CommRecord comm(uint32_t pid, uint32_t tid, std::string name, bool exec, uint64_t ms) {
  return test::comm_record(pid, tid, std::move(name), exec, at_ms(ms));
}

perf::SampleRecord sample(uint32_t pid, uint32_t tid, uint64_t ms, std::vector<uint64_t> chain) {
  return test::sample_record(pid, tid, at_ms(ms), std::move(chain), 1'000'000);
}

perf::Mmap2Record mmap(uint32_t pid, std::string path, uint64_t addr, uint64_t len, uint64_t pgoff,
                       uint64_t ms) {
  perf::Mmap2Record m;
  m.id = id(pid, pid, ms);
  m.pid = pid;
  m.tid = pid;
  m.addr = addr;
  m.len = len;
  m.pgoff = pgoff;
  m.executable = true;
  m.filename = std::move(path);
  return m;
}

ConverterOptions options(uint32_t root) {
  ConverterOptions o;
  o.origin_monotonic_ns = kOrigin;
  o.origin_wall_ms = 1.7e12;
  o.root_pid = root;
  profile::Library kernel;
  kernel.start = 0xffffffff81000000;
  kernel.end = 0xffffffff82000000;
  kernel.name = kernel.debug_name = "[kernel.kallsyms]";
  kernel.breakpad_id = std::string(33, '0');
  o.kernel_lib = kernel;
  return o;
}

// The test binary itself: a real ELF file with a build-id.
std::string self_exe() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

}  // namespace

TEST_CASE("converter reuses the empty pre-exec image and names the process after exec") {
  test::FakeHostFiles files;
  files.add_binary_from_disk(self_exe());
  ModuleCache cache(files);
  ProfileConverter c(options(100), cache);
  c.consume(comm(100, 100, "app", true, 0));
  c.consume(mmap(100, self_exe(), 0x555555554000, 0x10000, 0, 0));
  c.consume(sample(100, 100, 1, {kContextUser, 0x555555554100, 0x555555554200}));
  auto p = c.finish(kOrigin + 10'000'000);
  REQUIRE(p.processes.size() == 1);
  const auto& proc = p.processes[0];
  CHECK(proc.pid == 100);
  CHECK(proc.name == "app");
  CHECK(proc.process_type == "default");
  REQUIRE(proc.threads.size() == 1);
  CHECK(proc.threads[0].name == "GeckoMain");
  CHECK(proc.threads[0].process_name == "app");
  // The executable's lib, then the kernel lib.
  REQUIRE(proc.libs.size() == 2);
  CHECK(proc.libs[0].start == 0x555555554000);
  CHECK(proc.libs[0].breakpad_id.size() == 33);
  CHECK(proc.libs[1].name == "[kernel.kallsyms]");
  CHECK(p.meta.profiling_end_ms == doctest::Approx(10.0));
}

TEST_CASE("converter puts kernel frames at the leaf end and user frames root first") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(7), cache);
  c.consume(comm(7, 7, "k", true, 0));
  // Callchain leaf first: kernel leaf, kernel caller, then user ip and its caller.
  c.consume(sample(
      7, 7, 2,
      {kContextKernel, 0xffffffff81000010, 0xffffffff81000020, kContextUser, 0x1000, 0x2000}));
  auto p = c.finish(kOrigin + 5'000'000);
  const auto& t = p.processes.at(0).threads.at(0);
  REQUIRE(t.samples().size() == 1);
  CHECK(t.samples()[0].time_ms == doctest::Approx(2.0));
  CHECK(t.samples()[0].cpu_delta_ns == 1'000'000);
  // Walk the stack from leaf to root.
  std::vector<std::string> leaf_first;
  std::vector<profile::Category> categories;
  for (std::optional<uint32_t> s = t.samples()[0].stack; s; s = t.stacks()[*s].prefix) {
    const auto& frame = t.frames()[t.stacks()[*s].frame];
    leaf_first.push_back(t.strings()[frame.location]);
    categories.push_back(frame.category);
  }
  CHECK(leaf_first ==
        std::vector<std::string>{"0xffffffff81000010", "0xffffffff81000020", "0x1000", "0x2000"});
  CHECK(categories.front() == profile::Category::kKernel);
  CHECK(categories.back() == profile::Category::kUser);
}

TEST_CASE("converter gives forked processes their own image and threads their comm names") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(10), cache);
  c.consume(comm(10, 10, "parent", true, 0));
  c.consume(test::fork_record(10, 10, 11, 10, at_ms(1)));  // a new thread: pid == ppid
  c.consume(comm(10, 11, "worker", false, 1));
  c.consume(test::fork_record(20, 10, 20, 10, at_ms(2)));  // a new process
  c.consume(sample(20, 20, 3, {kContextUser, 0x1000}));
  c.consume(comm(20, 20, "child", true, 4));
  c.consume(sample(20, 20, 5, {kContextUser, 0x1000}));
  c.consume(test::exit_record(10, 11, at_ms(6)));
  auto p = c.finish(kOrigin + 8'000'000);

  REQUIRE(p.processes.size() == 3);  // parent, child before exec, child after exec
  CHECK(p.processes[0].name == "parent");
  REQUIRE(p.processes[0].threads.size() == 2);
  CHECK(p.processes[0].threads[1].name == "worker");
  CHECK(p.processes[0].threads[1].unregister_time_ms == doctest::Approx(6.0));
  CHECK(p.processes[1].pid == 20);
  CHECK(p.processes[1].name == "parent");  // a fork starts as a copy of its parent
  CHECK(p.processes[1].process_type == "child");
  CHECK(p.processes[1].shutdown_time_ms == doctest::Approx(4.0));
  CHECK(p.processes[2].pid == 20);
  CHECK(p.processes[2].name == "child");
  CHECK(p.processes[2].threads.at(0).samples().size() == 1);
  CHECK(c.stats().samples == 2);
}

TEST_CASE("converter counts lost records and marks them on the root's main thread") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(5), cache);
  c.consume(comm(5, 5, "x", true, 0));
  perf::LostRecord lost;
  lost.id = id(5, 5, 3);
  lost.lost = 42;
  c.consume(lost);
  auto p = c.finish(kOrigin + 4'000'000);
  CHECK(c.stats().lost_records == 42);
  // Besides the exec marker (lifecycle_markers_test.cpp).
  const auto& markers = p.processes.at(0).threads.at(0).markers();
  const auto lost_marker = std::find_if(markers.begin(), markers.end(),
                                        [](const auto& m) { return m.name == "Lost samples"; });
  REQUIRE(lost_marker != markers.end());
  CHECK(lost_marker->type == "LostSamples");
  CHECK(std::count_if(markers.begin(), markers.end(),
                      [](const auto& m) { return m.name == "Lost samples"; }) == 1);
}

namespace {

// One of a thread's stacks, leaf first, as location strings.
std::vector<std::string> stack_leaf_first(const profile::Thread& t, std::optional<uint32_t> stack) {
  std::vector<std::string> frames;
  for (std::optional<uint32_t> s = stack; s; s = t.stacks()[*s].prefix) {
    frames.push_back(t.strings()[t.frames()[t.stacks()[*s].frame].location]);
  }
  return frames;
}

// A thread's sample stacks, each leaf first as location strings.
std::vector<std::vector<std::string>> stacks_leaf_first(const profile::Thread& t) {
  std::vector<std::vector<std::string>> out;
  for (const auto& sample : t.samples()) out.push_back(stack_leaf_first(t, sample.stack));
  return out;
}

}  // namespace

TEST_CASE("with --heap, CPU samples lose the interposer's frames and its leaf samples count") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ConverterOptions o = options(7);
  o.heap = HeapOptions{};  // interposer: libsprof-heap.so
  ProfileConverter c(o, cache);
  c.consume(comm(7, 7, "app", true, 0));
  c.consume(mmap(7, "/usr/bin/app", 0x1000, 0x1000, 0, 0));
  c.consume(mmap(7, "/usr/lib/libc.so.6", 0x3000, 0x1000, 0, 0));
  c.consume(mmap(7, "/opt/sprof/lib/libsprof-heap.so", 0x7000, 0x1000, 0, 0));
  // In the hook (a page fault on its ring): the kernel frames and the interposer's go, the
  // program's call of malloc stays.
  c.consume(sample(
      7, 7, 1, {kContextKernel, 0xffffffff81000010, kContextUser, 0x7100, 0x7200, 0x1100, 0x1200}));
  // In libc's malloc, called through the interposer: only the interposer's frame goes.
  c.consume(sample(7, 7, 2, {kContextUser, 0x3100, 0x7300, 0x1300, 0x1200}));
  // The program's own code.
  c.consume(sample(7, 7, 3, {kContextUser, 0x1400, 0x1200}));
  auto p = c.finish(kOrigin + 5'000'000);
  const auto& t = p.processes.at(0).threads.at(0);
  CHECK(stacks_leaf_first(t) ==
        std::vector<std::vector<std::string>>{
            {"0x1100", "0x1200"}, {"0x3100", "0x1300", "0x1200"}, {"0x1400", "0x1200"}});
  CHECK(c.stats().heap.hook_samples == 1);
}

namespace {

// An allocation whose stack the interposer walked: the stub's ip, then `return_addresses`.
perf::HeapAllocRecord walked_allocation(uint32_t pid, uint64_t ms, uint64_t address, uint64_t ip,
                                        const std::vector<uint64_t>& return_addresses) {
  perf::HeapAllocRecord r;
  r.id = id(pid, pid, ms);
  r.address = address;
  r.size = 16;
  r.flags = heap::kFlagWalkedStack | heap::kFlagAllMode;
  r.regs.ip = ip;
  r.stack.resize(return_addresses.size() * sizeof(uint64_t));
  std::memcpy(r.stack.data(), return_addresses.data(), r.stack.size());
  return r;
}

// The stacks of a thread's native-allocation rows, each leaf first as location strings.
std::vector<std::vector<std::string>> allocation_stacks(const profile::Thread& t) {
  std::vector<std::vector<std::string>> out;
  for (const auto& row : t.native_allocations()) out.push_back(stack_leaf_first(t, row.stack));
  return out;
}

}  // namespace

TEST_CASE("walked allocation stacks are remembered, and read again once the module map changed") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ConverterOptions o = options(7);
  o.heap = HeapOptions{};
  ProfileConverter c(o, cache);
  c.consume(comm(7, 7, "app", true, 0));
  c.consume(mmap(7, "/usr/bin/app", 0x1000, 0x1000, 0, 0));
  // The stub's ip is in no known module yet, so it is a frame of the stack.
  c.consume(walked_allocation(7, 1, 0x10000, 0x7100, {0x1200, 0x1300}));
  c.consume(walked_allocation(7, 2, 0x10100, 0x7100, {0x1200, 0x1300}));
  // Now the interposer is mapped there: the same bytes start at the program's frame.
  c.consume(mmap(7, "/opt/sprof/lib/libsprof-heap.so", 0x7000, 0x1000, 0, 3));
  c.consume(walked_allocation(7, 4, 0x10200, 0x7100, {0x1200, 0x1300}));
  c.consume(walked_allocation(7, 5, 0x10300, 0x7100, {0x1200, 0x1300}));
  auto p = c.finish(kOrigin + 6'000'000);
  const auto& t = p.processes.at(0).threads.at(0);
  // Return addresses are looked up one byte earlier (StackUses::caller), but the rows hold them.
  CHECK(allocation_stacks(t) ==
        std::vector<std::vector<std::string>>{{"0x7100", "0x1200", "0x1300"},
                                              {"0x7100", "0x1200", "0x1300"},
                                              {"0x1200", "0x1300"},
                                              {"0x1200", "0x1300"}});
  CHECK(t.native_allocations()[0].stack == t.native_allocations()[1].stack);
  CHECK(c.stats().heap.walked_stacks == 4);
}

TEST_CASE("without --heap, CPU samples keep frames in a library named like the interposer") {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(7), cache);
  c.consume(comm(7, 7, "app", true, 0));
  c.consume(mmap(7, "/usr/bin/app", 0x1000, 0x1000, 0, 0));
  c.consume(mmap(7, "/opt/sprof/lib/libsprof-heap.so", 0x7000, 0x1000, 0, 0));
  c.consume(sample(7, 7, 1, {kContextUser, 0x7100, 0x1100}));
  auto p = c.finish(kOrigin + 5'000'000);
  CHECK(stacks_leaf_first(p.processes.at(0).threads.at(0)) ==
        std::vector<std::vector<std::string>>{{"0x7100", "0x1100"}});
  CHECK(c.stats().heap.hook_samples == 0);
}
