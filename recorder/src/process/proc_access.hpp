// recorder/src/process/proc_access.hpp
//
// The `ProcAccess` the converter uses to learn about tasks the record stream does not describe
// (names of threads and mappings of processes that already ran when recording started).
//
// System-wide recording (`sprof record -a`) reads /proc lazily, when a process first shows up in
// the records, so idle processes add nothing to the profile. A process that exits before its
// records are converted would then have no name and no libraries; `snapshot_system` keeps what
// /proc said about every process when recording started, and `with_snapshot_fallback` consults
// it when the live /proc entry is gone.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sprof/convert/host.hpp"

namespace sprof::recorder {

using convert::kIdleProcessName;  // pid 0's name in system-wide profiles (host.hpp)

// Reads /proc (or a fake tree at `proc_root`) on every call.
convert::ProcAccess live_proc_access(const std::string& proc_root = "/proc");

struct ProcessSnapshot {
  std::unordered_map<uint32_t, std::string>
      thread_names;  // by tid; the pid's entry names the process
  std::vector<convert::ProcAccess::Map> exec_maps;
};
using SystemSnapshot = std::unordered_map<uint32_t, ProcessSnapshot>;

// The numeric entries of `proc_root`, ascending.
std::vector<uint32_t> list_pids(std::string_view proc_root = "/proc");
// Names and executable mappings of every process now running. Processes that vanish while it
// reads are left out.
SystemSnapshot snapshot_system(std::string_view proc_root = "/proc");

// `live` first; the snapshot for tasks that are gone. pid 0 reads as kIdleProcessName.
convert::ProcAccess with_snapshot_fallback(const convert::ProcAccess& live,
                                           const std::shared_ptr<const SystemSnapshot>& snapshot);

}  // namespace sprof::recorder
