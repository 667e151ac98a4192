// Perf events on the threads of a process that already runs (attach mode): one event per thread
// and CPU, all of a CPU's events writing into one ring (PERF_EVENT_IOC_SET_OUTPUT), and threads
// added after opening. Skipped when perf_event_open is unavailable.
#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>

#include "perf/perf_event.hpp"
#include "perf_names.hpp"
#include "process/proc_maps.hpp"
#include "sprof_test/paths.hpp"
#include "subprocess.hpp"

using sprof::recorder::list_threads;
using sprof::recorder::read_comm;
using namespace std::chrono_literals;

namespace {

// it_attach's long-lived threads by name ("it_attach", "spinner", "spawner").
std::map<std::string, pid_t> named_threads(pid_t pid) {
  std::map<std::string, pid_t> out;
  auto tids = list_threads(pid);
  REQUIRE(tids.has_value());
  for (pid_t tid : *tids) {
    auto comm = read_comm(pid, tid);
    if (comm.has_value()) out[*comm] = tid;
  }
  return out;
}

// Samples per tid, read until `enough` says so or `limit` passes. The threads run when the
// scheduler lets them: on a loaded machine a short-lived thread may wait long for its first
// sample, so the test waits for what it needs rather than for a fixed time.
std::map<uint32_t, int> samples_per_tid(
    perf::PerfEvents& events, const std::function<bool(const std::map<uint32_t, int>&)>& enough,
    std::chrono::steady_clock::duration limit) {
  std::map<uint32_t, int> counts;
  const perf::RecordSink sink = [&](perf::Record&& r) {
    if (const auto* s = std::get_if<perf::SampleRecord>(&r)) ++counts[s->id.tid];
  };
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!enough(counts) && std::chrono::steady_clock::now() < deadline) {
    REQUIRE(events.poll(50).has_value());
    events.read_available(sink);
  }
  (void)events.disable();
  events.flush_all(sink);
  return counts;
}

}  // namespace

TEST_CASE(
    "events on a running process's threads share one ring per CPU, and threads can be added") {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("sprof-attach-events-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  sprof::test::BackgroundProcess target({std::string(sprof::test::kTargetsDir) + "/it_attach"},
                                        (dir / "target.log").string());
  REQUIRE_FALSE(target.wait_for_log("ready", 20s).empty());
  const auto threads = named_threads(target.pid());
  REQUIRE(threads.count("spinner") == 1);
  REQUIRE(threads.count("spawner") == 1);

  perf::EventConfig config;
  config.pid = target.pid();                    // the main thread
  config.extra_tids = {threads.at("spawner")};  // redirected into the main thread's rings
  config.inherit = true;
  config.enable_on_exec = false;
  auto events = perf::PerfEvents::open(config);
  if (!events.has_value()) {
    MESSAGE("skipped: perf_event_open unavailable: " << events.error().message);
    return;
  }
  // The spinner joins later, as a thread found by the second listing would; a tid that does not
  // exist (pid_max is at most 2^22) is skipped, not an error.
  auto added = events->add_tasks({threads.at("spinner"), 99999999});
  REQUIRE(added.has_value());
  CHECK(*added == std::vector<pid_t>{threads.at("spinner")});

  const auto spinner = static_cast<uint32_t>(threads.at("spinner"));
  // "late-N" threads are created by the spawner after the events were opened: followed through
  // inheritance from the spawner's event.
  const auto late_threads = [&](const std::map<uint32_t, int>& counts) {
    size_t n = 0;
    for (const auto& [tid, samples] : counts) {
      if (tid != spinner && tid != static_cast<uint32_t>(target.pid()) &&
          tid != static_cast<uint32_t>(threads.at("spawner"))) {
        ++n;
      }
    }
    return n;
  };
  const auto counts = samples_per_tid(
      *events,
      [&](const std::map<uint32_t, int>& c) {
        return c.count(spinner) == 1 && late_threads(c) > 0;
      },
      60s);
  REQUIRE(counts.count(spinner) == 1);
  CHECK(counts.at(spinner) > 0);
  CHECK(late_threads(counts) > 0);
  std::filesystem::remove_all(dir);
}
