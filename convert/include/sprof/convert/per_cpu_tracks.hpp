// sprof/convert/per_cpu_tracks.hpp
//
// --per-cpu-threads: a "CPUs" process in the profile with one track per CPU, showing which of the
// recorded threads ran on it and when. Every on-CPU sample goes to the track of the CPU it was
// taken on as well as to its thread's own track, with the same frames under two label frames
// naming the process and the thread, so a CPU's call tree and activity split by thread. Its CPU
// delta is the time the CPU spent running recorded threads since its previous sample, from the
// context-switch records every recording takes (the same bookkeeping as a thread's,
// cpu_accounting.hpp, keyed by CPU). With stretch markers, each stretch a thread ran on a CPU
// (switch-in to switch-out) is an "OnCpu" marker on that CPU's track.
//
// A CPU shows only the recorded threads: while it runs anything else (or nothing) its track is
// empty. Frames keep their addresses and the CPUs process gets every process's libs, so the
// symbol server names them as in their own processes. Should two processes have mapped
// different files at overlapping addresses (ASLR makes it rare), the profile writer keeps one of
// the overlapping libs and the other's frames there are misnamed.
//
// Not thread-safe; part of one ProfileConverter.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "sprof/convert/cpu_accounting.hpp"
#include "sprof/core/pair_index.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::convert {

// The CPUs process's pid: PID_MAX_LIMIT (2^22), above every pid Linux hands out.
inline constexpr int64_t kCpusProcessPid = 4194304;

class PerCpuTracks {
 public:
  // A recorded thread, as the CPU tracks label it.
  struct Task {
    uint32_t pid = 0;
    uint32_t tid = 0;
    std::string_view process_name;
    std::string_view thread_name;  // the main thread goes by the process's name
    // Identifies the thread's own track (its stacks live there): one per thread and image.
    uint64_t track_key = 0;
  };

  PerCpuTracks(uint64_t origin_ns, bool stretch_markers);

  // `task` is on `cpu` at `time_ns`: it was switched in, or wrote a record there.
  void running(uint32_t cpu, const Task& task, uint64_t time_ns);
  // `task` was switched out of `cpu`.
  void switched_out(uint32_t cpu, const Task& task, uint64_t time_ns);
  // An on-CPU sample of `task` taken on `cpu`, whose stack is `stack` in `thread` (the task's own
  // track). `period_cpu_ns` is the CPU time the sample's period says, if it says any: the delta
  // of a CPU's first sample, before any switch record told when the CPU started running.
  void add_sample(uint32_t cpu, const Task& task, const profile::Thread& thread,
                  std::optional<uint32_t> stack, uint64_t time_ns,
                  std::optional<uint64_t> period_cpu_ns);

  // Appends the CPUs process to `profile` (nothing if no CPU saw a recorded thread), with the
  // libs of every process already there. Stretches still open end at their CPU's last record.
  void finish(profile::Profile& profile);

 private:
  struct Stretch {
    uint32_t pid = 0;
    uint32_t tid = 0;
    std::string thread;  // label, for the marker
    uint64_t since_ns = 0;
  };
  struct Track {
    profile::Thread thread;
    // (thread's track_key, its stack) -> the same stack in this track.
    PairIndex stacks;
    std::optional<Stretch> stretch;
  };

  Track& track(uint32_t cpu);
  double to_ms(uint64_t ns) const;
  void close_stretch(Track& t, uint64_t end_ns);
  // `stack` of `thread`, copied under the task's labels into `t`.
  uint32_t copy_stack(Track& t, const Task& task, const profile::Thread& thread, uint32_t stack);

  uint64_t origin_ns_;
  bool stretch_markers_;
  std::map<uint32_t, Track> tracks_;  // by CPU number
  CpuAccounting busy_;                // keyed by CPU number
  std::vector<uint32_t> chain_;       // scratch: frames of a stack, leaf first
};

// "app (pid 10)" / "worker (tid 11)": the label frames and marker names of a task.
std::string process_label(const PerCpuTracks::Task& task);
std::string thread_label(const PerCpuTracks::Task& task);

}  // namespace sprof::convert
