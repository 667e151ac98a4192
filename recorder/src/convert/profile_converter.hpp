// recorder/src/convert/profile_converter.hpp
//
// Turns the time-ordered stream of perf records into a `profile::Profile`, independent of where
// the records come from (live ring buffers or a test's synthetic records — samply's lesson).
//
// It tracks processes (fork, exec, exit), threads (creation, names, exit) and each process
// image's executable mappings, and builds one Gecko process per process image: an exec starts a
// new image with the same pid (contract section 2.13). Stacks are kernel frames from the
// callchain in front of user frames, which come either from the callchain (frame pointers) or
// from the `Unwinder` applied to the sampled registers and stack copy.
//
// Not thread-safe; one instance per recording.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "perf/records.hpp"
#include "process/module_cache.hpp"
#include "process/module_map.hpp"
#include "sprof/profile/profile.hpp"
#include "sprof/recorder/stats.hpp"
#include "unwind/unwinder.hpp"

namespace sprof::recorder {

// Access to /proc for things the record stream does not carry (names of threads that existed
// before recording started, mappings of attached processes). Tests inject fakes.
struct ProcAccess {
  std::function<std::optional<std::string>(uint32_t pid, uint32_t tid)> read_comm;
  // Executable mappings: (path, start, end, pgoff).
  struct Map {
    std::string path;
    uint64_t start, end, pgoff;
  };
  std::function<std::vector<Map>(uint32_t pid)> read_exec_maps;
};

struct ConverterOptions {
  uint64_t origin_monotonic_ns = 0;  // CLOCK_MONOTONIC at the profile's time origin
  double origin_wall_ms = 0;         // wall clock (ms since epoch) at the same instant
  double interval_ms = 1;
  std::string product = "sprof";
  uint32_t root_pid = 0;
  bool period_is_cpu_ns = true;      // cpu-clock: a sample's period is the thread's CPU ns
  uint64_t sample_regs_user = 0;     // attr.sample_regs_user (dwarf mode)
  unwind::Unwinder* unwinder = nullptr;  // null: user frames from the callchain
  std::optional<profile::Library> kernel_lib;  // appended to every process's libs
  ProcAccess proc;
};

class ProfileConverter {
 public:
  ProfileConverter(ConverterOptions options, ModuleCache& modules);

  void consume(const perf::Record& record);
  // Registers a process that already runs (attach): its threads and mappings from /proc.
  void seed_process(uint32_t pid, const std::vector<uint32_t>& tids);

  // Closes open threads and processes at `end_ns` and returns the profile.
  profile::Profile finish(uint64_t end_ns);
  RecordingStats& stats() { return stats_; }

 private:
  struct ThreadState {
    uint32_t pid = 0;
    size_t image = 0;   // index into profile_.processes
    size_t thread = 0;  // index into that process's threads
  };
  struct ProcessState {
    size_t image = 0;
    ModuleMap modules;
    std::string name;
    bool maps_loaded_from_proc = false;
  };

  void on_sample(const perf::SampleRecord& s);
  void on_mmap(const perf::Mmap2Record& m);
  void on_comm(const perf::CommRecord& c);
  void on_fork(const perf::ForkRecord& f);
  void on_exit(const perf::ExitRecord& e);

  double to_ms(uint64_t ns) const;
  ProcessState& process(uint32_t pid, uint64_t time_ns);
  size_t new_image(uint32_t pid, const std::string& name, uint64_t time_ns);
  ThreadState& thread(uint32_t pid, uint32_t tid, uint64_t time_ns);
  profile::Thread& profile_thread(const ThreadState& t);
  void add_mapping(ProcessState& p, const std::string& path, uint64_t start, uint64_t end,
                   uint64_t pgoff);
  void load_maps_from_proc(uint32_t pid, ProcessState& p);
  void add_marker_to_root(profile::Marker marker);
  // Fills `frames` leaf first: kernel frames, then user frames.
  void collect_frames(const perf::SampleRecord& s, ProcessState& p);

  ConverterOptions options_;
  ModuleCache& modules_;
  profile::Profile profile_;
  RecordingStats stats_;
  std::unordered_map<uint32_t, ProcessState> processes_;
  std::unordered_map<uint32_t, ThreadState> threads_;
  std::vector<std::pair<uint64_t, profile::Category>> frames_;  // scratch, leaf first
  unwind::UnwindResult unwind_result_;
};

}  // namespace sprof::recorder
