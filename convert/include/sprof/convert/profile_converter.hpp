// sprof/convert/profile_converter.hpp
//
// Turns the time-ordered stream of perf records into a `profile::Profile`, independent of where
// the records come from (any `RecordSource`: live ring buffers, a recorded file, a test's
// synthetic records — samply's lesson). Its options are built from the source's description by
// `converter_options` (source_description.hpp), the same way for every source.
//
// It tracks processes (fork, exec, exit), threads (creation, names, exit) and each process
// image's executable mappings, and builds one Gecko process per process image: an exec starts a
// new image with the same pid (docs/firefox-profiler-format.md, "Several processes"). Stacks are
// kernel frames from the callchain in front of user frames, which come either from the callchain
// (frame pointers) or from the `Unwinder` applied to the sampled registers and stack copy.
// Allocation records
// (`record --heap`) are unwound the same way and kept as native-allocation tables and memory
// counters (profile_converter_heap.cpp, native_allocations.hpp).
//
// Not thread-safe; one instance per recording.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "sprof/convert/allocator_frames.hpp"
#include "sprof/convert/cpu_accounting.hpp"
#include "sprof/convert/flight_window.hpp"
#include "sprof/convert/host.hpp"
#include "sprof/convert/jit_libraries.hpp"
#include "sprof/convert/lifecycle_markers.hpp"
#include "sprof/convert/marker_files.hpp"
#include "sprof/convert/module_cache.hpp"
#include "sprof/convert/module_map.hpp"
#include "sprof/convert/native_allocations.hpp"
#include "sprof/convert/off_cpu.hpp"
#include "sprof/convert/per_cpu_tracks.hpp"
#include "sprof/convert/process_name.hpp"
#include "sprof/convert/record_source.hpp"
#include "sprof/convert/stats.hpp"
#include "sprof/convert/walked_stack_cache.hpp"
#include "sprof/perf/records.hpp"
#include "sprof/profile/profile.hpp"
#include "sprof/profile/sample_spill.hpp"
#include "sprof/unwind/stack_stitcher.hpp"
#include "sprof/unwind/unwinder.hpp"

namespace sprof::convert {

// Allocation records (`sprof record --heap`): how they were sampled and how to unwind them.
struct HeapOptions {
  uint64_t sample_interval_bytes = 0;  // 0: every allocation was recorded
  // Leading frames in this module (the interposer's capture stub) are dropped from stacks.
  std::string interposer_name = "libsprof-heap.so";
  unwind::Unwinder* unwinder = nullptr;  // the CFI unwinder; null: stacks of one frame
};

struct ConverterOptions {
  std::string event_name;            // the sampling event ("cpu-clock"), for the stats
  uint64_t origin_monotonic_ns = 0;  // CLOCK_MONOTONIC at the profile's time origin
  double origin_wall_ms = 0;         // wall clock (ms since epoch) at the same instant
  double interval_ms = 1;
  std::string product = "sprof";
  uint32_t root_pid = 0;
  bool period_is_cpu_ns = true;  // cpu-clock: a sample's period is the thread's CPU ns
  // PERF_RECORD_SWITCH is recorded: CPU deltas come from switch-in/out times (cpu_accounting.hpp),
  // the period being the fallback for threads whose start is unknown.
  bool switch_records = false;
  // The clock event samples kernel mode too, so a running thread's timer ticks every period
  // wherever it runs. Not so with exclude_kernel (perf_event_paranoid 2 for a user): the ticks
  // that land in the kernel are dropped, and a gap between ticks says nothing of a stall.
  bool ticks_in_kernel = true;
  // CPU-wide switch records come from a side-band event beside per-task ones (kSwitchSideBand):
  // they only say when a thread was picked. Otherwise (system-wide recordings) they are the
  // threads' switch records themselves.
  bool switch_side_band = false;
  unwind::Unwinder* unwinder = nullptr;  // null: user frames from the callchain
  // Up to this many command-line arguments follow each process's name (0: none; needs
  // proc.read_argv).
  int process_name_args = 0;
  // A "CPUs" process with one track per CPU (per_cpu_tracks.hpp), with or without a marker per
  // stretch a thread ran.
  bool per_cpu_threads = false;
  bool cswitch_markers = false;
  std::optional<profile::Library> kernel_lib;  // appended to every process's libs
  ProcAccess proc;                             // /proc of the recorded machine (host.hpp)
  std::optional<HeapOptions> heap;             // set when the records include allocations
  // Where the threads' full blocks of samples wait for the profile to be written, so memory
  // stays flat in long recordings (null: in memory). The caller opens it: convert makes no
  // system calls.
  std::shared_ptr<profile::SampleSpill> sample_spill;
};

class ProfileConverter {
 public:
  ProfileConverter(ConverterOptions options, ModuleCache& modules);

  void consume(const perf::Record& record);
  // Consumes every record of a source that ends by itself (a file, a list; not live rings).
  void consume_all(RecordSource& source);
  // Registers a process that already runs (attach): its threads and mappings from /proc.
  void seed_process(uint32_t pid, const std::vector<uint32_t>& tids);

  // Closes open threads and processes at `end_ns` and returns the profile.
  profile::Profile finish(uint64_t end_ns);
  // The flight recorder (flight_window.hpp; profile_converter_window.cpp). Drops from the
  // profile being built what lies wholly before `start_ns`, adding it to `evicted()`.
  void evict_before(uint64_t start_ns);
  const WindowTrim& evicted() const { return evicted_; }
  // The profile of [start_ns, end_ns] as `finish` would make it (libs, JIT libs, the marker
  // files' markers), without the threads and processes that ended before it empty
  // (drop_ended_before), from a copy: the converter goes on as if nothing happened. It lacks what
  // only the end of a recording settles: each thread's CPU since its last sample, off-CPU
  // samples not yet known to be, and the root's exit status. Not with `heap` or
  // `per_cpu_threads`, whose tables are completed by `finish` alone.
  struct Window {
    profile::Profile profile;
    WindowTrim dropped;  // everything dropped since the recording started
  };
  Window window(uint64_t start_ns, uint64_t end_ns) const;

  // The "[kernel.kallsyms]" lib appended to every process's libs at `finish` (it may be
  // computed while recording runs).
  void set_kernel_library(std::optional<profile::Library> lib) {
    options_.kernel_lib = std::move(lib);
  }
  // How the root process ended, when the caller knows (it launched it); call before `finish`.
  void set_root_exit_status(const ExitStatus& s) { lifecycle_.set_root_status(s); }
  RecordingStats& stats() { return stats_; }
  // Makes the records the converter keeps past `consume` own their stack bytes. A source whose
  // records borrow bytes it will reuse (live rings, StackCopy::kBorrow) calls this first.
  void own_kept_stacks();

 private:
  // The frames of a thread's previous stack (root first) and the stack index of each prefix:
  // consecutive samples mostly share their callers, whose frames and stacks then need no
  // hashing (intern_sample_stack).
  struct InternedStack {
    std::vector<std::pair<uint64_t, profile::Category>> frames;
    std::vector<uint32_t> stacks;
  };
  struct ThreadState {
    uint32_t pid = 0;
    size_t image = 0;   // index into profile_.processes
    size_t thread = 0;  // index into that process's threads
    OffCpuState off_cpu = {};
    InternedStack last_stack = {};
    unwind::StackStitcher stitcher = {};  // completes stacks deeper than the copied stack
  };
  struct ProcessState {
    size_t image = 0;
    ModuleMap modules;
    ProcessName name;
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
  // Shows the process's current name on its image and the image's threads.
  void rename_image(const ProcessState& p);
  // Up to process_name_args arguments of `argv` (the process's, read now when not given).
  void name_arguments(uint32_t pid, ProcessState& p,
                      const std::optional<std::vector<std::string>>& argv);
  ThreadState& thread(uint32_t pid, uint32_t tid, uint64_t time_ns);
  profile::Thread& profile_thread(const ThreadState& t);
  void add_mapping(ProcessState& p, const std::string& path, uint64_t start, uint64_t end,
                   uint64_t pgoff);
  void load_maps_from_proc(uint32_t pid, ProcessState& p);
  void learn_mapping_of(uint64_t user_ip, uint32_t pid, ProcessState& p);
  void add_marker_to_root(profile::Marker marker);
  // Fills `frames` leaf first: kernel frames, then user frames.
  void collect_frames(const perf::SampleRecord& s, ProcessState& p, ThreadState& ts);
  // Unwinds `s` and interns its stack in the thread's tables.
  std::optional<uint32_t> intern_sample_stack(ThreadState& ts, const perf::SampleRecord& s);

  // Allocation records (profile_converter_heap.cpp; the bookkeeping is NativeAllocations).
  void on_heap_alloc(const perf::HeapAllocRecord& r);
  void on_heap_free(const perf::HeapFreeRecord& r);
  void on_heap_attach(const perf::HeapAttachRecord& r);
  // Unwinds an allocation, or a free recorded with its stack, from the interposer's registers
  // and stack copy, without the interposer's own frames and the allocation (or deallocation)
  // wrappers above them, and interns it in `table` (the thread table its row goes into).
  // `wrappers`: allocator_frames_, or deallocator_frames_ for a free.
  // `stack` is a copy of the memory at captured.sp, or with `walked` the return addresses the
  // interposer found (kFlagWalkedStack). `owner` names the table: the allocating thread's.
  std::optional<uint32_t> intern_allocation_stack(AllocationOwner owner, uint32_t pid,
                                                  const heap::CapturedRegs& captured,
                                                  std::span<const uint8_t> stack, bool walked,
                                                  AllocatorFrames& wrappers);
  // What intern_allocation_stack does for a stack it does not remember.
  std::optional<uint32_t> unwind_allocation_stack(AllocationOwner owner, uint32_t pid,
                                                  const heap::CapturedRegs& captured,
                                                  std::span<const uint8_t> stack, bool walked,
                                                  AllocatorFrames& wrappers);
  // The first of `frames` (leaf first) that the program wrote: past the interposer's frames,
  // then past the `wrappers` (allocator_frames.hpp) that called it; never past the last frame.
  size_t first_allocating_frame(const ModuleMap& modules, const std::vector<FrameAddress>& frames,
                                AllocatorFrames& wrappers);
  // Whether the code at `lookup_address` is the interposer's (libsprof-heap.so).
  bool in_interposer(const ModuleMap& modules, uint64_t lookup_address) const;
  // Takes the interposer's frames out of a CPU sample's `frames_` (collect_frames). An on-CPU
  // sample whose user leaf was in the interposer loses the kernel frames above it too, and
  // counts as time the allocation hook took (HeapStats::hook_samples).
  void drop_interposer_frames(const ModuleMap& modules, bool on_cpu);
  // The process image of `pid` ends (exit or exec).
  void end_heap_image(uint32_t pid, uint64_t time_ns);

  // CPU accounting and off-CPU samples (profile_converter_activity.cpp).
  void note_running(const perf::SampleId& id);
  void on_switch(const perf::SwitchRecord& r);
  // A CPU-wide switch-out: when the next thread was picked, and (side band) when the outgoing
  // one left.
  void note_cpu_wide_switch_out(const perf::SwitchRecord& r);
  uint64_t switch_out_time(const ThreadState* ts, uint64_t record_ns) const;
  // Adds an on-CPU sample.
  void record_sample(ThreadState& ts, std::optional<uint32_t> stack, const perf::SampleRecord& s);
  // cpu_.take, with what it stalled or corrected added to the stats.
  CpuAccounting::Taken take_cpu(uint32_t tid, uint64_t time_ns,
                                std::optional<CpuAccounting::ClockTick> tick = std::nullopt,
                                uint32_t cpu = CpuAccounting::kUnknownCpu);
  // Keeps a context-switch sample until the switch record says whether the thread blocked.
  void keep_switch_sample(ThreadState& ts, const perf::SampleRecord& s);
  // Adds a sample; before a thread's first sample with CPU, a stackless zero-CPU sample at
  // `cpu_since_ns`, because the front end ignores threadCPUDelta[0]
  // (docs/firefox-profiler-format.md, "CPU deltas").
  void add_thread_sample(ThreadState& ts, std::optional<uint32_t> stack, uint64_t time_ns,
                         std::optional<uint64_t> cpu_ns, std::optional<uint64_t> cpu_since_ns);
  void add_off_cpu_samples(ThreadState& ts, uint32_t tid, uint64_t until_ns);
  // The thread ends at `time_ns`: one last sample carries the CPU used since its last sample.
  void close_thread_activity(ThreadState& ts, uint32_t tid, uint64_t time_ns);
  void close_all_activity(uint64_t end_ns);
  // The per-CPU tracks' view of a thread (only with per_cpu_threads).
  PerCpuTracks::Task cpu_task(const ThreadState& ts);
  // The thread whose record this is, if it is known.
  ThreadState* known_thread(uint32_t pid, uint32_t tid);

  ConverterOptions options_;
  ModuleCache& modules_;
  profile::Profile profile_;
  RecordingStats stats_;
  std::unordered_map<uint32_t, ProcessState> processes_;
  std::unordered_map<uint32_t, ThreadState> threads_;
  // Threads (by tid) whose pending switch sample may borrow its stack bytes (own_kept_stacks).
  std::vector<uint32_t> borrowed_pending_;
  std::vector<std::pair<uint64_t, profile::Category>> frames_;  // scratch, leaf first
  unwind::UnwindResult unwind_result_;
  std::vector<FrameAddress> walked_frames_;  // a walked allocation stack, reused
  // Walked allocation stacks already interned; cleared whenever a module map changes.
  WalkedStackCache walked_stacks_;
  CpuAccounting cpu_;
  // Markers and JIT symbols (profile_converter_markers.cpp).
  void mark_fork(const perf::ForkRecord& f);
  void mark_exec(const perf::CommRecord& c, const std::optional<std::vector<std::string>>& argv);
  void mark_exit(const perf::ExitRecord& e, const ThreadState& t);
  void add_recorded_markers(uint64_t end_ns);
  // The marker files' markers, into `window` (a copy of profile_, so ThreadState's indexes
  // hold); markers of unknown threads and processes are left out rather than creating them.
  void add_file_markers_to(profile::Profile& window) const;
  // What finish and window share: each image's libs (its modules, JIT code, the kernel), the CPU
  // delta flag and thread lifetimes that end no earlier than they start.
  void complete_libs_and_times(profile::Profile& profile) const;
  // Adds libs for the JIT code of `pid` to `process` and moves its frames in that code to the
  // JIT category.
  void add_jit_libraries(uint32_t pid, profile::Process& process) const;
  LifecycleMarkers lifecycle_;
  MarkerFiles marker_files_;
  JitLibraries jit_;
  std::vector<uint64_t> off_cpu_times_;    // scratch
  std::optional<NativeAllocations> heap_;  // with options_.heap
  AllocatorFrames allocator_frames_;       // used with options_.heap
  AllocatorFrames deallocator_frames_;     // for frees recorded with their stacks
  std::optional<PerCpuTracks> per_cpu_;    // --per-cpu-threads
  WindowTrim evicted_;                     // the flight recorder's evict_before
};

}  // namespace sprof::convert
