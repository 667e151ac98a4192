// tests/integration/recorded_profile.hpp
//
// Runs `sprof record` on a target program and reads back the profile it wrote, flattened into
// plain structs (one per process image and thread) that tests can assert on.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "subprocess.hpp"

namespace sprof::test {

struct ThreadView {
  std::string name;
  std::string process_name;
  int64_t pid = 0;
  int64_t tid = 0;
  size_t samples = 0;
  uint64_t cpu_delta_ns = 0;                     // sum of threadCPUDelta
  std::vector<std::string> leaf_frames;          // location strings of each sample's leaf
  std::vector<std::vector<std::string>> stacks;  // per sample, root first, location strings
  // Per sample: threadCPUDelta (nullopt when null), time, and the leaf frame's category index
  // (-1 without a stack); names in ProfileView::categories.
  std::vector<std::optional<uint64_t>> cpu_deltas;
  std::vector<double> times_ms;
  std::vector<int64_t> leaf_categories;
  bool unregistered = false;
  double unregister_time_ms = 0;  // when `unregistered`
};

struct LibView {
  uint64_t start = 0, end = 0, offset = 0;
  std::string name, path, debug_name, breakpad_id;
};

struct ProcessView {
  int64_t pid = 0;
  std::string name;
  std::vector<std::string> lib_names;
  std::vector<LibView> libs;
  std::vector<ThreadView> threads;
};

struct ProfileView {
  std::vector<ProcessView> processes;  // [0] is the top level
  std::string json;                    // the whole (gunzipped) document
  std::string sprof_meta_event;
  // meta.sprof.cpuStalledMs / cpuStallCreditedMs, when present (cpu_accounting.hpp)
  std::optional<double> sprof_meta_cpu_stalled_ms;
  std::optional<double> sprof_meta_cpu_stall_credited_ms;
  // meta.sprof.cpuCounts: the scheduler's runtime counts the deltas were settled with, and
  // cpuCountAddedMs: what they added to the switch records' times
  std::optional<int64_t> sprof_meta_cpu_counts;
  std::optional<double> sprof_meta_cpu_count_added_ms;
  // meta.sprof.cpuSwitchInsWithoutPick: switch-ins that started at their own, late, record
  std::optional<int64_t> sprof_meta_cpu_switch_ins_without_pick;
  std::vector<std::string> categories;  // meta.categories[].name
};

// Parses a (possibly gzipped) Gecko profile written by sprof. Fails the current test on errors.
ProfileView read_profile(const std::string& path);

// The first thread called `name` in `p`, and the first process called `name` in `profile`;
// nullptr when there is none.
const ThreadView* find_thread(const ProcessView& p, const std::string& name);
const ProcessView* find_process_named(const ProfileView& profile, const std::string& name);

// A fresh empty directory under /tmp for one test.
std::string make_temp_dir(const std::string& tag);

// Runs `sprof record -s --no-presymbolicate -o <out> <extra...> -- <command...>`: the Gecko form,
// which `read_profile` reads.
ProcessResult sprof_record(const std::string& out, const std::vector<std::string>& extra,
                           const std::vector<std::string>& command);

std::string target_path(const std::string& name);

// `sprof record -s -o <file> -- it_unwind <threads> <seconds>`, self-contained, or the Gecko form
// (--no-presymbolicate) when `gecko`; REQUIREs that it worked. Returns `file`.
std::string record_it_unwind(const std::string& file, const std::string& threads,
                             const std::string& seconds, bool gecko = false);
// target_path(name) of a program another toolchain builds (tests/targets/unwind_matrix.cmake,
// toolchains.cmake, languages.cmake); fails the test (doctest), saying what to install, when the
// program was not built because that toolchain is missing.
std::string toolchain_target(const std::string& name, const std::string& what_to_install);

// perf_event_open works here (else integration tests are skipped, saying why).
bool perf_available(std::string& why_not);

// ctest treats this exit code as "skipped" (SKIP_RETURN_CODE), so a machine without
// perf_event_open shows skips, not passes.
inline constexpr int kSkipExitCode = 77;
// Ends the test process with kSkipExitCode, printing why, when perf_event_open is unavailable.
void skip_without_perf();

}  // namespace sprof::test
