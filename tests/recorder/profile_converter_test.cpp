// The converter from bytes-free synthetic records: process/thread tracking, exec, names, stacks
// and libs, without a kernel.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "convert/profile_converter.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof;
using namespace sprof::recorder;

namespace {

constexpr uint64_t kOrigin = 1'000'000'000;
constexpr uint64_t kContextKernel = static_cast<uint64_t>(-128);
constexpr uint64_t kContextUser = static_cast<uint64_t>(-512);

perf::SampleId id(uint32_t pid, uint32_t tid, uint64_t ms) {
  return perf::SampleId{pid, tid, kOrigin + ms * 1'000'000, 0};
}

perf::CommRecord comm(uint32_t pid, uint32_t tid, std::string name, bool exec, uint64_t ms) {
  perf::CommRecord c;
  c.id = id(pid, tid, ms);
  c.pid = pid;
  c.tid = tid;
  c.exec = exec;
  c.comm = std::move(name);
  return c;
}

perf::SampleRecord sample(uint32_t pid, uint32_t tid, uint64_t ms, std::vector<uint64_t> chain) {
  perf::SampleRecord s;
  s.id = id(pid, tid, ms);
  s.period = 1'000'000;
  s.callchain = std::move(chain);
  return s;
}

perf::Mmap2Record mmap(uint32_t pid, std::string path, uint64_t addr, uint64_t len,
                       uint64_t pgoff, uint64_t ms) {
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
  ModuleCache cache;
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
  ModuleCache cache;
  ProfileConverter c(options(7), cache);
  c.consume(comm(7, 7, "k", true, 0));
  // Callchain leaf first: kernel leaf, kernel caller, then user ip and its caller.
  c.consume(sample(7, 7, 2, {kContextKernel, 0xffffffff81000010, 0xffffffff81000020,
                             kContextUser, 0x1000, 0x2000}));
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
  CHECK(leaf_first == std::vector<std::string>{"0xffffffff81000010", "0xffffffff81000020",
                                               "0x1000", "0x2000"});
  CHECK(categories.front() == profile::Category::kKernel);
  CHECK(categories.back() == profile::Category::kUser);
}

TEST_CASE("converter gives forked processes their own image and threads their comm names") {
  ModuleCache cache;
  ProfileConverter c(options(10), cache);
  c.consume(comm(10, 10, "parent", true, 0));
  perf::ForkRecord thread_fork;
  thread_fork.id = id(10, 10, 1);
  thread_fork.pid = thread_fork.ppid = 10;
  thread_fork.tid = 11;
  thread_fork.ptid = 10;
  thread_fork.time = thread_fork.id.time;
  c.consume(thread_fork);
  c.consume(comm(10, 11, "worker", false, 1));
  perf::ForkRecord proc_fork;
  proc_fork.id = id(20, 20, 2);
  proc_fork.pid = 20;
  proc_fork.ppid = 10;
  proc_fork.tid = 20;
  proc_fork.ptid = 10;
  proc_fork.time = proc_fork.id.time;
  c.consume(proc_fork);
  c.consume(sample(20, 20, 3, {kContextUser, 0x1000}));
  c.consume(comm(20, 20, "child", true, 4));
  c.consume(sample(20, 20, 5, {kContextUser, 0x1000}));
  perf::ExitRecord exit;
  exit.id = id(10, 11, 6);
  exit.pid = 10;
  exit.tid = 11;
  exit.time = exit.id.time;
  c.consume(exit);
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
  ModuleCache cache;
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
