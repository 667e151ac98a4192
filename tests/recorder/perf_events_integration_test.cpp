// Opens real perf events for a launched child. Skipped, with the reason printed, when
// perf_event_open is unavailable (paranoid level, container, seccomp).
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "perf/perf_event.hpp"
#include "perf_names.hpp"
#include "process/launcher.hpp"
#include "sprof_test/paths.hpp"

using sprof::recorder::Launcher;

namespace {

struct Recorded {
  std::vector<perf::Record> records;
  perf::ReaderStats stats;
  std::string event;
  pid_t pid = 0;
  bool cpu_wide_switches = false;  // the CPU-wide switch events could be opened
  bool skipped = false;
};

// Launches the busy loop, records it until it exits, and returns everything in merge order.
Recorded record_busy_loop(const perf::EventConfig& base) {
  Recorded out;
  const std::string exe = std::string(sprof::test::kTargetsDir) + "/recorder_busy_loop";
  auto child = Launcher::spawn({exe, "300"});
  if (!child) FAIL(child.error().message);

  perf::EventConfig config = base;
  config.pid = child->pid();
  auto events = perf::PerfEvents::open(config);
  if (!events) {
    MESSAGE("skipped: perf_event_open unavailable: " << events.error().message);
    out.skipped = true;
    return out;  // the unreleased child is reaped by its destructor
  }
  out.event = events->event_name();
  out.pid = child->pid();
  out.cpu_wide_switches = events->cpu_wide_switches();
  if (auto released = child->release(); !released) FAIL(released.error().message);

  const perf::RecordSink sink = [&](perf::Record&& r) { out.records.push_back(std::move(r)); };
  for (;;) {
    auto polled = events->poll(100);
    REQUIRE(polled.has_value());
    events->read_available(sink);
    auto exited = child->try_wait();
    REQUIRE(exited.has_value());
    if (polled->all_hung_up || exited->has_value()) break;
  }
  events->flush_all(sink);
  auto status = child->wait_for_exit();
  REQUIRE(status.has_value());
  CHECK(status->code == 0);
  out.stats = events->stats();
  return out;
}

}  // namespace

TEST_CASE("perf events on a launched child deliver COMM, MMAP2 and SAMPLE records in time order") {
  perf::EventConfig config;
  SUBCASE("frame-pointer mode") { config.user_regs_stack = false; }
  SUBCASE("user registers and stack copies") {
    config.user_regs_stack = true;
    config.stack_user_bytes = 8192;
  }
  const Recorded rec = record_busy_loop(config);
  if (rec.skipped) return;
  MESSAGE("event: " << rec.event << ", records: " << rec.records.size() << ", late: "
                    << rec.stats.late_records << ", skipped types: " << rec.stats.skipped_records);

  CHECK(rec.stats.malformed_records == 0);
  CHECK(rec.stats.ring_corruptions == 0);

  bool exec_comm = false;
  std::vector<std::pair<uint64_t, uint64_t>> exe_ranges;  // executable mappings of the target
  for (const auto& r : rec.records) {
    if (const auto* c = std::get_if<perf::CommRecord>(&r)) {
      exec_comm |= c->exec && c->comm.starts_with("recorder_busy");
    } else if (const auto* m = std::get_if<perf::Mmap2Record>(&r)) {
      if (m->executable && m->filename.ends_with("/recorder_busy_loop")) {
        exe_ranges.emplace_back(m->addr, m->addr + m->len);
      }
    }
  }
  CHECK(exec_comm);
  REQUIRE_FALSE(exe_ranges.empty());

  size_t samples = 0, samples_in_exe = 0, with_stack = 0;
  for (const auto& r : rec.records) {
    const auto* s = std::get_if<perf::SampleRecord>(&r);
    if (s == nullptr) continue;
    ++samples;
    CHECK(s->period > 0);
    CHECK_FALSE(s->callchain.empty());
    for (const auto& [lo, hi] : exe_ranges) samples_in_exe += (s->ip >= lo && s->ip < hi) ? 1 : 0;
    if (config.user_regs_stack && !s->kernel_mode && !s->regs_user.empty()) {
      CHECK(s->regs_user.size() == 17);
      with_stack += s->stack_user.empty() ? 0 : 1;
    }
  }
  MESSAGE("samples: " << samples << ", in the target's text: " << samples_in_exe);
  CHECK(samples > 10);
  CHECK(samples_in_exe > samples / 4);
  if (config.user_regs_stack) CHECK(with_stack > 0);

  if (rec.stats.late_records == 0) {
    CHECK(std::is_sorted(rec.records.begin(), rec.records.end(),
                         [](const perf::Record& a, const perf::Record& b) {
                           return perf::record_time(a) < perf::record_time(b);
                         }));
  }
}

TEST_CASE("a per-task recording's CPU-wide switch events write into each CPU's ring") {
  perf::EventConfig config;
  config.context_switch = true;
  const Recorded rec = record_busy_loop(config);
  if (rec.skipped) return;
  if (!rec.cpu_wide_switches) {
    MESSAGE("skipped: CPU-wide events need CAP_PERFMON or perf_event_paranoid <= 0");
    return;
  }
  // The task switched out before the child runs names the child as the next task.
  size_t cpu_wide = 0, naming_child = 0;
  for (const auto& r : rec.records) {
    const auto* s = std::get_if<perf::SwitchRecord>(&r);
    if (s == nullptr || !s->cpu_wide) continue;
    ++cpu_wide;
    if (s->out && s->next_prev_pid == static_cast<uint32_t>(rec.pid)) ++naming_child;
  }
  MESSAGE("CPU-wide switch records: " << cpu_wide << ", switching to the child: " << naming_child);
  CHECK(rec.stats.malformed_records == 0);
  CHECK(naming_child > 0);
}

TEST_CASE(
    "an event that hung up is not polled again: poll then waits for the exit fd or the timeout") {
  // The command exits and is left unreaped, so its event has hung up for good. poll(2) reports
  // a hang-up at once, every time: a loop that kept polling that event spun (100,000 polls in
  // one recording) until the command was reaped.
  const std::string exe = std::string(sprof::test::kTargetsDir) + "/recorder_busy_loop";
  auto child = Launcher::spawn({exe, "20"});
  if (!child) FAIL(child.error().message);
  perf::EventConfig config;
  config.pid = child->pid();
  auto events = perf::PerfEvents::open(config);
  if (!events) {
    MESSAGE("skipped: perf_event_open unavailable: " << events.error().message);
    return;
  }
  REQUIRE(child->release().has_value());
  const perf::RecordSink sink = [](perf::Record&&) {};
  bool hung_up = false;
  for (int polls = 0; !hung_up; ++polls) {
    REQUIRE(polls < 600);  // 600 polls of up to 100 ms: a minute for a 20 ms program
    auto polled = events->poll(100);
    REQUIRE(polled.has_value());
    events->read_available(sink);
    hung_up = polled->all_hung_up;
  }
  // Only the hung-up event and an idle pipe: nothing can end this poll before its timeout.
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const auto start = std::chrono::steady_clock::now();
  auto polled = events->poll(200, pipe_fds[0]);
  const auto waited = std::chrono::steady_clock::now() - start;
  REQUIRE(polled.has_value());
  CHECK(polled->all_hung_up);
  CHECK_FALSE(polled->exit_fd_readable);
  CHECK(waited >= std::chrono::milliseconds(150));  // poll never returns early (it did: 0 ms)
  // With nothing at all left to wait for, it says so at once.
  auto without_exit_fd = events->poll(200);
  REQUIRE(without_exit_fd.has_value());
  CHECK(without_exit_fd->all_hung_up);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  auto status = child->wait_for_exit();
  REQUIRE(status.has_value());
  CHECK(status->code == 0);
}

TEST_CASE("the sample attr derives the layout the parser reads") {
  perf::EventConfig config;
  config.user_regs_stack = true;
  const perf_event_attr attr =
      perf::make_sample_attr(config, perf::EventKind::kCpuClock, 1 << 20, 127);
  CHECK(attr.type == PERF_TYPE_SOFTWARE);
  CHECK(attr.config == PERF_COUNT_SW_CPU_CLOCK);
  CHECK(attr.disabled == 1);
  CHECK(attr.enable_on_exec == 1);
  CHECK(attr.sample_stack_user == 8192);
  auto layout = perf::SampleLayout::from_attr(attr);
  REQUIRE(layout.has_value());
  CHECK(layout->has(PERF_SAMPLE_STACK_USER));
  CHECK(layout->regs_user_count() == 17);
  // tid+pid, time, cpu, and the identifier that tells the runtime-count event's records apart.
  CHECK(layout->sample_id_trailer_bytes() == 32);
}
