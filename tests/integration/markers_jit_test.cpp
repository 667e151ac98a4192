// Markers and JIT symbols end to end: `sprof record` programs built by the suite (tests/targets/
// markers), load the result with the Firefox Profiler's own code (profiler-cli), through sprof's
// server where symbols are needed, and check what the Firefox Profiler shows.
#include <doctest/doctest.h>
#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "profiler_cli.hpp"
#include "profiler_cli_queries.hpp"
#include "recorded_profile.hpp"
#include "sprof/profile/profile_file.hpp"
#include "sprof/profile/profile_reader.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

// `sprof record --no-open -P 0 -o <dir>/p.json.gz -- command`, serving until destroyed, with
// the printed URL loaded into a profiler-cli session.
struct ServedRecording {
  std::string dir;
  std::string out;
  std::unique_ptr<BackgroundProcess> sprof;
  std::optional<ProfilerCli> cli;
  ProfileView profile;

  ServedRecording(const std::string& tag, const std::vector<std::string>& command)
      : dir(make_temp_dir(tag)), out(dir + "/p.json.gz") {
    // Kept in the Gecko form: `read_profile` reads the file while it is served.
    std::vector<std::string> argv{
        kSprofExe, "record", "--no-open", "--no-presymbolicate", "-P", "0", "-o", out, "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    sprof = std::make_unique<BackgroundProcess>(argv, dir + "/sprof.log");
    const std::string log = sprof->wait_for_log("sprof: open ", std::chrono::seconds(60));
    INFO("sprof log:\n" << sprof->log());
    REQUIRE_FALSE(log.empty());
    auto located = ProfilerCli::locate();
    REQUIRE_MESSAGE(located.has_value(), (located.has_value() ? "" : located.error().message));
    cli.emplace(std::move(*located));
    auto loaded = cli->load(log_value_after(log, "sprof: open "));
    INFO("load: " << loaded.out << loaded.err << "\n" << cli->session_log());
    REQUIRE(loaded.exit_code == 0);
    profile = read_profile(out);
  }
  ~ServedRecording() {
    if (sprof) sprof->stop(SIGINT, std::chrono::seconds(10));
  }

  int thread_index(int64_t tid) { return thread_index_of(cli->profile_info().out, tid); }
  int64_t root_pid() const { return profile.processes.at(0).pid; }
};

// A profile file loaded into profiler-cli directly (no symbols needed).
std::vector<MarkerView> markers_of_recorded(const std::string& tag,
                                            const std::vector<std::string>& command) {
  const auto dir = make_temp_dir(tag);
  const auto out = dir + "/p.json.gz";
  const auto recorded = sprof_record(out, {}, command);
  INFO("sprof: " << recorded.out << recorded.err);
  REQUIRE(recorded.exit_code == 0);
  const auto profile = read_profile(out);
  auto cli = ProfilerCli::locate();
  REQUIRE(cli.has_value());
  REQUIRE(cli->load(out).exit_code == 0);
  const int main_thread = thread_index_of(cli->profile_info().out, profile.processes.at(0).pid);
  REQUIRE(main_thread >= 0);
  return flat_markers(cli->thread_markers(main_thread).out);
}

std::string joined(const std::vector<MarkerView>& markers) {
  std::string out;
  for (const auto& m : markers) out += m.name + " [" + m.type + "] " + m.label + "\n";
  return out;
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += n + "\n";
  return out;
}

// How many of `thread`'s samples have their leaf in `lib` (by the leaf's "0x<hex>" address),
// and how many of those leaves are in the category named `category`.
struct LeafCount {
  size_t in_lib = 0;
  size_t in_category = 0;
};
LeafCount leaves_in(const ProfileView& profile, const ThreadView& thread, const LibView& lib,
                    const std::string& category) {
  LeafCount count;
  for (size_t i = 0; i < thread.leaf_frames.size(); ++i) {
    const std::string& leaf = thread.leaf_frames[i];
    if (!leaf.starts_with("0x")) continue;
    const uint64_t address = std::stoull(leaf.substr(2), nullptr, 16);
    if (address < lib.start || address >= lib.end) continue;
    ++count.in_lib;
    const int64_t c = thread.leaf_categories.at(i);
    count.in_category += c >= 0 && static_cast<size_t>(c) < profile.categories.size() &&
                         profile.categories[static_cast<size_t>(c)] == category;
  }
  return count;
}

// The fake JIT's code lib (named after its perf map or jitdump) in the root process.
const LibView* jit_lib(const ProfileView& profile, const std::string& name) {
  for (const auto& lib : profile.processes.at(0).libs) {
    if (lib.name == name) return &lib;
  }
  return nullptr;
}

// The jitted code runs for half a second: most of the main thread's samples are in it, and
// every one of them is in the JIT category (the category graph and call tree show it).
void check_jit_category(const ProfileView& profile, const std::string& lib_name) {
  const auto& proc = profile.processes.at(0);
  const ThreadView* main = nullptr;
  for (const auto& t : proc.threads) {
    if (t.tid == proc.pid) main = &t;
  }
  REQUIRE(main != nullptr);
  const LibView* lib = jit_lib(profile, lib_name);
  REQUIRE_MESSAGE(lib != nullptr, "no lib " << lib_name);
  const LeafCount count = leaves_in(profile, *main, *lib, "JIT");
  CHECK(count.in_lib > 0);
  CHECK(count.in_category == count.in_lib);
}

// The perf map a fake JIT left in /tmp, removed when the test ends.
struct PerfMapCleanup {
  int64_t pid = 0;
  ~PerfMapCleanup() {
    if (pid > 0) std::filesystem::remove("/tmp/perf-" + std::to_string(pid) + ".map");
  }
};

}  // namespace

TEST_CASE("user markers from sprof/markers.h show on their threads in the Firefox Profiler") {
  skip_without_perf();
  ServedRecording r("markers-header", {target_path("mk_user_markers")});
  const auto& proc = r.profile.processes.at(0);
  REQUIRE(proc.threads.size() == 2);
  const int main_thread = r.thread_index(proc.pid);
  int64_t worker_tid = 0;
  for (const auto& t : proc.threads) {
    if (t.tid != proc.pid) worker_tid = t.tid;
  }
  const int worker_thread = r.thread_index(worker_tid);
  REQUIRE(main_thread >= 0);
  REQUIRE(worker_thread >= 0);

  const auto main_markers = flat_markers(r.cli->thread_markers(main_thread).out);
  INFO("main thread markers:\n" << joined(main_markers));
  const auto instant = marker_named(main_markers, "main-instant");
  REQUIRE(instant.has_value());
  CHECK(instant->type == "UserMarker");
  CHECK(instant->category == "User");
  CHECK_FALSE(instant->duration.has_value());
  const auto interval = marker_named(main_markers, "main-interval");
  REQUIRE(interval.has_value());
  REQUIRE(interval->duration.has_value());
  CHECK(*interval->duration >= 100.0);  // the program spins 100 ms inside it
  CHECK(interval->start >= instant->start);
  CHECK_FALSE(marker_named(main_markers, "worker-scope").has_value());

  // Lifecycle markers with their schemas' labels.
  const auto exec = marker_named(main_markers, "exec");
  REQUIRE(exec.has_value());
  CHECK(exec->type == "Exec");
  CHECK(exec->label.find("mk_user_markers") != std::string::npos);
  const auto exit = marker_named(main_markers, "Process exit");
  REQUIRE(exit.has_value());
  CHECK(exit->label == "exit: exit code 0");

  const auto worker_markers = flat_markers(r.cli->thread_markers(worker_thread).out);
  INFO("worker markers:\n" << joined(worker_markers));
  const auto scope = marker_named(worker_markers, "worker-scope");
  REQUIRE(scope.has_value());
  REQUIRE(scope->duration.has_value());
  CHECK(*scope->duration >= 100.0);
  CHECK(marker_named(worker_markers, "worker-instant").has_value());
  CHECK(marker_named(worker_markers, "Thread start").has_value());
  CHECK(marker_named(worker_markers, "Thread exit").has_value());
  CHECK_FALSE(marker_named(worker_markers, "main-interval").has_value());
}

TEST_CASE("markers written from C and samply-style marker files show in the Firefox Profiler") {
  skip_without_perf();
  SUBCASE("C program using sprof/markers.h") {
    const auto markers = markers_of_recorded("markers-c", {target_path("mk_user_markers_c")});
    INFO("markers:\n" << joined(markers));
    CHECK(marker_named(markers, "c-instant").has_value());
    const auto interval = marker_named(markers, "c-interval");
    REQUIRE(interval.has_value());
    REQUIRE(interval->duration.has_value());
    CHECK(*interval->duration >= 100.0);
  }
  SUBCASE("marker-<pid>.txt written by the program itself") {
    const auto marker_dir = make_temp_dir("samply-markers");
    const auto markers =
        markers_of_recorded("markers-samply", {target_path("mk_samply_markers"), marker_dir});
    INFO("markers:\n" << joined(markers));
    const auto interval = marker_named(markers, "samply-interval");
    REQUIRE(interval.has_value());
    CHECK(interval->type == "UserMarker");
    REQUIRE(interval->duration.has_value());
    CHECK(*interval->duration >= 150.0);
    const auto instant = marker_named(markers, "samply-instant");
    REQUIRE(instant.has_value());
    CHECK_FALSE(instant->duration.has_value());
    std::filesystem::remove_all(marker_dir);
  }
}

TEST_CASE("jitted code named in a perf map is symbolicated through sprof's server") {
  skip_without_perf();
  ServedRecording r("jit-perfmap", {target_path("mk_fake_jit"), "perfmap"});
  PerfMapCleanup cleanup{r.root_pid()};
  const int main_thread = r.thread_index(r.root_pid());
  REQUIRE(main_thread >= 0);
  const auto names = top_function_names(r.cli->thread_samples(main_thread).out);
  INFO("functions:\n" << joined(names));
  const std::string lib = "perf-" + std::to_string(r.root_pid()) + ".map";
  CHECK(names.count(lib + "!jitted_hot_loop") == 1);
  for (const auto& n : names) CHECK_MESSAGE(n.find("!0x") == std::string::npos, n);
  check_jit_category(r.profile, lib);
}

TEST_CASE("jitted code named in a jitdump is symbolicated through sprof's server") {
  skip_without_perf();
  const auto dump_dir = make_temp_dir("jitdump");
  ServedRecording r("jit-dump", {target_path("mk_fake_jit"), "jitdump", dump_dir});
  const int main_thread = r.thread_index(r.root_pid());
  REQUIRE(main_thread >= 0);
  const auto names = top_function_names(r.cli->thread_samples(main_thread).out);
  INFO("functions:\n" << joined(names));
  const std::string lib = "jit-" + std::to_string(r.root_pid()) + ".dump";
  CHECK(names.count(lib + "!jitdump_hot_loop") == 1);
  check_jit_category(r.profile, lib);
  r.sprof->stop(SIGINT, std::chrono::seconds(10));
  std::filesystem::remove_all(dump_dir);
}

TEST_CASE("a self-contained profile carries the jitdump's source file and line of JIT code") {
  skip_without_perf();
  const auto dir = make_temp_dir("jit-dump-lines");
  const auto dump_dir = make_temp_dir("jitdump-lines");
  const std::string out = dir + "/p.json.gz";
  // Presymbolicated (the default): the JIT symbols and lines are read when the file is saved.
  const auto recorded = run_process({kSprofExe, "record", "-s", "-o", out, "--",
                                     target_path("mk_fake_jit"), "jitdump", dump_dir});
  INFO("sprof: " << recorded.out << recorded.err);
  REQUIRE(recorded.exit_code == 0);
  auto text = sprof::profile::read_profile_json(out);
  REQUIRE(text.has_value());
  auto symbols = sprof::profile::read_embedded_symbols(*text);
  REQUIRE(symbols.has_value());
  // The loop body, where the samples land, is line 41 of the file the fake JIT's DEBUG_INFO
  // names (tests/targets/markers/mk_fake_jit.cpp).
  std::set<std::string> seen;
  size_t in_loop_body = 0;
  for (const auto& [key, module] : symbols->modules()) {
    if (!key.debug_name.starts_with("jit-")) continue;
    for (const auto& [address, symbol] : module.entries()) {
      seen.insert(symbol.function + " " + symbol.file + ":" + std::to_string(symbol.line));
      in_loop_body += symbol.function == "jitdump_hot_loop" &&
                      symbol.file == "/sprof-fake-jit/hot_loop.js" && symbol.line == 41;
    }
  }
  INFO("JIT addresses:\n" << joined(seen));
  CHECK(in_loop_body > 0);
  std::filesystem::remove_all(dump_dir);
}
