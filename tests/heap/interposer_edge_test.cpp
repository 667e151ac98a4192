// libsprof-heap.so where programs make it hard: allocation in signal handlers on an alternate
// stack, programs LD_PRELOAD cannot reach (static, cleared environment), and a ring that is
// gone or is not a ring. None may crash or hang the program, and each must be detectable.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "heap_recording.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::heap;
using namespace sprof::heap::test;

namespace {

struct SignalRun {
  int handled = 0;
  unsigned long long alt_start = 0, alt_end = 0;
};

SignalRun parse_signal_run(const std::string& out) {
  SignalRun s;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line))
    if (std::sscanf(line.c_str(), "handled=%d altstack=0x%llx-0x%llx", &s.handled, &s.alt_start,
                    &s.alt_end) == 3)
      break;
  return s;
}

}  // namespace

TEST_CASE("allocating in a signal handler neither deadlocks nor loses a call (record-all)") {
  // 300 signals, some spinning between allocation pairs: the main thread must not outrun the
  // ring's reader while it waits for each signal (delivery takes milliseconds here).
  auto r = record_heap("hp_signal", {"--all", "--stack-bytes", "256", "--ring-bytes", "134217728"},
                       {"300", "10000"});
  INFO(r.process.err);
  REQUIRE_FALSE(r.process.timed_out);
  REQUIRE(r.process.exit_code == 0);
  REQUIRE(r.dump_ok);
  REQUIRE(r.header.counters.dropped_records == 0);
  const SignalRun run = parse_signal_run(r.process.out);
  REQUIRE(run.handled == 300);
  TargetSymbols symbols(target_path("hp_signal"));
  uint64_t recorded = 0;
  for (const auto& a : r.allocs()) {
    if (caller_function(a, r, symbols) != "handler_site") continue;
    ++recorded;
    CHECK(a.size == 777);
    // The handler runs on the alternate stack: the copy comes from there and stays in it.
    CHECK(a.regs.sp >= run.alt_start);
    CHECK(a.regs.sp < run.alt_end);
    CHECK(a.stack_end >= run.alt_end);
  }
  // A handler call that interrupted the interposer itself passes through and is counted.
  CHECK(recorded + r.header.counters.reentrant_calls == 300);
  CHECK(r.header.counters.stack_lookups >= 2);  // the main stack and the alternate stack
}

TEST_CASE("allocating in a signal handler at default sampling runs to the end") {
  auto r = record_heap("hp_signal", {}, {"200"});
  REQUIRE_FALSE(r.process.timed_out);
  REQUIRE(r.process.exit_code == 0);
  CHECK(parse_signal_run(r.process.out).handled == 200);
  CHECK(r.dump_ok);
}

TEST_CASE("a static program cannot be reached by LD_PRELOAD, and the ring shows it") {
  auto r = record_heap("hp_static", {});
  REQUIRE(r.process.exit_code == 0);
  CHECK(r.process.out == "static ok\n");
  REQUIRE(r.dump_ok);
  CHECK(r.header.counters.attached_processes == 0);
  CHECK(r.events.empty());
}

TEST_CASE("an exec with a cleared environment leaves only the first image attached") {
  auto r = record_heap("hp_clearenv", {"--all"});
  REQUIRE(r.process.exit_code == 0);
  CHECK(r.process.out.find("child environment=cleared") != std::string::npos);
  REQUIRE(r.dump_ok);
  CHECK(r.header.counters.attached_processes == 1);
  REQUIRE(r.attaches().size() == 1);
  size_t marked = 0;
  for (const auto& a : r.allocs()) marked += a.size == 5555;
  CHECK(marked == 1);  // the first image's; the second ran unrecorded
}

TEST_CASE("without a usable ring the interposer steps aside and the program runs as usual") {
  const std::string bad_ring =
      std::string(sprof::test::kBinaryDir) + "/tests/heap/not-a-ring-" + std::to_string(getpid());
  std::ofstream(bad_ring) << std::string(8192, '\0');
  for (const std::string& ring : {std::string("/proc/999999999/fd/3"), bad_ring, std::string()}) {
    CAPTURE(ring);
    sprof::test::RunOptions options;
    options.env = {{"LD_PRELOAD", interposer_path()}, {"SPROF_HEAP_RING", ring}};
    options.timeout = std::chrono::seconds(60);
    const auto p = sprof::test::run_process({target_path("hp_realloc_aligned")}, options);
    CHECK(p.exit_code == 0);
    CHECK(p.out.find("ok\n") != std::string::npos);
  }
  std::remove(bad_ring.c_str());
}

TEST_CASE("the interposer needs nothing but libc and libm") {
  const auto p = sprof::test::run_process({"readelf", "-d", interposer_path()});
  REQUIRE(p.exit_code == 0);
  std::istringstream lines(p.out);
  std::string line;
  std::vector<std::string> needed;
  while (std::getline(lines, line)) {
    const auto open = line.find("Shared library: [");
    if (open != std::string::npos)
      needed.push_back(line.substr(open + 17, line.find(']', open) - open - 17));
  }
  CHECK(needed == std::vector<std::string>{"libm.so.6", "libc.so.6"});
}
