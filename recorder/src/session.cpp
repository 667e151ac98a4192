#include "sprof/recorder/session.hpp"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <future>
#include <thread>
#include <utility>

#include "attach/attach_targets.hpp"
#include "drain_loop.hpp"
#include "heap/heap_injector.hpp"
#include "heap/heap_ring_input.hpp"
#include "kernel_image_cache.hpp"
#include "perf/perf_event.hpp"
#include "process/launcher.hpp"
#include "process/marker_directory.hpp"
#include "process/proc_access.hpp"
#include "process/proc_maps.hpp"
#include "process/stop_child.hpp"
#include "reader_priority.hpp"
#include "sprof/convert/flight_window.hpp"
#include "sprof/convert/kernel_library.hpp"
#include "sprof/convert/module_cache.hpp"
#include "sprof/convert/profile_converter.hpp"
#include "sprof/convert/source_description.hpp"
#include "sprof/core/clock.hpp"
#include "sprof/core/log.hpp"
#include "sprof/elf/kernel_image.hpp"
#include "sprof/recorder/local_files.hpp"

namespace sprof::recorder {

namespace {

// How often the run loop wakes to check on the command and forward signals, at the latest.
constexpr int kPollIntervalMs = 50;
// With --heap: the allocation ring has no wakeup, and its 8 MiB fill in about 130 ms at 2,000
// samples a second with 32 KiB stacks (docs/heap.md), so it is read more often.
constexpr int kHeapPollIntervalMs = 10;

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The "[kernel.kallsyms]" lib every process gets (convert/kernel_library.hpp), from kallsyms.
std::optional<profile::Library> kernel_library() {
  KernelImageSources sources;
  sources.cache = default_kernel_image_cache_path();
  auto image = cached_kernel_image(sources);
  if (!image.has_value()) {
    log::info("no kernel lib: " + image.error().message);
    return std::nullopt;
  }
  return convert::kernel_library(*image);
}

// What every sampling event of a recording shares, whatever its target.
perf::EventConfig base_event_config(const RecordOptions& options) {
  perf::EventConfig config;
  config.event = options.event;
  config.frequency_hz = options.frequency_hz;
  config.user_regs_stack = options.unwind == UnwindMode::kDwarf;
  config.stack_user_bytes = options.stack_size;
  // Off-CPU stacks sample every context switch of the targets; system-wide that would be every
  // switch of the machine, so -a records CPU time only.
  config.off_cpu = options.off_cpu && !options.system_wide;
  config.runtime_counts = options.cpu_counts == CpuCounts::kOn ||
                          (options.cpu_counts == CpuCounts::kAuto && perf::runs_under_hypervisor());
  config.sample_cpu = options.sample_cpu;
  return config;
}

// --cpu-counts=on that could not be had is said, not silently dropped (auto stays quiet).
void note_missing_cpu_counts(const RecordOptions& options, const perf::PerfEvents& events) {
  if (options.cpu_counts != CpuCounts::kOn || events.runtime_counts()) return;
  log::warn(options.system_wide
                ? "--cpu-counts: not with -a (the scheduler's counts are per thread); CPU time "
                  "comes from switch records"
                : "--cpu-counts: the scheduler's CPU counts are not available here (they need "
                  "root, tracefs and Linux 6.12+; -v says why); CPU time comes from switch "
                  "records");
}

int poll_interval_ms(const RecordOptions& options) {
  return options.heap != HeapMode::kOff ? kHeapPollIntervalMs : kPollIntervalMs;
}

bool is_attach_mode(const RecordOptions& options) {
  return !options.attach_pids.empty() || options.system_wide;
}

// How long a command gets to exit on SIGTERM before --kill-on-stop sends SIGKILL.
constexpr std::chrono::milliseconds kTerminateGrace{2000};

// The reading side's counters, added up over every set of events of the recording.
void add_reader_stats(convert::RecordingStats& stats, const perf::PerfEvents& events) {
  const auto reader = events.stats();
  stats.malformed_records += reader.malformed_records + reader.ring_corruptions;
  stats.unknown_records += reader.skipped_records;
}

}  // namespace

struct Session::Impl {
  explicit Impl(const RecordOptions& o) : options(o), files(o.symbol_dirs) {}

  RecordOptions options;
  std::optional<LaunchedChild> child;      // launch mode: the current iteration's command
  std::optional<perf::PerfEvents> events;  // the current iteration's, or the attached ones
  LocalFiles files;                        // the converter's host: this machine
  convert::ModuleCache modules{files};
  std::unique_ptr<sprof::unwind::Unwinder> unwinder;  // for the converter (make_unwinder)
  uint64_t origin_ns = 0;
  double origin_wall_ms = 0;
  std::vector<AttachedProcess> attached;           // -p
  std::shared_ptr<const SystemSnapshot> snapshot;  // -a
  std::optional<MarkerDirectory> marker_dir;       // SPROF_MARKER_DIR of launched commands
  std::unique_ptr<HeapRingInput> heap;             // --heap: the allocation ring
  // sprof's nice value before raise_reader_priority: later iterations' commands are forked by
  // the raised reader thread and are put back to it (see spawn_iteration).
  int command_nice = 0;
  // The converter of the profile being built; --rotate replaces it every interval.
  std::unique_ptr<convert::ProfileConverter> converter;
  // The kernel lib, computed beside the recording (see run); kept for every interval's profile.
  std::future<std::optional<profile::Library>> kernel_lib_pending;
  std::optional<profile::Library> kernel_lib;
  uint64_t current_start_ns = 0;  // when the profile being built starts (CLOCK_MONOTONIC)
  uint64_t next_cut_ns = 0;       // --rotate: when the current interval ends
  // --flight-recorder: the window's length (0: off), when the converter next drops what aged
  // out of it, and how many window requests were answered.
  uint64_t flight_window_ns = 0;
  uint64_t next_eviction_ns = 0;
  int windows_answered = 0;
  // When control.on_preview is next called, and the interval after that one.
  uint64_t next_preview_ns = 0;
  uint64_t preview_spacing_ns = 1'000'000'000;

  void set_origin() {
    origin_ns = clock_ns(CLOCK_MONOTONIC);
    origin_wall_ms = static_cast<double>(clock_ns(CLOCK_REALTIME)) / 1e6;
  }
  // Spawns the command stopped before exec and opens its events (enabled at exec).
  Result<void> spawn_iteration();
  // --heap -p: loads the interposer into every attached process (heap_injector.hpp).
  Result<void> attach_heap();
  // The converter keeps some samples past consume (OffCpuState::pending); their stack bytes
  // borrow the rings', so it copies them before the rings' space is reused.
  void lend_ring_bytes() {
    events->set_before_release([this] { converter->own_kept_stacks(); });
  }
  // How this recording's records are made, for the converter's options and the profile's meta;
  // the profile's time origin is `start_ns` (the recording's origin unless it is an interval).
  convert::SourceDescription describe(uint64_t start_ns) const;
  // A converter for the profile of what is recorded from `start_ns` on, told of the targets that
  // run now (the top-level process first).
  std::unique_ptr<convert::ProfileConverter> new_converter(uint64_t start_ns);
  // Ends `c`'s profile at `end_ns` and describes it in its meta.
  void finish_profile(convert::ProfileConverter& c, uint64_t end_ns, Recording& out);
  // Gives `c` the kernel lib once its computation is done (see run).
  void adopt_kernel_lib(convert::ProfileConverter& c);
  // --flight-recorder: every eighth of the window, drops from the converter what aged out of
  // it; when control.window_requests grew, hands the window's profile to control.on_interval.
  void keep_flight_window(const RunControl& control);
  // The profile of the flight window that ends at `now`, from a copy of the converter's.
  Recording cut_flight_window(uint64_t now);
  // Hands control.on_preview the profile (flight window) so far when one is due.
  void preview_if_due(const RunControl& control);
  // The next preview comes twice as long after `now` as the last came after the one before.
  void schedule_next_preview(uint64_t now);
  // Where the flight window that ends at `end_ns` starts (not before the recording).
  uint64_t flight_start_ns(uint64_t end_ns) const {
    return end_ns - std::min(flight_window_ns, end_ns - std::min(end_ns, origin_ns));
  }
  // Adds the flight window's range and what was dropped before it to `out`'s meta.
  void describe_flight(Recording& out, uint64_t end_ns, const convert::WindowTrim& dropped) const;
  double profile_ms(uint64_t ns) const {
    return ns <= origin_ns ? 0 : static_cast<double>(ns - origin_ns) / 1e6;
  }
  // --rotate: when the interval is over, hands its profile to control.on_interval and goes on
  // into a fresh converter. Processes and threads are learnt again from /proc; the modules'
  // files stay parsed in `modules`, shared by every converter.
  void cut_interval_if_due(const RunControl& control);
  // /proc of this machine; system-wide, with the snapshot for processes that are gone.
  convert::ProcAccess proc_access() const;
  // The profile's name: --profile-name, else what was recorded.
  std::string profile_name() const;
  // The drain loop's limits for `control`; `stop_at` stop requests end the recording.
  DrainLimits drain_limits(const RunControl& control, int stop_at);
  Result<Recording> run_attached(const sprof::perf::RecordSink& sink, const RunControl& control);
  Result<Recording> run_launched(const sprof::perf::RecordSink& sink, const RunControl& control);
  uint64_t deadline_ns() const {
    return options.duration_s > 0 ? origin_ns + static_cast<uint64_t>(options.duration_s * 1e9) : 0;
  }
};

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

int Session::child_pid() const {
  if (impl_->child) return impl_->child->pid();
  return impl_->attached.empty() ? -1 : impl_->attached.front().pid;
}

Result<void> Session::Impl::spawn_iteration() {
  events.reset();
  // The user's NAME=VALUE words come last, so they win over sprof's own settings.
  std::vector<std::string> environment = marker_environment(marker_dir);
  if (heap) {
    environment.insert(environment.end(), heap->child_environment().begin(),
                       heap->child_environment().end());
  }
  environment.insert(environment.end(), options.environment.begin(), options.environment.end());
  SPROF_TRY(LaunchedChild spawned, Launcher::spawn(options.command, environment));
  child.emplace(std::move(spawned));
  // The child waits before exec, so this applies from its first instruction on. Raising a nice
  // value is always allowed for one's own processes.
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(child->pid()), command_nice);
  perf::EventConfig config = base_event_config(options);
  config.pid = child->pid();
  config.inherit = true;
  config.enable_on_exec = true;
  SPROF_TRY(perf::PerfEvents opened, perf::PerfEvents::open(config));
  events.emplace(std::move(opened));
  if (heap) events->add_round_input(*heap);
  return ok();
}

Result<void> Session::Impl::attach_heap() {
  SPROF_TRY(heap, HeapRingInput::create(
                      heap_ring_options(options.heap, options.heap_interval_bytes,
                                        options.heap_free_stacks, options.heap_copy_stacks),
                      "/proc/self/exe"));
  events->add_round_input(*heap);
  for (const AttachedProcess& target : attached) {
    HeapInjection request;
    request.pid = target.pid;
    request.library_path = heap->interposer_path();
    request.ring_path = heap->ring_path();
    SPROF_TRY_VOID(inject_heap_interposer(request));
  }
  return ok();
}

Result<std::unique_ptr<Session>> Session::start(const RecordOptions& options) {
  SPROF_TRY_VOID(check_record_options(options));
  return is_attach_mode(options) ? attach(options) : launch(options);
}

Result<std::unique_ptr<Session>> Session::launch(const RecordOptions& options) {
  if (options.command.empty()) return fail(Errc::kInvalidArgument, "no command to record");
  auto impl = std::make_unique<Impl>(options);
  errno = 0;
  const int nice_now = getpriority(PRIO_PROCESS, 0);  // -1 is a valid value; errno tells
  if (errno == 0) impl->command_nice = nice_now;
  if (options.heap != HeapMode::kOff) {
    SPROF_TRY(impl->heap, HeapRingInput::create(
                              heap_ring_options(options.heap, options.heap_interval_bytes,
                                                options.heap_free_stacks, options.heap_copy_stacks),
                              "/proc/self/exe"));
  }
  SPROF_TRY_VOID(impl->spawn_iteration());
  note_missing_cpu_counts(options, *impl->events);
  raise_reader_priority();
  impl->set_origin();
  SPROF_TRY_VOID(impl->child->release());
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

Result<std::unique_ptr<Session>> Session::attach(const RecordOptions& options) {
  if (!is_attach_mode(options)) return fail(Errc::kInvalidArgument, "nothing to attach to");
  auto impl = std::make_unique<Impl>(options);
  raise_reader_priority();
  perf::EventConfig config = base_event_config(options);
  if (options.system_wide) {
    // Read before sampling starts; processes that exit during the recording keep their names.
    impl->snapshot = std::make_shared<const SystemSnapshot>(snapshot_system());
    // pid -1 with a cpu: everything that runs on that CPU (perf_event_open(2)), hence one event
    // per CPU and no inheritance to follow; context switches come as SWITCH_CPU_WIDE.
    config.pid = -1;
    config.inherit = false;
    config.enable_on_exec = false;
    impl->set_origin();
    auto opened = perf::PerfEvents::open(config);
    if (!opened.has_value()) {
      Error e = std::move(opened).error();
      if (e.code == Errc::kPermissionDenied) {
        e.message += "; recording the whole system (-a) needs root or perf_event_paranoid <= 0";
      }
      return unexpected(std::move(e));
    }
    impl->events.emplace(std::move(*opened));
  } else {
    SPROF_TRY(impl->attached, list_attach_targets(options.attach_pids));
    impl->set_origin();
    SPROF_TRY(perf::PerfEvents opened, open_attached_events(config, impl->attached));
    impl->events.emplace(std::move(opened));
    if (options.heap != HeapMode::kOff) SPROF_TRY_VOID(impl->attach_heap());
  }
  note_missing_cpu_counts(options, *impl->events);
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

convert::SourceDescription Session::Impl::describe(uint64_t start_ns) const {
  convert::SourceDescription d;
  d.events = events->event_specs();
  d.origin_monotonic_ns = start_ns;
  d.origin_wall_ms = origin_wall_ms + static_cast<double>(start_ns - origin_ns) / 1e6;
  d.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
  if (heap) d.heap = heap->description();
  utsname uts{};
  if (uname(&uts) == 0) d.oscpu = std::string("Linux ") + uts.machine;
  if (options.system_wide) {
    // The profile's top level must be one process: pid 0, where the idle time of every CPU
    // goes, exists on every system and belongs to no user process (see with_snapshot_fallback).
    d.root_pid = 0;
  } else if (!attached.empty()) {
    d.root_pid = static_cast<uint32_t>(attached.front().pid);
  } else {
    d.root_pid = static_cast<uint32_t>(child->pid());
  }
  d.product = profile_name();
  return d;
}

std::string Session::Impl::profile_name() const {
  if (!options.profile_name.empty()) return options.profile_name;
  if (options.system_wide) return "System";
  if (!options.command.empty()) return basename_of(options.command.front());
  if (options.attach_pids.size() > 1) {
    std::string name = "PIDs";
    for (size_t i = 0; i < options.attach_pids.size(); ++i) {
      name += (i == 0 ? " " : ", ") + std::to_string(options.attach_pids[i]);
    }
    return name;
  }
  const int pid = options.attach_pids.front();
  const std::string numbered = "PID " + std::to_string(pid);
  auto comm = read_comm(pid, pid);
  return comm.has_value() ? *comm + " (" + numbered + ")" : numbered;
}

DrainLimits Session::Impl::drain_limits(const RunControl& control, int stop_at) {
  DrainLimits limits;
  limits.stop_requests = control.stop_requests;
  limits.stop_at = stop_at;
  limits.deadline_ns = deadline_ns();
  limits.max_poll_interval_ms = poll_interval_ms(options);
  const auto interval_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(control.progress_interval).count());
  limits.after_round = [this, &control, interval_ns, next_ns = origin_ns + interval_ns]() mutable {
    cut_interval_if_due(control);
    keep_flight_window(control);
    preview_if_due(control);
    if (!control.on_progress) return;
    const uint64_t now = clock_ns(CLOCK_MONOTONIC);
    if (now < next_ns) return;
    next_ns = now + interval_ns;
    // With --rotate: the current interval's counts.
    const convert::RecordingStats& stats = converter->stats();
    control.on_progress(Progress{static_cast<double>(now - origin_ns) / 1e9, stats.samples,
                                 stats.lost_records + stats.lost_samples, stats.processes,
                                 stats.threads});
  };
  return limits;
}

convert::ProcAccess Session::Impl::proc_access() const {
  if (options.system_wide) return with_snapshot_fallback(live_proc_access(), snapshot);
  return live_proc_access();
}

std::unique_ptr<convert::ProfileConverter> Session::Impl::new_converter(uint64_t start_ns) {
  const convert::SourceDescription source = describe(start_ns);
  if (!unwinder) unwinder = convert::make_unwinder(source, files);
  convert::ConverterOptions converter_options =
      convert::converter_options(source, proc_access(), unwinder.get());
  converter_options.process_name_args = options.process_name_args;
  converter_options.per_cpu_threads = options.per_cpu_threads;
  converter_options.cswitch_markers = options.cswitch_markers;
  // One spill file per profile: each interval's goes away with its profile once written. Not
  // for a flight recording: its samples are bounded by the window, and a spill file only grows.
  if (flight_window_ns == 0)
    converter_options.sample_spill = profile::SampleSpill::open_temporary();
  auto c = std::make_unique<convert::ProfileConverter>(std::move(converter_options), modules);
  if (options.system_wide) {
    c->seed_process(0, {0});  // first, so it is the top-level process
  }
  for (const auto& target : attached) {
    std::vector<uint32_t> tids(target.tids.begin(), target.tids.end());
    c->seed_process(static_cast<uint32_t>(target.pid), tids);
  }
  // A launched command is learnt from its exec at the start; an interval starts with it running.
  if (child && start_ns != origin_ns) {
    const auto pid = static_cast<uint32_t>(child->pid());
    c->seed_process(pid, {pid});
  }
  return c;
}

void Session::Impl::adopt_kernel_lib(convert::ProfileConverter& c) {
  if (kernel_lib_pending.valid() &&
      kernel_lib_pending.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    kernel_lib = kernel_lib_pending.get();
  }
  c.set_kernel_library(kernel_lib);
}

void Session::Impl::finish_profile(convert::ProfileConverter& c, uint64_t end_ns, Recording& out) {
  adopt_kernel_lib(c);
  const uint64_t start_ns = out.interval_start_monotonic_ns;
  out.profile = c.finish(end_ns);
  out.stats = c.stats();  // after finish(), which counts unreadable modules
  convert::describe_recording(out.profile.meta, describe(start_ns), out.stats);
}

void Session::Impl::cut_interval_if_due(const RunControl& control) {
  if (control.rotate_interval.count() <= 0 || !control.on_interval) return;
  const auto interval_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(control.rotate_interval).count());
  if (next_cut_ns == 0) next_cut_ns = origin_ns + interval_ns;
  const uint64_t now = clock_ns(CLOCK_MONOTONIC);
  if (now < next_cut_ns) return;
  // Records of the merger's unflushed round that are older than `now` go to the next interval
  // (clamped to its start): a few ms at most, and none is lost.
  Recording interval;
  interval.interval_start_monotonic_ns = current_start_ns;
  interval.child_exit_monotonic_ns = now;
  interval.duration_s = static_cast<double>(now - current_start_ns) / 1e9;
  std::unique_ptr<convert::ProfileConverter> ended = std::exchange(converter, new_converter(now));
  current_start_ns = now;
  // On the schedule, so that intervals do not drift by a round each; a late cut (a long round)
  // shortens the next interval rather than shifting every later one.
  next_cut_ns += interval_ns;
  if (next_cut_ns <= now) next_cut_ns = now + interval_ns;
  finish_profile(*ended, now, interval);
  ended.reset();
  control.on_interval(std::move(interval));
  // The rings are not read meanwhile (each holds ~0.25 s of samples, perf_event.hpp's
  // ring_pages): -v says for how long.
  log::info("interval cut: the recording thread paused " +
            std::to_string((clock_ns(CLOCK_MONOTONIC) - now) / 1000) + " us");
}

void Session::Impl::keep_flight_window(const RunControl& control) {
  if (flight_window_ns == 0) return;
  const uint64_t now = clock_ns(CLOCK_MONOTONIC);
  if (now >= next_eviction_ns) {
    // Eviction copies the kept samples of each thread that lost some: an eighth of a window
    // between evictions keeps that to ~8 copies of each sample in all.
    converter->evict_before(flight_start_ns(now));
    next_eviction_ns = now + std::max<uint64_t>(flight_window_ns / 8, 1'000'000);
  }
  if (control.window_requests == nullptr || !control.on_interval) return;
  const int requests = control.window_requests->load();
  if (requests == windows_answered) return;
  windows_answered = requests;  // requests that came together get one window
  control.on_interval(cut_flight_window(now));
  // The window's write reads the symbols a preview would: the next preview can wait.
  schedule_next_preview(now);
  log::info("flight window cut: the recording thread paused " +
            std::to_string((clock_ns(CLOCK_MONOTONIC) - now) / 1000) + " us");
}

void Session::Impl::preview_if_due(const RunControl& control) {
  if (!control.on_preview || control.rotate_interval.count() > 0 ||
      options.heap != HeapMode::kOff || options.per_cpu_threads) {
    return;
  }
  const uint64_t now = clock_ns(CLOCK_MONOTONIC);
  if (next_preview_ns == 0) next_preview_ns = origin_ns + preview_spacing_ns;
  if (now < next_preview_ns) return;
  schedule_next_preview(now);
  Recording preview;
  if (flight_window_ns > 0) {
    preview = cut_flight_window(now);
  } else {
    adopt_kernel_lib(*converter);
    preview.profile = std::move(converter->window(origin_ns, now).profile);
    preview.interval_start_monotonic_ns = origin_ns;
  }
  control.on_preview(std::move(preview));
  log::info("preview: the recording thread paused " +
            std::to_string((clock_ns(CLOCK_MONOTONIC) - now) / 1000) + " us");
}

void Session::Impl::schedule_next_preview(uint64_t now) {
  constexpr uint64_t kSecondNs = 1'000'000'000;
  if (flight_window_ns > 0) {
    // The window slides: a preview at least once a window keeps what it needs read.
    preview_spacing_ns = std::min(2 * preview_spacing_ns, std::max(flight_window_ns, kSecondNs));
    next_preview_ns = now + preview_spacing_ns;
    return;
  }
  // Another recording's profile only grows, and with it the copy each preview takes while the
  // recording thread waits; code that first runs late is rarer. The last preview comes about
  // two minutes in (1, 3, 7, ..., 127 s); what runs first after it is read at the save.
  constexpr uint64_t kLongestSpacingNs = 64 * kSecondNs;
  if (preview_spacing_ns >= kLongestSpacingNs) {
    next_preview_ns = UINT64_MAX;
    return;
  }
  preview_spacing_ns *= 2;
  next_preview_ns = now + preview_spacing_ns;
}

Recording Session::Impl::cut_flight_window(uint64_t now) {
  adopt_kernel_lib(*converter);
  const uint64_t start_ns = flight_start_ns(now);
  convert::ProfileConverter::Window window = converter->window(start_ns, now);
  Recording out;
  out.profile = std::move(window.profile);
  out.stats = converter->stats();
  out.interval_start_monotonic_ns = origin_ns;
  out.child_exit_monotonic_ns = now;
  out.duration_s = static_cast<double>(now - start_ns) / 1e9;
  convert::describe_recording(out.profile.meta, describe(origin_ns), out.stats);
  describe_flight(out, now, window.dropped);
  return out;
}

void Session::Impl::describe_flight(Recording& out, uint64_t end_ns,
                                    const convert::WindowTrim& dropped) const {
  convert::describe_window(out.profile.meta, static_cast<double>(flight_window_ns) / 1e6,
                           profile_ms(flight_start_ns(end_ns)), profile_ms(end_ns), dropped);
}

Result<Recording> Session::Impl::run_attached(const sprof::perf::RecordSink& sink,
                                              const RunControl& control) {
  // Nothing of ours gets the user's signal: the first request stops the recording.
  const DrainLimits limits = drain_limits(control, 1);
  lend_ring_bytes();
  // Without a TargetsEnded check the events' hang-up ends the recording: every attached thread
  // and all it created exited. System-wide events never hang up.
  SPROF_TRY(StopCause cause, drain_until(*events, sink, limits, {}));
  const uint64_t end_ns = clock_ns(CLOCK_MONOTONIC);
  (void)events->disable();
  events->flush_all(sink);
  add_reader_stats(converter->stats(), *events);

  Recording recording;
  recording.stop_cause = cause;
  recording.status = convert::ExitStatus{};  // nothing of ours to report: sprof exits 0
  recording.child_exit_monotonic_ns = end_ns;
  recording.duration_s = static_cast<double>(end_ns - origin_ns) / 1e9;
  return recording;
}

Result<Recording> Session::Impl::run_launched(const sprof::perf::RecordSink& sink,
                                              const RunControl& control) {
  // The command gets the user's first request (the terminal sends it the signal too, and
  // pending_signal forwards one sent to sprof alone); a second one means it ignores it.
  DrainLimits limits = drain_limits(control, 2);
  Recording recording;
  recording.iterations = 0;
  uint64_t end_ns = 0;
  for (;;) {
    std::optional<convert::ExitStatus> status;
    const TargetsEnded child_ended = [&]() -> Result<bool> {
      if (control.pending_signal != nullptr) {
        if (const int sig = control.pending_signal->exchange(0); sig != 0) {
          (void)child->send_signal(sig);
        }
      }
      // Reaping runs the kernel's /proc cleanup for the command: not at real-time priority
      // (reader_priority.hpp). The check before it does not reap.
      SPROF_TRY(const bool exited, child->has_exited());
      if (!exited) return false;
      const OrdinaryScheduling ordinary;
      SPROF_TRY(status, child->try_wait());
      return status.has_value();
    };
    limits.exit_fd = child->exit_fd();
    lend_ring_bytes();  // each iteration has events of its own
    SPROF_TRY(StopCause cause, drain_until(*events, sink, limits, child_ended));
    end_ns = clock_ns(CLOCK_MONOTONIC);
    // The command is gone (or -d is over): stop sampling what is left and drain the buffers.
    (void)events->disable();
    if (heap) heap->set_final(cause == StopCause::kTargetsEnded);
    events->flush_all(sink);
    if (heap) heap->set_final(false);
    add_reader_stats(converter->stats(), *events);
    ++recording.iterations;
    recording.stop_cause = cause;

    if (cause == StopCause::kDuration || cause == StopCause::kStopRequested) {
      recording.status = convert::ExitStatus{};  // stopped by request, not by the command: exit 0
      if (options.kill_on_stop || cause == StopCause::kStopRequested) {
        recording.terminated_pid = child->pid();
        const OrdinaryScheduling ordinary;  // it ends in a reap
        SPROF_TRY(recording.terminated_status, terminate_child(*child, kTerminateGrace));
      } else {
        recording.left_running.push_back(child->pid());  // released: never killed nor awaited
      }
      break;
    }
    recording.status = *status;
    const bool failed = status->shell_code() != 0;
    const bool stop = control.stop_requests != nullptr && control.stop_requests->load() > 0;
    if (failed || stop || recording.iterations >= options.iteration_count) break;
    SPROF_TRY_VOID(spawn_iteration());
    SPROF_TRY_VOID(child->release());
  }
  recording.child_exit_monotonic_ns = end_ns;
  recording.duration_s = static_cast<double>(end_ns - origin_ns) / 1e9;
  return recording;
}

Result<Recording> Session::run(const RunControl& control) {
  Impl& s = *impl_;
  s.current_start_ns = s.origin_ns;
  s.flight_window_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(control.flight_window).count());
  s.converter = s.new_converter(s.origin_ns);
  // The converter may be replaced between rounds (--rotate): the sink looks it up each time.
  const auto sink = [&s](sprof::perf::Record&& r) { s.converter->consume(r); };

  // Describing the kernel lib means reading all of /proc/kallsyms (~30-40 ms of kernel time
  // here) in the first recording of a boot (kernel_image_cache.hpp); do it beside the recording
  // instead of delaying the first ring read by that much.
  // Without CPU samples (--no-cpu) there are no kernel frames, and reading kallsyms would only
  // take CPU from the program being recorded.
  if (!s.events->kernel_excluded() && s.options.sample_cpu) {
    s.kernel_lib_pending = std::async(std::launch::async, kernel_library);
  }

  const uint64_t reader_cpu_start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  auto recorded =
      is_attach_mode(s.options) ? s.run_attached(sink, control) : s.run_launched(sink, control);
  lower_reader_priority();
  if (!recorded.has_value()) return recorded;
  Recording& recording = *recorded;
  convert::ProfileConverter& converter = *s.converter;
  converter.stats().reader_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - reader_cpu_start;
  if (s.heap) s.heap->add_stats(converter.stats().heap);
  if (!is_attach_mode(s.options) && recording.iterations == 1 &&
      recording.stop_cause == StopCause::kTargetsEnded) {
    // The root process's exit marker carries the status only sprof's waitpid knows.
    converter.set_root_exit_status(recording.status);
  }
  if (s.kernel_lib_pending.valid()) s.kernel_lib = s.kernel_lib_pending.get();
  recording.interval_start_monotonic_ns = s.current_start_ns;
  s.finish_profile(converter, recording.child_exit_monotonic_ns, recording);
  if (s.flight_window_ns > 0) {
    // The last window: what the recording kept, less what aged out since the last eviction.
    const uint64_t end_ns = recording.child_exit_monotonic_ns;
    convert::WindowTrim dropped = converter.evicted();
    const double start_ms = s.profile_ms(s.flight_start_ns(end_ns));
    dropped += convert::trim_before(recording.profile, start_ms);
    convert::drop_ended_before(recording.profile, start_ms);
    s.describe_flight(recording, end_ns, dropped);
  }
  return recorded;
}

}  // namespace sprof::recorder
