// --per-cpu-threads, recorded and then loaded with the Firefox Profiler's own code
// (profiler-cli): two threads bound to two CPUs keep both CPUs' tracks busy, and each CPU's
// track holds exactly the samples its thread took there.
#include <doctest/doctest.h>
#include <simdjson.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <thread>

#include "profiler_cli.hpp"
#include "profiler_cli_queries.hpp"
#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

// The CPUs process's pid, and its tracks' tids (sprof/convert/per_cpu_tracks.hpp).
constexpr int64_t kCpusPid = 4194304;
int64_t cpu_track_tid(int cpu) { return kCpusPid + 1 + cpu; }

struct Worker {
  int cpu = 0;
  int64_t tid = 0;
};

// "pinned-i cpu C tid T ..." lines of it_pinned.
std::map<std::string, Worker> workers_of(const std::string& out) {
  std::map<std::string, Worker> workers;
  std::istringstream in(out);
  std::string name, cpu_word, tid_word;
  Worker w;
  while (in >> name >> cpu_word >> w.cpu >> tid_word >> w.tid) {
    if (name.rfind("pinned-", 0) == 0) workers[name] = w;
    in.ignore(1 << 20, '\n');
  }
  return workers;
}

// The times of a CPU track's samples whose thread label (the second root frame) names `tid`.
std::vector<double> sample_times_of_tid(const ThreadView& cpu_track, int64_t tid) {
  const std::string label = "(tid " + std::to_string(tid) + ")";
  std::vector<double> times;
  for (size_t i = 0; i < cpu_track.stacks.size(); ++i) {
    const auto& stack = cpu_track.stacks[i];
    if (stack.size() > 1 && stack[1].ends_with(label)) times.push_back(cpu_track.times_ms[i]);
  }
  return times;
}

// The times of a thread's on-CPU samples: with a stack whose leaf is not Idle (off-CPU samples
// are where it blocked), without the one at its exit, which closes the thread's CPU time and was
// not taken on any CPU.
std::vector<double> on_cpu_sample_times(const ThreadView& t, int64_t idle_category) {
  std::vector<double> times;
  for (size_t i = 0; i < t.times_ms.size(); ++i) {
    if (t.leaf_categories[i] >= 0 && t.leaf_categories[i] != idle_category) {
      times.push_back(t.times_ms[i]);
    }
  }
  if (t.unregistered && !times.empty() && times.back() == t.unregister_time_ms) times.pop_back();
  return times;
}

// cpuMs of the thread with `tid` in `profile info --all --json`; -1 if absent.
double cpu_ms_of(const std::string& info_json, int64_t tid) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(info_json).get(doc) != simdjson::SUCCESS) return -1;
  for (auto p : doc["processes"].get_array()) {
    for (auto t : p["threads"].get_array()) {
      int64_t t_tid = 0;
      double cpu_ms = 0;
      if (t["tid"].get(t_tid) == simdjson::SUCCESS && t_tid == tid &&
          t["cpuMs"].get(cpu_ms) == simdjson::SUCCESS) {
        return cpu_ms;
      }
    }
  }
  return -1;
}

}  // namespace

TEST_CASE("--per-cpu-threads: two threads on two CPUs keep both CPU tracks busy in profiler-cli") {
  skip_without_perf();
  if (std::thread::hardware_concurrency() < 2) {
    MESSAGE("skipped: needs 2 CPUs");
    return;
  }
  auto cli = ProfilerCli::locate();
  REQUIRE_MESSAGE(cli.has_value(), (cli.has_value() ? "" : cli.error().message));
  const auto dir = make_temp_dir("per-cpu");
  const auto out = dir + "/p.json";
  const auto r = sprof_record(out, {"--per-cpu-threads", "--cswitch-markers"},
                              {target_path("it_pinned"), "2", "1.5"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const auto workers = workers_of(r.out);
  REQUIRE(workers.size() == 2);
  REQUIRE(workers.at("pinned-0").cpu != workers.at("pinned-1").cpu);

  // In the file: each worker's on-CPU samples are on its own CPU's track, all of them and at the
  // same times, and on no other CPU's (it is bound to its CPU).
  const auto profile = read_profile(out);
  const auto idle = std::find(profile.categories.begin(), profile.categories.end(), "Idle");
  REQUIRE(idle != profile.categories.end());
  const auto idle_category = static_cast<int64_t>(idle - profile.categories.begin());
  const ProcessView* app = find_process_named(profile, "it_pinned");
  const ProcessView* cpus = find_process_named(profile, "CPUs");
  REQUIRE(app != nullptr);
  REQUIRE(cpus != nullptr);
  CHECK(cpus->pid == kCpusPid);
  for (const auto& [name, worker] : workers) {
    CAPTURE(name);
    const ThreadView* own = find_thread(*app, name);
    REQUIRE(own != nullptr);
    REQUIRE(own->tid == worker.tid);
    CHECK(own->unregistered);
    const auto on_cpu = on_cpu_sample_times(*own, idle_category);
    // A busy machine may leave a bound thread little of its CPU, but never none in 1.5 s.
    REQUIRE_FALSE(on_cpu.empty());
    for (const auto& track : cpus->threads) {
      CAPTURE(track.name);
      const bool its_cpu = track.name == "CPU " + std::to_string(worker.cpu);
      CHECK(sample_times_of_tid(track, worker.tid) == (its_cpu ? on_cpu : std::vector<double>{}));
    }
  }

  // In the Firefox Profiler: both CPU tracks load, each is busy with its worker, and its top
  // function is that worker's label.
  const auto loaded = cli->load_standalone(out);
  INFO("load: " << loaded.out << loaded.err << "\n" << cli->session_log());
  REQUIRE(loaded.exit_code == 0);
  const auto info = cli->profile_info();
  INFO("profile info: " << info.out);
  for (const auto& [name, worker] : workers) {
    CAPTURE(name);
    const int64_t track_tid = cpu_track_tid(worker.cpu);
    const double worker_ms = cpu_ms_of(info.out, worker.tid);
    const double track_ms = cpu_ms_of(info.out, track_tid);
    REQUIRE(worker_ms > 0);
    // The CPU ran its worker at least as long as the worker ran, less what the worker ran after
    // its last sample (under one 1 ms sampling period of its CPU time), which only the worker's
    // own track closes, with a sample at its exit.
    CHECK(track_ms + 1.0 >= worker_ms);
    const int index = thread_index_of(info.out, track_tid);
    REQUIRE(index >= 0);
    const auto names = top_function_names(cli->thread_samples(index).out);
    INFO("functions:\n" << join_lines(names));
    bool labelled = false;
    for (const auto& n : names) {
      labelled = labelled ||
                 n.find(name + " (tid " + std::to_string(worker.tid) + ")") != std::string::npos;
    }
    CHECK(labelled);
    // --cswitch-markers: the stretches the worker ran there.
    const auto markers = flat_markers(cli->thread_markers(index).out);
    CHECK(marker_named(markers, name + " (tid " + std::to_string(worker.tid) + ")").has_value());
  }
}
