// Ctrl-C and SIGTERM while sprof writes the profile: the first lets the write finish (the
// recording is not lost), the second abandons it; neither leaves a temporary file behind.
// The moment is found from the file system: the temporary file beside the output has bytes.
#include <doctest/doctest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "recorded_profile.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;
namespace fs = std::filesystem;

namespace {

// sprof's temporary files beside `out` (".<name>.<pid>-<n>.tmp").
std::vector<fs::path> temporary_files(const std::string& out) {
  std::vector<fs::path> found;
  const fs::path target(out);
  const std::string prefix = "." + target.filename().string() + ".";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(target.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && entry.path().extension() == ".tmp") {
      found.push_back(entry.path());
    }
  }
  return found;
}

// Sends `signals` to sprof, 100 ms apart, once its temporary file has bytes: the profile is
// being written. A recording of every allocation of hp_sites (400 MB churned) takes seconds
// to write (gzip).
struct InterruptedWrite {
  ProcessResult result;
  bool signalled = false;
};

InterruptedWrite interrupt_write(const std::string& out, int signal, int count) {
  std::atomic<bool> done{false};
  std::atomic<bool> signalled{false};
  std::thread interrupter;
  RunOptions options;
  options.timeout = std::chrono::seconds(300);
  options.on_start = [&](pid_t pid) {
    interrupter = std::thread([&, pid] {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(240);
      while (!done && std::chrono::steady_clock::now() < deadline) {
        bool writing = false;
        for (const auto& tmp : temporary_files(out)) {
          std::error_code ec;
          writing = writing || fs::file_size(tmp, ec) > 0;
        }
        if (writing) {
          for (int i = 0; i < count; ++i) {
            if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
            kill(pid, signal);
          }
          signalled = true;
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  };
  InterruptedWrite w;
  w.result = run_process({kSprofExe, "record", "-s", "--no-presymbolicate", "--heap=all", "-o", out,
                          "--", target_path("hp_sites"), "400000"},
                         options);
  done = true;
  interrupter.join();
  w.signalled = signalled;
  return w;
}

}  // namespace

TEST_CASE("a first Ctrl-C while the profile is written lets the write finish") {
  skip_without_perf();
  const auto dir = make_temp_dir("write-sigint");
  const auto out = dir + "/p.json.gz";
  const InterruptedWrite w = interrupt_write(out, SIGINT, 1);
  INFO("stdout: " << w.result.out << "\nstderr: " << w.result.err);
  REQUIRE(w.signalled);
  CHECK_FALSE(w.result.timed_out);
  CHECK(w.result.err.find("writing the profile; press Ctrl-C again to abandon") !=
        std::string::npos);
  CHECK(w.result.exit_code == 0);  // the command's own status: it ran to its end
  CHECK(temporary_files(out).empty());
  const auto profile = read_profile(out);  // complete and valid
  REQUIRE(profile.processes.size() == 1);
  CHECK(profile.processes[0].name == "hp_sites");
}

TEST_CASE(
    "a second SIGTERM while the profile is written abandons it and removes the temporary file") {
  skip_without_perf();
  const auto dir = make_temp_dir("write-sigterm");
  const auto out = dir + "/p.json.gz";
  const InterruptedWrite w = interrupt_write(out, SIGTERM, 2);
  INFO("stdout: " << w.result.out << "\nstderr: " << w.result.err);
  REQUIRE(w.signalled);
  CHECK_FALSE(w.result.timed_out);
  CHECK(w.result.err.find("abandoned writing the profile (SIGTERM twice)") != std::string::npos);
  CHECK(w.result.exit_code == 128 + SIGTERM);
  CHECK(temporary_files(out).empty());
  CHECK_FALSE(fs::exists(out));
}
