// Integration tests of `sprof record --rotate`: one profile per interval in --output-dir, named
// so that names sort by time, each a whole profile of its own interval; --max-files keeps the
// newest; Ctrl-C writes the last, partial interval.
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "recorded_profile.hpp"
#include "sprof/profile/profile_reader.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;
using namespace std::chrono_literals;

namespace {

// The file names in `dir`, sorted.
std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The sequence number of "sprof-20261127T203329.291Z-000002.json.gz"; -1 for another name.
int sequence_of(const std::string& name) {
  static const std::regex kName(R"(sprof-\d{8}T\d{6}\.\d{3}Z-(\d{6})\.json\.gz)");
  std::smatch m;
  return std::regex_match(name, m, kName) ? std::stoi(m[1]) : -1;
}

// "N profiles written to" in sprof's summary; -1 without one.
int profiles_written(const std::string& err) {
  static const std::regex kSummary(R"((\d+) profiles written to)");
  std::smatch m;
  return std::regex_search(err, m, kSummary) ? std::stoi(m[1]) : -1;
}

struct IntervalFile {
  std::string name;
  sprof::profile::Meta meta;
  ProfileView view;
};

IntervalFile read_interval(const std::string& dir, const std::string& name) {
  IntervalFile f{name, {}, read_profile(dir + "/" + name)};
  auto parsed = sprof::profile::read_gecko_json(f.view.json);
  REQUIRE_MESSAGE(parsed.has_value(), name);
  f.meta = parsed->meta;
  return f;
}

size_t samples_of(const ProfileView& p) {
  size_t n = 0;
  for (const auto& proc : p.processes) {
    for (const auto& t : proc.threads) n += t.samples;
  }
  return n;
}

ProcessResult record_rotating(const std::string& dir, const std::vector<std::string>& extra,
                              double spin_s) {
  std::vector<std::string> argv = {
      kSprofExe, "record", "--no-presymbolicate", "--rotate", "1s", "--output-dir", dir};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), {"--", target_path("it_spin"), std::to_string(spin_s)});
  return run_process(argv);
}

}  // namespace

TEST_CASE("--rotate 1s writes one profile per interval, in time order, each of its interval") {
  skip_without_perf();
  const auto dir = make_temp_dir("rotate") + "/profiles";  // made by sprof
  const auto result = record_rotating(dir, {}, 3.5);
  INFO("sprof: " << result.err);
  REQUIRE(result.exit_code == 0);

  const auto names = files_in(dir);
  // 3.5 s of it_spin's CPU take at least 3.5 s: three whole intervals and a partial one, or more
  // on a loaded machine.
  REQUIRE(names.size() >= 4);
  CHECK(profiles_written(result.err) == static_cast<int>(names.size()));
  for (size_t i = 0; i < names.size(); ++i) {
    CHECK_MESSAGE(sequence_of(names[i]) == static_cast<int>(i), names[i]);
  }

  std::vector<IntervalFile> files;
  for (const auto& name : names) files.push_back(read_interval(dir, name));
  for (size_t i = 0; i < files.size(); ++i) {
    const IntervalFile& f = files[i];
    INFO(f.name);
    REQUIRE(f.meta.profiling_start_ms.has_value());
    REQUIRE(f.meta.profiling_end_ms.has_value());
    CHECK(*f.meta.profiling_start_ms == 0);
    const double length_ms = *f.meta.profiling_end_ms;
    // Cut at the first read round after the second is over (rounds are 50 ms apart, more when
    // the machine is loaded); only the last one ends early.
    CHECK(length_ms <= 5000);
    if (i + 1 < files.size()) {
      CHECK(length_ms >= 900);
      // Intervals follow each other without a gap: the next starts where this one ends.
      CHECK(std::abs(files[i + 1].meta.start_time_ms - (f.meta.start_time_ms + length_ms)) < 1.0);
      // it_spin spins through every whole interval.
      CHECK(samples_of(f.view) >= 100);
    }
    for (const auto& proc : f.view.processes) {
      for (const auto& t : proc.threads) {
        for (const double time_ms : t.times_ms) {
          CHECK(time_ms >= 0);
          CHECK(time_ms <= length_ms);
        }
      }
    }
  }
  // The spinning function is in the profiles (each is self-contained in its libs and stacks).
  const ThreadView* spinner = find_thread(files.front().view.processes.at(0), "GeckoMain");
  REQUIRE(spinner != nullptr);
  CHECK(std::any_of(spinner->leaf_frames.begin(), spinner->leaf_frames.end(),
                    [](const std::string& leaf) { return !leaf.empty(); }));
}

TEST_CASE("--max-files 2 keeps the two newest profiles of a rotating recording") {
  skip_without_perf();
  const auto dir = make_temp_dir("rotate-max");
  const auto result = record_rotating(dir, {"--max-files", "2"}, 3.5);
  INFO("sprof: " << result.err);
  REQUIRE(result.exit_code == 0);
  const int written = profiles_written(result.err);
  REQUIRE(written >= 4);
  const auto names = files_in(dir);
  REQUIRE(names.size() == 2);
  CHECK(sequence_of(names[0]) == written - 2);
  CHECK(sequence_of(names[1]) == written - 1);
  for (const auto& name : names) CHECK(read_interval(dir, name).meta.profiling_end_ms.has_value());
}

TEST_CASE("SIGINT ends a rotating attach recording and writes the partial interval") {
  skip_without_perf();
  const auto dir = make_temp_dir("rotate-sigint");
  BackgroundProcess target({target_path("it_spin"), "-1"}, dir + "/target.log");
  BackgroundProcess recorder(
      {kSprofExe, "record", "--no-presymbolicate", "--rotate", "1s", "--output-dir",
       dir + "/profiles", "-p", std::to_string(target.pid())},
      dir + "/sprof.log");
  REQUIRE_MESSAGE(!recorder.wait_for_log("press Ctrl-C to stop", 20s).empty(), recorder.log());
  // Wait for the first whole interval's file, then stop in the middle of the second.
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline &&
         (!std::filesystem::exists(dir + "/profiles") || files_in(dir + "/profiles").empty())) {
    std::this_thread::sleep_for(50ms);
  }
  std::this_thread::sleep_for(300ms);
  const int code = recorder.stop(SIGINT, 60s);
  INFO("sprof log: " << recorder.log());
  CHECK(code == 0);
  const auto names = files_in(dir + "/profiles");
  REQUIRE(names.size() >= 2);
  CHECK(profiles_written(recorder.log()) == static_cast<int>(names.size()));
  const IntervalFile last = read_interval(dir + "/profiles", names.back());
  REQUIRE(last.meta.profiling_end_ms.has_value());
  CHECK(*last.meta.profiling_end_ms <= 5000);
  CHECK(last.view.processes.at(0).pid == target.pid());
}
