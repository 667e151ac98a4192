// recorder/src/process/proc_maps.hpp
//
// Reading /proc for what the perf record stream does not carry: the mappings, thread names,
// thread list and command line of a process (attach mode, and exec markers).
// `parse_maps` is pure (tests feed it strings); the `read_*` functions take the /proc root so
// tests can point them at a fake tree.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/core/result.hpp"

namespace sprof::recorder {

// One line of /proc/PID/maps (proc(5)):
//   start-end perms offset major:minor inode [path]
struct MapsEntry {
  uint64_t start = 0, end = 0;
  bool readable = false, writable = false, executable = false;
  bool shared = false;  // 's' (MAP_SHARED) instead of 'p'
  uint64_t offset = 0;
  uint32_t dev_major = 0, dev_minor = 0;
  uint64_t inode = 0;
  // The file path, or a pseudo-path such as "[vdso]", "[stack]", "[heap]"; empty for anonymous
  // memory. The kernel's " (deleted)" suffix is removed and reported in `deleted`.
  std::string path;
  bool deleted = false;

  bool is_pseudo() const { return !path.empty() && path.front() == '['; }
};

// Parses the text of a maps file. Lines that do not parse are skipped and counted in
// `*malformed_lines` when given.
std::vector<MapsEntry> parse_maps(std::string_view text, size_t* malformed_lines = nullptr);

// /proc/PID/maps.
Result<std::vector<MapsEntry>> read_maps(pid_t pid, std::string_view proc_root = "/proc");
// /proc/PID/task/TID/comm without the trailing newline.
Result<std::string> read_comm(pid_t pid, pid_t tid, std::string_view proc_root = "/proc");
// The thread ids in /proc/PID/task, ascending.
Result<std::vector<pid_t>> list_threads(pid_t pid, std::string_view proc_root = "/proc");
// The entries of `dir` whose names are decimal numbers, ascending: the pids of /proc and the
// tids of /proc/PID/task. Other names ("self", "sys", dot files) are skipped.
Result<std::vector<uint32_t>> list_numeric_entries(const std::string& dir);

// The arguments of a NUL-separated /proc/PID/cmdline.
std::vector<std::string> argv_from_proc(std::string_view cmdline);
// Reads <proc_root>/<pid>/cmdline; nullopt when the process is gone or has none (kernel thread).
std::optional<std::vector<std::string>> read_proc_argv(uint32_t pid, const std::string& proc_root);

}  // namespace sprof::recorder
