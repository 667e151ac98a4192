// sprof/perfdata/process_filter.hpp
//
// `sprof import --pid P --name N`: keeps the records of the processes asked for and drops the
// others before they reach the converter (so a system-wide file's other processes cost nothing).
// A process is kept when its pid is one of `pids` or its name is one of `names`. Its name is its
// main thread's comm: what PERF_RECORD_COMM says (an exec renames it), inherited from the parent
// at fork until then, so a name selects a process from the moment it has that name. Records of
// the whole recording (lost, throttled) are always kept.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sprof/perf/records.hpp"

namespace sprof::perfdata {

// The process a record belongs to (for a sample or a switch, the task it was taken in).
uint32_t record_pid(const sprof::perf::Record& record);

class ProcessFilter {
 public:
  ProcessFilter(std::vector<uint32_t> pids, std::vector<std::string> names);

  // False when neither pids nor names were given: everything is kept.
  bool active() const { return !pids_.empty() || !names_.empty(); }
  // Notes what `record` says about process names, then whether it is kept.
  bool keep(const sprof::perf::Record& record);
  // For the error when nothing was kept: what was asked ("--pid 12 --name app") and the
  // processes the file had ("it_spin (4711), sh (4710)"; at most `max` of them).
  std::string selection() const;
  std::string processes_seen(size_t max = 10) const;

 private:
  bool selected(uint32_t pid) const;

  std::unordered_set<uint32_t> pids_;
  std::unordered_set<std::string> names_;
  std::unordered_map<uint32_t, std::string> name_of_;  // pid -> current name
};

}  // namespace sprof::perfdata
