// Integration tests of `sprof record --flight-recorder`: SIGUSR2 writes a profile of the last
// WINDOW only (its samples and markers within the window, meta.sprof saying the range and what
// was dropped) and recording goes on; the end of the recording (Ctrl-C, the command's exit or
// crash) writes the last window; --max-files keeps the newest; -o without --output-dir names
// the files after -o.
#include <doctest/doctest.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "recorded_profile.hpp"
#include "sprof/profile/profile_reader.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;
using namespace std::chrono_literals;

namespace {

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

// The profile files in `dir` (made by sprof: none while it is missing), sorted.
std::vector<std::string> windows_in(const std::string& dir) {
  std::vector<std::string> names;
  if (!std::filesystem::exists(dir)) return names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".json.gz")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Waits (generously: the machine may be loaded) until `dir` holds `count` window files.
bool wait_for_windows(const std::string& dir, size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (windows_in(dir).size() < count) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// The sequence number of "<prefix>-20261127T203329.291Z-000002.json.gz"; -1 for another name.
int sequence_of(const std::string& name, const std::string& prefix) {
  const std::regex pattern(prefix + R"(-\d{8}T\d{6}\.\d{3}Z-(\d{6})\.json\.gz)");
  std::smatch m;
  return std::regex_match(name, m, pattern) ? std::stoi(m[1]) : -1;
}

struct Window {
  std::string name;
  sprof::profile::Profile parsed;  // meta and markers
  ProfileView view;                // samples
};

Window read_window(const std::string& dir, const std::string& name) {
  Window w{name, {}, read_profile(dir + "/" + name)};
  auto parsed = sprof::profile::read_gecko_json(w.view.json);
  REQUIRE_MESSAGE(parsed.has_value(), name);
  w.parsed = std::move(*parsed);
  return w;
}

// meta.sprof.<key> as a number; nullopt when missing.
std::optional<double> sprof_meta(const Window& w, const std::string& key) {
  for (const auto& [k, v] : w.parsed.meta.extra) {
    if (k != key) continue;
    if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&v)) return *d;
  }
  return std::nullopt;
}

size_t samples_of(const Window& w) {
  size_t n = 0;
  for (const auto& proc : w.view.processes) {
    for (const auto& t : proc.threads) n += t.samples;
  }
  return n;
}

double latest_sample_ms(const Window& w) {
  double latest = -1;
  for (const auto& proc : w.view.processes) {
    for (const auto& t : proc.threads) {
      for (const double time_ms : t.times_ms) latest = std::max(latest, time_ms);
    }
  }
  return latest;
}

// The times of the markers called `name`, in every thread.
std::vector<double> marker_times(const Window& w, const std::string& name) {
  std::vector<double> times;
  for (const auto& proc : w.parsed.processes) {
    for (const auto& t : proc.threads) {
      for (const auto& m : t.markers()) {
        if (m.name == name && m.start_ms) times.push_back(*m.start_ms);
      }
    }
  }
  return times;
}

// The window is exactly `window_ms` long, ends where meta says, holds samples only within it,
// and says what was dropped before it.
void check_window_range(const Window& w, double window_ms) {
  INFO(w.name);
  const auto& meta = w.parsed.meta;
  REQUIRE(meta.profiling_start_ms.has_value());
  REQUIRE(meta.profiling_end_ms.has_value());
  const double start_ms = *meta.profiling_start_ms;
  const double end_ms = *meta.profiling_end_ms;
  CHECK(sprof_meta(w, "flightWindowMs") == doctest::Approx(window_ms));
  CHECK(sprof_meta(w, "flightStartMs") == doctest::Approx(start_ms));
  CHECK(sprof_meta(w, "flightEndMs") == doctest::Approx(end_ms));
  // Every window here is cut after more than `window_ms` of recording.
  CHECK(end_ms - start_ms == doctest::Approx(window_ms).epsilon(1e-6));
  REQUIRE(sprof_meta(w, "flightDroppedSamples").has_value());
  CHECK(*sprof_meta(w, "flightDroppedSamples") > 0);
  CHECK(samples_of(w) > 0);
  for (const auto& proc : w.view.processes) {
    for (const auto& t : proc.threads) {
      for (const double time_ms : t.times_ms) {
        CHECK(time_ms >= start_ms);
        CHECK(time_ms <= end_ms + 1);  // a sample's timestamp may trail the cut by a tick
      }
    }
  }
}

}  // namespace

TEST_CASE("SIGUSR2 writes the last WINDOW with its marker; a second writes another, recording on") {
  skip_without_perf();
  const auto dir = make_temp_dir("flight");
  const auto windows = dir + "/windows";  // made by sprof
  BackgroundProcess recorder({kSprofExe, "record", "--no-presymbolicate", "--flight-recorder", "2s",
                              "--output-dir", windows, "--", target_path("mk_flight_event"), "3"},
                             dir + "/sprof.log");
  // 3 s of spinning before the event: the first second ages out of a 2 s window.
  REQUIRE_MESSAGE(!recorder.wait_for_log("event", 60s).empty(), recorder.log());
  std::this_thread::sleep_for(200ms);  // some samples after the event
  const uint64_t first_sent_ns = monotonic_ns();
  REQUIRE(::kill(recorder.pid(), SIGUSR2) == 0);
  REQUIRE_MESSAGE(wait_for_windows(windows, 1), recorder.log());
  const uint64_t first_seen_ns = monotonic_ns();
  std::this_thread::sleep_for(300ms);
  REQUIRE(::kill(recorder.pid(), SIGUSR2) == 0);
  REQUIRE_MESSAGE(wait_for_windows(windows, 2), recorder.log());
  // Ctrl-C (sent to sprof alone, forwarded to the command): the command ends, the last window
  // is written.
  const int code = recorder.stop(SIGINT, 60s);
  INFO("sprof log: " << recorder.log());
  CHECK(code == 128 + SIGINT);  // the command's status
  CHECK(recorder.log().find("3 flight-recorder windows written to " + windows) !=
        std::string::npos);

  const auto names = windows_in(windows);
  REQUIRE(names.size() == 3);
  for (size_t i = 0; i < names.size(); ++i) CHECK(sequence_of(names[i], "sprof") == (int)i);
  const Window first = read_window(windows, names[0]);
  const Window second = read_window(windows, names[1]);
  const Window last = read_window(windows, names[2]);
  check_window_range(first, 2000);
  check_window_range(second, 2000);
  check_window_range(last, 2000);

  // The first window ends at the request: after it was sent, before its file appeared.
  const auto& meta = first.parsed.meta;
  const double end_monotonic_ns =
      static_cast<double>(meta.start_time_monotonic_ns) + *meta.profiling_end_ms * 1e6;
  CHECK(end_monotonic_ns >= static_cast<double>(first_sent_ns));
  CHECK(end_monotonic_ns <= static_cast<double>(first_seen_ns));
  // The event happened within the window, and its marker is there.
  const auto events = marker_times(first, "the-event");
  REQUIRE(events.size() == 1);
  CHECK(events[0] >= *meta.profiling_start_ms);
  CHECK(events[0] <= *meta.profiling_end_ms);

  // Recording went on: the second window ends later and has samples the first could not have.
  CHECK(*second.parsed.meta.profiling_end_ms > *meta.profiling_end_ms);
  CHECK(latest_sample_ms(second) > *meta.profiling_end_ms);
  CHECK(*last.parsed.meta.profiling_end_ms > *second.parsed.meta.profiling_end_ms);
  // More aged out by the later windows.
  CHECK(*sprof_meta(second, "flightDroppedSamples") > *sprof_meta(first, "flightDroppedSamples"));
  // Files are named by the window's start (UTC), so they sort by time.
  CHECK(names[0] < names[1]);
}

namespace {

void touch(const std::string& path) { std::ofstream(path) << "x"; }

}  // namespace

TEST_CASE("a presymbolicated flight recording reads its symbols before the first SIGUSR2") {
  // Reading the modules' debug info is most of a first window's write (0.3-0.6 s): the writer
  // reads it from previews of the window while recording (RunControl::on_preview), so
  // that the window asked for is written from symbols already read.
  skip_without_perf();
  const auto dir = make_temp_dir("flight-preview");
  const auto windows = dir + "/windows";
  BackgroundProcess recorder({kSprofExe, "record", "-v", "--flight-recorder", "2s", "--output-dir",
                              windows, "--", target_path("mk_flight_event"), "1"},
                             dir + "/sprof.log");
  REQUIRE_MESSAGE(!recorder.wait_for_log("preview: symbols read", 60s).empty(), recorder.log());
  REQUIRE_MESSAGE(!recorder.wait_for_log("event", 60s).empty(), recorder.log());
  REQUIRE(::kill(recorder.pid(), SIGUSR2) == 0);
  REQUIRE_MESSAGE(wait_for_windows(windows, 1), recorder.log());
  recorder.stop(SIGINT, 60s);
  const std::string log = recorder.log();
  INFO("sprof log: " << log);
  // No preview is written: the request's window and the last one are the only files.
  CHECK(log.find("2 flight-recorder windows written to " + windows) != std::string::npos);
  // The preview came before the request's window was cut.
  const auto preview_at = log.find("preview: symbols read");
  const auto cut_at = log.find("flight window cut");
  REQUIRE(cut_at != std::string::npos);
  CHECK(preview_at < cut_at);
  // The window is self-contained: `sprof report` names the function the program spins in.
  const auto names = windows_in(windows);
  REQUIRE(names.size() == 2);
  const ProcessResult report = run_process({kSprofExe, "report", windows + "/" + names[0]});
  INFO("report: " << report.out << report.err);
  CHECK(report.exit_code == 0);
  // One row names the module and the function; the columns' widths follow the longest names.
  CHECK(std::regex_search(report.out,
                          std::regex(R"(mk_flight_event +spin_for_ms\(unsigned long\))")));
}

TEST_CASE("a command that crashes leaves its last window, named after -o without --output-dir") {
  skip_without_perf();
  const auto dir = make_temp_dir("flight-crash");
  // Older windows of that name (one past six digits of sequence) go by --max-files 1; files
  // that only share the prefix stay.
  touch(dir + "/crash-20000101T000000.000Z-000007.json.gz");
  touch(dir + "/crash-20000101T000000.000Z-1000000.json.gz");
  touch(dir + "/crash.json.gz");
  touch(dir + "/crash-notes.json.gz");
  const auto result = run_process({kSprofExe, "record", "--no-presymbolicate", "--flight-recorder",
                                   "1s", "--max-files", "1", "-o", dir + "/crash.json.gz", "--",
                                   target_path("it_crash"), "2.5"});
  INFO("sprof: " << result.err);
  CHECK(result.exit_code == 128 + SIGSEGV);  // the command's status
  CHECK(result.err.find("the command was killed by signal 11") != std::string::npos);
  CHECK(result.err.find("2 removed by --max-files") != std::string::npos);
  const auto names = windows_in(dir);
  REQUIRE(names.size() == 3);
  CHECK(sequence_of(names[0], "crash") == 0);
  CHECK(names[1] == "crash-notes.json.gz");
  CHECK(names[2] == "crash.json.gz");
  const Window w = read_window(dir, names[0]);
  check_window_range(w, 1000);
  // The crashing function is in the window.
  const ThreadView* main_thread = find_thread(w.view.processes.at(0), "GeckoMain");
  REQUIRE(main_thread != nullptr);
  CHECK(main_thread->samples >= 100);
}

TEST_CASE("--max-files 2 keeps the two newest windows of an attached flight recording") {
  skip_without_perf();
  const auto dir = make_temp_dir("flight-max");
  const auto windows = dir + "/windows";
  BackgroundProcess target({target_path("it_spin"), "-1"}, dir + "/target.log");
  BackgroundProcess recorder(
      {kSprofExe, "record", "--no-presymbolicate", "--flight-recorder", "500ms", "--max-files", "2",
       "--output-dir", windows, "-p", std::to_string(target.pid())},
      dir + "/sprof.log");
  REQUIRE_MESSAGE(!recorder.wait_for_log("press Ctrl-C to stop", 20s).empty(), recorder.log());
  std::this_thread::sleep_for(700ms);  // longer than the window, so that some ages out
  // Each request waits for its file: --max-files removes the oldest after each write.
  for (int written = 1; written <= 3; ++written) {
    REQUIRE(::kill(recorder.pid(), SIGUSR2) == 0);
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < deadline) {
      const auto names = windows_in(windows);
      if (!names.empty() && sequence_of(names.back(), "sprof") == written - 1) break;
      std::this_thread::sleep_for(10ms);
    }
  }
  const int code = recorder.stop(SIGINT, 60s);
  INFO("sprof log: " << recorder.log());
  CHECK(code == 0);
  CHECK(recorder.log().find("4 flight-recorder windows written") != std::string::npos);
  CHECK(recorder.log().find("2 removed by --max-files") != std::string::npos);
  const auto names = windows_in(windows);
  REQUIRE(names.size() == 2);
  CHECK(sequence_of(names[0], "sprof") == 2);
  CHECK(sequence_of(names[1], "sprof") == 3);
  for (const auto& name : names) {
    const Window w = read_window(windows, name);
    check_window_range(w, 500);
    CHECK(w.view.processes.at(0).pid == target.pid());
  }
}
