#include "perf/perf_event.hpp"

#include <poll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <ctime>
#include <fstream>
#include <optional>
#include <string>

#include "perf/cpu_list.hpp"
#include "sprof/arch/x86_64.hpp"
#include "sprof/core/log.hpp"
#include "sprof/perf/event_attr.hpp"

namespace sprof::recorder::perf {

std::optional<long> read_kernel_number(const char* path) {
  std::ifstream in(path);
  long value = 0;
  if (!(in >> value)) return std::nullopt;
  return value;
}

namespace {

constexpr size_t kMinRingPages = 128;  // 512 KiB with 4 KiB pages
// 64 MiB: room for ~0.1 s of 10 kHz samples with 32 KiB stack copies, so a reader that is
// briefly not scheduled (the target keeps every CPU busy) loses nothing. root is exempt from
// perf_event_mlock_kb; others fall back to smaller rings (see the retry below).
constexpr size_t kMaxRingPages = 16384;
constexpr size_t kMinRetryPages = 8;  // below this a ring is too small to be useful
// Default of /proc/sys/kernel/perf_event_max_stack; attr.sample_max_stack may not exceed it.
constexpr uint16_t kDefaultMaxStack = 127;
// Kernel limit on attr.sample_stack_user (perf_copy_attr: below USHRT_MAX, u64-aligned).
constexpr uint32_t kMaxStackUserBytes = 65528;

std::string sysctl_note(const char* name, const char* path) {
  const auto v = read_kernel_number(path);
  return std::string(name) + "=" + (v ? std::to_string(*v) : std::string("unknown"));
}

size_t page_size() { return static_cast<size_t>(::sysconf(_SC_PAGESIZE)); }

// The kernel (perf_mmap) charges a ring's pages to the user's perf_event_mlock_kb allowance, which
// is per CPU, and what exceeds it to RLIMIT_MEMLOCK; EPERM means both are spent (root and
// CAP_IPC_LOCK are exempt). The error says which limits and how to raise them: a bare "Operation
// not permitted" sends users to perf_event_paranoid instead.
std::string locked_memory_note() {
  rlimit memlock{};
  std::string limit = "unknown";
  if (::getrlimit(RLIMIT_MEMLOCK, &memlock) == 0) {
    limit = memlock.rlim_cur == RLIM_INFINITY ? std::string("unlimited")
                                              : std::to_string(memlock.rlim_cur / 1024) + " KiB";
  }
  return "the perf ring buffers are locked memory, beyond what this user may lock: " +
         sysctl_note("perf_event_mlock_kb", "/proc/sys/kernel/perf_event_mlock_kb") +
         " KiB per CPU, then RLIMIT_MEMLOCK (ulimit -l) " + limit +
         "; raise `ulimit -l`, or kernel.perf_event_mlock_kb with sysctl, or record with a lower "
         "-F or --stack-size for smaller rings";
}

// ~0.25 s of data per CPU ring: a sample costs ~1 KiB (header, callchain) plus its stack copy.
size_t auto_ring_pages(const EventConfig& c) {
  const size_t per_sample = 1024 + (c.user_regs_stack ? c.stack_user_bytes + 256 : 0);
  const size_t bytes = per_sample * static_cast<size_t>(std::max(c.frequency_hz, 1)) / 4;
  const size_t pages = std::bit_floor(std::max<size_t>(bytes / page_size(), 1));
  return std::clamp(pages, kMinRingPages, kMaxRingPages);
}

Result<void> validate(const EventConfig& c) {
  if (c.frequency_hz <= 0) {
    return fail(Errc::kInvalidArgument,
                "sampling frequency must be positive, got " + std::to_string(c.frequency_hz));
  }
  if (c.user_regs_stack && (c.stack_user_bytes == 0 || c.stack_user_bytes % 8 != 0 ||
                            c.stack_user_bytes > kMaxStackUserBytes)) {
    return fail(Errc::kInvalidArgument, "stack copy size must be a multiple of 8 between 8 and " +
                                            std::to_string(kMaxStackUserBytes) + ", got " +
                                            std::to_string(c.stack_user_bytes));
  }
  if (c.ring_pages != 0 && !std::has_single_bit(c.ring_pages)) {
    return fail(Errc::kInvalidArgument,
                "ring_pages must be a power of two, got " + std::to_string(c.ring_pages));
  }
  return ok();
}

Result<UniqueFd> open_event(perf_event_attr& attr, pid_t pid, uint32_t cpu) {
  const std::string event = sprof::perf::event_name(attr);
  const long fd =
      ::syscall(SYS_perf_event_open, &attr, pid, static_cast<int>(cpu), -1, PERF_FLAG_FD_CLOEXEC);
  if (fd >= 0) return UniqueFd(static_cast<int>(fd));
  const int err = errno;
  Error e = Error::from_errno("perf_event_open(event=" + event + ", pid=" + std::to_string(pid) +
                                  ", cpu=" + std::to_string(cpu) +
                                  ", freq=" + std::to_string(attr.sample_freq) + ")",
                              err);
  if (err == EACCES || err == EPERM) {
    e.code = Errc::kPermissionDenied;
    e.message +=
        " (" + sysctl_note("perf_event_paranoid", "/proc/sys/kernel/perf_event_paranoid") + ")";
  } else if (err == EINVAL) {
    e.message +=
        " (" +
        sysctl_note("perf_event_max_sample_rate", "/proc/sys/kernel/perf_event_max_sample_rate") +
        ")";
  } else if (err == ESRCH) {
    e.message += " (no such process)";
  }
  return unexpected(std::move(e));
}

struct TypeConfig {
  uint32_t type;
  uint64_t config;
};

TypeConfig type_config(EventKind kind) {
  switch (kind) {
    case EventKind::kCycles: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES};
    case EventKind::kInstructions: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS};
    case EventKind::kCacheMisses: return {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES};
    case EventKind::kCpuClock: return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK};
    case EventKind::kTaskClock: return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK};
    case EventKind::kPageFaults: return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS};
    case EventKind::kContextSwitches: return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES};
    // Counts nothing and never samples; it exists for its side-band records (what perf record
    // uses for tracking, too).
    case EventKind::kSideBandOnly: return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY};
  }
  return {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK};
}

std::optional<EventKind> kind_of(SamplingEvent event) {
  switch (event) {
    case SamplingEvent::kAuto: return std::nullopt;
    case SamplingEvent::kCpuClock: return EventKind::kCpuClock;
    case SamplingEvent::kTaskClock: return EventKind::kTaskClock;
    case SamplingEvent::kCycles: return EventKind::kCycles;
    case SamplingEvent::kInstructions: return EventKind::kInstructions;
    case SamplingEvent::kCacheMisses: return EventKind::kCacheMisses;
    case SamplingEvent::kPageFaults: return EventKind::kPageFaults;
    case SamplingEvent::kContextSwitches: return EventKind::kContextSwitches;
  }
  return std::nullopt;
}

// errno values with which perf_event_open says the event does not exist here (no PMU in a VM or
// container, or this CPU lacks the counter), as opposed to refusing it.
bool event_missing(int err) { return err == ENOENT || err == EOPNOTSUPP || err == ENODEV; }

// The error for an event the user named that this machine lacks: what it has instead.
Error unavailable_event(SamplingEvent event, const Error& cause) {
  std::string available;
  for (const auto& name : available_event_names()) {
    available += (available.empty() ? "" : ", ") + name;
  }
  return Error{Errc::kUnsupported,
               "the event '" + sampling_event_name(event) + "' is not available on this machine (" +
                   cause.message +
                   "); available here: " + (available.empty() ? std::string("none") : available),
               cause.sys_errno};
}

}  // namespace

Result<UniqueFd> open_into_ring(perf_event_attr& attr, pid_t tid, uint32_t cpu, int ring_fd) {
  SPROF_TRY(UniqueFd fd, open_event(attr, tid, cpu));
  if (::ioctl(fd.get(), PERF_EVENT_IOC_SET_OUTPUT, ring_fd) != 0) {
    return unexpected(
        Error::from_errno("ioctl(PERF_EVENT_IOC_SET_OUTPUT, tid=" + std::to_string(tid) +
                          ", cpu=" + std::to_string(cpu) + ")"));
  }
  return fd;
}

Result<MappedRingBuffer> map_ring(int fd, size_t pages) {
  for (;;) {
    auto ring = MappedRingBuffer::map(fd, pages);
    if (ring || pages <= kMinRetryPages ||
        (ring.error().sys_errno != EPERM && ring.error().sys_errno != ENOMEM)) {
      if (!ring && ring.error().sys_errno == EPERM) {
        Error e = ring.error();
        e.message += " (" + locked_memory_note() + ")";
        return unexpected(std::move(e));
      }
      return ring;
    }
    pages /= 2;
    log::info("perf ring buffer: retrying with " + std::to_string(pages) + " pages");
  }
}

std::vector<EventKind> event_kinds_to_try(SamplingEvent event) {
  if (const auto kind = kind_of(event)) return {*kind};
  return {EventKind::kCycles, EventKind::kCpuClock};
}

std::vector<std::string> available_event_names() {
  std::vector<std::string> names;
  for (const auto& [name, event] : sampling_events()) {
    const TypeConfig tc = type_config(*kind_of(event));
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = tc.type;
    attr.config = tc.config;
    attr.disabled = 1;
    attr.exclude_kernel = 1;  // allowed at any perf_event_paranoid below 3
    attr.exclude_hv = 1;
    const long fd = ::syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) {
      ::close(static_cast<int>(fd));
      names.push_back(name);
    }
  }
  return names;
}

perf_event_attr make_sample_attr(const EventConfig& c, EventKind kind, size_t ring_bytes,
                                 uint16_t max_stack) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  const TypeConfig tc = type_config(kind);
  attr.type = tc.type;
  attr.config = tc.config;
  const bool sampling = kind != EventKind::kSideBandOnly;
  attr.freq = sampling ? 1 : 0;
  attr.sample_freq = sampling ? static_cast<uint64_t>(c.frequency_hz) : 1;
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                     PERF_SAMPLE_PERIOD | (sampling ? PERF_SAMPLE_CALLCHAIN : 0);
  if (c.user_regs_stack && sampling) {
    attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    attr.sample_regs_user = arch::x86_64::kUnwindRegsMask;
    attr.sample_stack_user = c.stack_user_bytes;
  }
  // PERF_SAMPLE_IDENTIFIER (first u64 of every sample) tells the context-switch event's samples
  // from the sampling event's, since both write into one ring.
  // The runtime-count event does too.
  if (c.off_cpu || c.runtime_counts) attr.sample_type |= PERF_SAMPLE_IDENTIFIER;
  attr.sample_max_stack = max_stack;
  attr.exclude_callchain_kernel = c.kernel_callchain ? 0 : 1;
  attr.exclude_callchain_user = 0;
  attr.exclude_hv = 1;
  // Side-band records, each with the sample_id_all trailer so the merger can order them.
  attr.sample_id_all = 1;
  attr.mmap = 1;
  attr.mmap2 = 1;
  // Non-executable mmaps too: user marker files (marker-<pid>.txt, samply's protocol) are found
  // through the MMAP2 record of their data mapping. The converter drops every other data one.
  attr.mmap_data = 1;
  attr.comm = 1;
  attr.comm_exec = 1;
  attr.task = 1;
  // Switch records only serve CPU time, which a side-band-only recording does not measure.
  attr.context_switch = c.context_switch && sampling ? 1 : 0;
  // Timestamps on CLOCK_MONOTONIC so they compare with clock_gettime in the recorder.
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  attr.inherit = c.inherit ? 1 : 0;
  attr.enable_on_exec = c.enable_on_exec ? 1 : 0;
  attr.disabled = c.enable_on_exec ? 1 : 0;
  // Wake the reader when a quarter of the ring is full, leaving room while it drains.
  attr.watermark = 1;
  attr.wakeup_watermark = static_cast<uint32_t>(std::max<size_t>(ring_bytes / 4, 1));
  return attr;
}

Result<PerfEvents> PerfEvents::open(const EventConfig& config) {
  SPROF_TRY_VOID(validate(config));
  SPROF_TRY(std::vector<uint32_t> cpus, online_cpus());
  const size_t pages = config.ring_pages != 0 ? config.ring_pages : auto_ring_pages(config);
  const long max_stack_sysctl =
      read_kernel_number("/proc/sys/kernel/perf_event_max_stack").value_or(kDefaultMaxStack);
  const auto max_stack = static_cast<uint16_t>(std::clamp<long>(max_stack_sysctl, 1, 0xffff));
  std::vector<pid_t> tasks{config.pid};
  tasks.insert(tasks.end(), config.extra_tids.begin(), config.extra_tids.end());

  // Opens every (cpu, task) event for `attr`; all-or-nothing.
  auto open_all = [&](perf_event_attr& attr) -> Result<std::vector<CpuRing>> {
    std::vector<CpuRing> rings;
    for (uint32_t cpu : cpus) {
      SPROF_TRY(UniqueFd leader, open_event(attr, tasks[0], cpu));
      SPROF_TRY(MappedRingBuffer ring, map_ring(leader.get(), pages));
      std::vector<UniqueFd> fds;
      fds.push_back(std::move(leader));
      for (size_t i = 1; i < tasks.size(); ++i) {
        SPROF_TRY(UniqueFd fd, open_into_ring(attr, tasks[i], cpu, fds[0].get()));
        fds.push_back(std::move(fd));
      }
      rings.push_back(CpuRing{cpu, std::move(fds), std::move(ring)});
    }
    return rings;
  };

  const size_t ring_bytes = pages * page_size();
  const std::vector<EventKind> kinds = config.sample_cpu
                                           ? event_kinds_to_try(config.event)
                                           : std::vector<EventKind>{EventKind::kSideBandOnly};
  for (EventKind kind : kinds) {
    perf_event_attr attr = make_sample_attr(config, kind, ring_bytes, max_stack);
    auto rings = open_all(attr);
    if (!rings && rings.error().code == Errc::kPermissionDenied) {
      // perf_event_paranoid >= 2 refuses kernel sampling to unprivileged users; user-only
      // sampling is still allowed (what `perf record` falls back to as well).
      log::info("perf: " + rings.error().message + "; retrying with exclude_kernel");
      attr.exclude_kernel = 1;
      attr.exclude_callchain_kernel = 1;
      rings = open_all(attr);
    }
    if (!rings) {
      const int err = rings.error().sys_errno;
      if (event_missing(err)) {
        // No PMU (VMs, containers): by default fall back to the software clock; an event the
        // user asked for is refused, saying what there is.
        if (config.event != SamplingEvent::kAuto) {
          return unexpected(unavailable_event(config.event, rings.error()));
        }
        if (kind != kinds.back()) {
          log::info("perf: hardware cycles unavailable (" + rings.error().message +
                    "); using cpu-clock");
          continue;
        }
      }
      return unexpected(std::move(rings).error());
    }
    // The context-switch event (off-CPU stacks) writes into the same rings; its records are told
    // apart by the ids open_off_cpu_events registers. Without kernel sampling it is not opened.
    std::vector<sprof::perf::EventSpec> specs{{attr, sprof::perf::EventRole::kSampling}};
    const bool off_cpu = config.off_cpu && config.sample_cpu;
    if (off_cpu && attr.exclude_kernel == 0) {
      specs.push_back({make_context_switch_attr(attr), sprof::perf::EventRole::kContextSwitch});
    }
    // Per-task recordings of CPU time add CPU-wide switch records for switch-in times; a
    // system-wide recording's switch records are CPU-wide already.
    const bool side_band = config.context_switch && config.sample_cpu && config.pid != -1;
    if (side_band) {
      specs.push_back({make_cpu_wide_switch_attr(attr), sprof::perf::EventRole::kSwitchSideBand});
    }
    // The scheduler's CPU-time counts, per task (a CPU-wide count would sum every task's).
    const bool wants_counts = config.runtime_counts && config.sample_cpu && config.pid != -1;
    const std::optional<uint64_t> runtime_tracepoint =
        wants_counts ? sched_runtime_tracepoint_id() : std::nullopt;
    std::optional<size_t> runtime_event;
    if (runtime_tracepoint) {
      runtime_event = specs.size();
      specs.push_back(
          {make_runtime_attr(attr, *runtime_tracepoint), sprof::perf::EventRole::kRuntime});
    } else if (wants_counts) {
      log::info(
          "perf: no scheduler CPU counts (sched:sched_stat_runtime is not readable in "
          "tracefs); CPU deltas come from switch records alone");
    }
    SPROF_TRY(sprof::perf::EventTable table, sprof::perf::EventTable::create(specs));
    PerfEvents events(kind, attr, std::move(*rings), std::move(table));
    if (off_cpu) SPROF_TRY_VOID(events.open_off_cpu_events(tasks));
    if (side_band) events.open_cpu_wide_switches();
    if (runtime_tracepoint) {
      events.runtime_tracepoint_ = runtime_tracepoint;
      events.runtime_event_ = runtime_event;
      events.runtime_counts_ = events.open_runtime_events(tasks.front());
      if (events.runtime_counts_) {
        for (size_t i = 1; i < tasks.size(); ++i) events.open_runtime_events(tasks[i]);
      }
    }
    return events;
  }
  return fail(Errc::kInternal, "perf: no event kind left to try");
}

Result<void> PerfEvents::open_beside_sampling(perf_event_attr& attr, pid_t task,
                                              size_t event_index) {
  std::vector<UniqueFd> opened;  // one per ring, committed only when every CPU worked
  for (auto& r : rings_) {
    SPROF_TRY(UniqueFd fd, open_into_ring(attr, task, r.cpu, r.fds.front().get()));
    // The id the samples will carry: for events inherited by new threads the kernel reports
    // the parent's (primary_event_id), which is this one.
    uint64_t id = 0;
    if (::ioctl(fd.get(), PERF_EVENT_IOC_ID, &id) != 0) {
      return unexpected(
          Error::from_errno("ioctl(PERF_EVENT_IOC_ID, event=" + sprof::perf::event_name(attr) +
                            ", cpu=" + std::to_string(r.cpu) + ")"));
    }
    reader_.events().add_id(id, event_index);
    opened.push_back(std::move(fd));
  }
  for (size_t i = 0; i < rings_.size(); ++i) rings_[i].fds.push_back(std::move(opened[i]));
  return ok();
}

Result<std::vector<pid_t>> PerfEvents::add_tasks(const std::vector<pid_t>& tids) {
  std::vector<pid_t> added;
  for (pid_t tid : tids) {
    std::vector<UniqueFd> opened;  // one per ring, committed only when every CPU worked
    for (auto& r : rings_) {
      auto fd = open_into_ring(attr_, tid, r.cpu, r.fds.front().get());
      if (!fd.has_value()) {
        if (fd.error().sys_errno == ESRCH) break;  // the thread is already gone
        return unexpected(std::move(fd).error());
      }
      opened.push_back(std::move(*fd));
    }
    if (opened.size() != rings_.size()) continue;
    for (size_t i = 0; i < rings_.size(); ++i) rings_[i].fds.push_back(std::move(opened[i]));
    // Best effort, like for the first tasks: without them its deltas are not checked.
    if (runtime_counts_) open_runtime_events(tid);
    // With off-CPU stacks on, a late thread needs its context-switch events too.
    if (off_cpu_) {
      auto switches = open_context_switch_events(tid);
      if (!switches.has_value() && switches.error().sys_errno != ESRCH) {
        return unexpected(std::move(switches).error());
      }
    }
    added.push_back(tid);
  }
  return added;
}

PerfEvents::PerfEvents(EventKind kind, perf_event_attr attr, std::vector<CpuRing> rings,
                       sprof::perf::EventTable events)
    : kind_(kind),
      attr_(attr),
      rings_(std::move(rings)),
      reader_(ring_views(rings_), std::move(events)) {}

std::vector<RingRecordSource::Ring> PerfEvents::ring_views(std::vector<CpuRing>& rings) {
  std::vector<RingRecordSource::Ring> views;
  views.reserve(rings.size());
  for (auto& r : rings) views.push_back({r.cpu, &r.ring.ring()});
  return views;
}

std::string PerfEvents::event_name() const { return sprof::perf::event_name(attr_); }

std::vector<uint32_t> PerfEvents::cpus() const {
  std::vector<uint32_t> out;
  for (const auto& r : rings_) out.push_back(r.cpu);
  return out;
}

size_t PerfEvents::ring_bytes_per_cpu() const {
  return rings_.empty() ? 0 : rings_.front().ring.ring().data_size();
}

Result<void> PerfEvents::enable() {
  for (const auto& r : rings_) {
    for (const auto& fd : r.fds) {
      if (::ioctl(fd.get(), PERF_EVENT_IOC_ENABLE, 0) != 0) {
        return unexpected(
            Error::from_errno("ioctl(PERF_EVENT_IOC_ENABLE, cpu=" + std::to_string(r.cpu) + ")"));
      }
    }
    // Best effort, like opening it: without it only the switch-in times are less exact.
    if (r.cpu_wide_switches.valid()) ::ioctl(r.cpu_wide_switches.get(), PERF_EVENT_IOC_ENABLE, 0);
  }
  return ok();
}

Result<void> PerfEvents::disable() {
  for (const auto& r : rings_) {
    for (const auto& fd : r.fds) {
      if (::ioctl(fd.get(), PERF_EVENT_IOC_DISABLE, 0) != 0) {
        return unexpected(
            Error::from_errno("ioctl(PERF_EVENT_IOC_DISABLE, cpu=" + std::to_string(r.cpu) + ")"));
      }
    }
    // Best effort, like opening it: without it only the switch-in times are less exact.
    if (r.cpu_wide_switches.valid()) ::ioctl(r.cpu_wide_switches.get(), PERF_EVENT_IOC_DISABLE, 0);
  }
  return ok();
}

Result<PollStatus> PerfEvents::poll(int timeout_ms, int exit_fd) {
  std::vector<pollfd> fds;
  size_t events = 0;
  for (const auto& r : rings_) {
    for (const auto& fd : r.fds) {
      // poll(2) skips negative descriptors (revents 0): a hung-up event stays in the list.
      fds.push_back(pollfd{hung_up_.contains(fd.get()) ? -1 : fd.get(), POLLIN, 0});
      ++events;
    }
  }
  if (exit_fd >= 0) fds.push_back(pollfd{exit_fd, POLLIN, 0});
  PollStatus status;
  if (every_event_hung_up(events) && exit_fd < 0) {
    // Nothing left to wait for. A caller that still waits for a reap (no pidfd: a kernel
    // before 5.3) calls again at once; the pause keeps that from spinning.
    constexpr int kHungUpPauseMs = 1;
    const int pause_ms = timeout_ms < 0 ? kHungUpPauseMs : std::min(timeout_ms, kHungUpPauseMs);
    (void)::poll(nullptr, 0, pause_ms);
    status.all_hung_up = true;
    return status;
  }
  const int n = ::poll(fds.data(), fds.size(), timeout_ms);
  if (n < 0) {
    if (errno == EINTR) {
      status.interrupted = true;
      return status;
    }
    return unexpected(Error::from_errno("poll(perf fds=" + std::to_string(fds.size()) + ")"));
  }
  // POLLHUP on a per-task event means the task and every inherited child have exited.
  for (size_t i = 0; i < events; ++i) {
    if (fds[i].revents & POLLIN) status.readable = true;
    if (fds[i].revents & POLLHUP) hung_up_.insert(fds[i].fd);
  }
  if (exit_fd >= 0 && (fds[events].revents & (POLLIN | POLLHUP | POLLERR))) {
    status.exit_fd_readable = true;
  }
  status.all_hung_up = every_event_hung_up(events);
  return status;
}

bool PerfEvents::read_available(const sprof::perf::RecordSink& sink) {
  return reader_.read_available(sink);
}

void PerfEvents::flush_all(const sprof::perf::RecordSink& sink) { reader_.flush_all(sink); }

}  // namespace sprof::recorder::perf
