#include "recorded_profile.hpp"

#include <doctest/doctest.h>
#include <linux/perf_event.h>
#include <simdjson.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

#include "sprof/profile/profile_file.hpp"
#include "sprof_test/gecko_validator.hpp"
#include "sprof_test/paths.hpp"

namespace sprof::test {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

std::string str(element e) {
  std::string_view s;
  return e.get(s) == simdjson::SUCCESS ? std::string(s) : std::string();
}

int64_t num(element e) {
  int64_t i = 0;
  if (e.get(i) == simdjson::SUCCESS) return i;
  uint64_t u = 0;
  if (e.get(u) == simdjson::SUCCESS) return static_cast<int64_t>(u);
  double d = 0;
  if (e.get(d) == simdjson::SUCCESS) return static_cast<int64_t>(d);
  return 0;
}

ThreadView read_thread(object t) {
  ThreadView view;
  view.name = str(t["name"]);
  view.process_name = str(t["processName"]);
  view.pid = num(t["pid"]);
  view.tid = num(t["tid"]);
  view.unregistered = !t["unregisterTime"].is_null();
  if (view.unregistered) {
    double at = 0;
    if (t["unregisterTime"].get(at) != simdjson::SUCCESS) {
      at = static_cast<double>(num(t["unregisterTime"]));
    }
    view.unregister_time_ms = at;
  }

  std::vector<std::string> strings;
  for (element s : array(t["stringTable"])) strings.push_back(str(s));
  std::vector<std::string> frame_locations;
  std::vector<int64_t> frame_categories;
  for (element f : array(t["frameTable"]["data"])) {
    frame_locations.push_back(strings.at(static_cast<size_t>(num(array(f).at(0)))));
    // frameTable schema: location, relevantForJS, innerWindowID, implementation, line, column,
    // category, subcategory (docs/firefox-profiler-format.md, "frameTable and location strings").
    frame_categories.push_back(
        array(f).size() > 6 && !array(f).at(6).is_null() ? num(array(f).at(6)) : -1);
  }
  std::vector<std::pair<int64_t, int64_t>> stacks;  // (prefix or -1, frame)
  for (element s : array(t["stackTable"]["data"])) {
    array pair = s;
    stacks.emplace_back(pair.at(0).is_null() ? -1 : num(pair.at(0)), num(pair.at(1)));
  }
  for (element s : array(t["samples"]["data"])) {
    array row = s;
    ++view.samples;
    if (row.size() > 3 && !row.at(3).is_null())
      view.cpu_delta_ns += static_cast<uint64_t>(num(row.at(3)));
    view.cpu_deltas.push_back(row.size() > 3 && !row.at(3).is_null()
                                  ? std::optional<uint64_t>(static_cast<uint64_t>(num(row.at(3))))
                                  : std::nullopt);
    double time = 0;
    if (row.at(1).get(time) != simdjson::SUCCESS) time = static_cast<double>(num(row.at(1)));
    view.times_ms.push_back(time);
    view.leaf_categories.push_back(
        row.at(0).is_null() ? -1
                            : frame_categories.at(static_cast<size_t>(
                                  stacks.at(static_cast<size_t>(num(row.at(0)))).second)));
    std::vector<std::string> frames;
    if (!row.at(0).is_null()) {
      for (int64_t k = num(row.at(0)); k >= 0; k = stacks.at(static_cast<size_t>(k)).first) {
        frames.push_back(
            frame_locations.at(static_cast<size_t>(stacks.at(static_cast<size_t>(k)).second)));
      }
    }
    view.leaf_frames.push_back(frames.empty() ? std::string() : frames.front());
    std::reverse(frames.begin(), frames.end());
    view.stacks.push_back(std::move(frames));
  }
  return view;
}

ProcessView read_process(object p) {
  ProcessView view;
  for (element lib : array(p["libs"])) {
    view.lib_names.push_back(str(lib["name"]));
    LibView l;
    uint64_t u = 0;
    if (lib["start"].get(u) == simdjson::SUCCESS) l.start = u;
    if (lib["end"].get(u) == simdjson::SUCCESS) l.end = u;
    if (lib["offset"].get(u) == simdjson::SUCCESS) l.offset = u;
    l.name = str(lib["name"]);
    l.path = str(lib["path"]);
    l.debug_name = str(lib["debugName"]);
    l.breakpad_id = str(lib["breakpadId"]);
    view.libs.push_back(std::move(l));
  }
  for (element t : array(p["threads"])) view.threads.push_back(read_thread(t));
  if (!view.threads.empty()) {
    view.pid = view.threads.front().pid;
    view.name = view.threads.front().process_name;
  }
  return view;
}

}  // namespace

ProfileView read_profile(const std::string& path) {
  ProfileView view;
  auto bytes = profile::read_profile_json(path);
  REQUIRE_MESSAGE(bytes.has_value(), "cannot read " << path);
  view.json = *bytes;
  // Every profile sprof writes must pass the static checks of
  // docs/firefox-profiler-format.md, "what the UI requires".
  const auto problems = check_gecko_profile(view.json);
  CHECK_MESSAGE(problems.empty(), join_problems(problems));
  simdjson::dom::parser parser;
  element doc;
  REQUIRE(parser.parse(view.json).get(doc) == simdjson::SUCCESS);
  object top = doc;
  view.processes.push_back(read_process(top));
  for (element p : array(top["processes"])) view.processes.push_back(read_process(p));
  std::string_view event;
  if (top["meta"]["sprof"]["event"].get(event) == simdjson::SUCCESS) view.sprof_meta_event = event;
  double ms = 0;
  if (top["meta"]["sprof"]["cpuStalledMs"].get(ms) == simdjson::SUCCESS) {
    view.sprof_meta_cpu_stalled_ms = ms;
  }
  if (top["meta"]["sprof"]["cpuStallCreditedMs"].get(ms) == simdjson::SUCCESS) {
    view.sprof_meta_cpu_stall_credited_ms = ms;
  }
  int64_t counts = 0;
  if (top["meta"]["sprof"]["cpuCounts"].get(counts) == simdjson::SUCCESS) {
    view.sprof_meta_cpu_counts = counts;
  }
  if (top["meta"]["sprof"]["cpuCountAddedMs"].get(ms) == simdjson::SUCCESS) {
    view.sprof_meta_cpu_count_added_ms = ms;
  }
  int64_t unpicked = 0;
  if (top["meta"]["sprof"]["cpuSwitchInsWithoutPick"].get(unpicked) == simdjson::SUCCESS) {
    view.sprof_meta_cpu_switch_ins_without_pick = unpicked;
  }
  for (element c : array(top["meta"]["categories"])) view.categories.push_back(str(c["name"]));
  return view;
}

const ThreadView* find_thread(const ProcessView& p, const std::string& name) {
  for (const auto& t : p.threads) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const ProcessView* find_process_named(const ProfileView& profile, const std::string& name) {
  for (const auto& p : profile.processes) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

namespace {

// The directories make_temp_dir created in this test process, removed when it exits (each ctest
// test is its own process; std::exit, which the skip path takes, still runs this). A test that
// crashes leaves its directory for a look; SPROF_KEEP_TEST_DIRS=1 keeps all of them.
class TempDirRegistry {
 public:
  void add(const std::filesystem::path& dir) {
    std::lock_guard lock(mutex_);
    dirs_.push_back(dir);
  }
  ~TempDirRegistry() {
    // A forked child that exits normally must not take the parent's directories with it.
    if (getpid() != owner_ || std::getenv("SPROF_KEEP_TEST_DIRS") != nullptr) return;
    std::error_code ignored;
    for (const auto& dir : dirs_) std::filesystem::remove_all(dir, ignored);
  }

 private:
  const pid_t owner_ = getpid();
  std::mutex mutex_;
  std::vector<std::filesystem::path> dirs_;
};

TempDirRegistry& temp_dirs() {
  static TempDirRegistry registry;
  return registry;
}

}  // namespace

std::string make_temp_dir(const std::string& tag) {
  static std::atomic<int> counter{0};
  auto dir = std::filesystem::temp_directory_path() /
             ("sprof-it-" + tag + "-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  temp_dirs().add(dir);
  return dir.string();
}

std::string target_path(const std::string& name) { return std::string(kTargetsDir) + "/" + name; }

std::string record_it_unwind(const std::string& file, const std::string& threads,
                             const std::string& seconds, bool gecko) {
  std::vector<std::string> argv{kSprofExe, "record", "-s", "-o", file};
  if (gecko) argv.push_back("--no-presymbolicate");
  argv.insert(argv.end(), {"--", target_path("it_unwind"), threads, seconds});
  const ProcessResult r = run_process(argv);
  INFO("sprof record: " << r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return file;
}

std::string toolchain_target(const std::string& name, const std::string& what_to_install) {
  const std::string path = target_path(name);
  if (!std::filesystem::exists(path)) {
    FAIL(path << " was not built: install " << what_to_install
              << " (scripts/install-deps.sh) and configure again");
  }
  return path;
}

ProcessResult sprof_record(const std::string& out, const std::vector<std::string>& extra,
                           const std::vector<std::string>& command) {
  // The Gecko form: these tests look at what was recorded (addresses, libs, rows).
  std::vector<std::string> argv = {kSprofExe, "record", "-s", "--no-presymbolicate", "-o", out};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return run_process(argv);
}

bool perf_available(std::string& why_not) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.disabled = 1;
  const long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd < 0) {
    why_not = std::string("perf_event_open is unavailable here: ") + std::strerror(errno);
    return false;
  }
  close(static_cast<int>(fd));
  return true;
}

void skip_without_perf() {
  std::string why;
  if (!perf_available(why)) {
    MESSAGE("skipped: " << why);
    std::exit(kSkipExitCode);
  }
}

}  // namespace sprof::test
