#include "counting/counter_set.hpp"

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "counting/count_records.hpp"
#include "perf/cpu_list.hpp"
#include "perf/perf_event.hpp"
#include "sprof/core/log.hpp"

namespace sprof::recorder::counting {

namespace {

// 256 KiB per CPU: ~5,000 thread-exit records between two drains (each ~48 bytes, one per
// counter of the thread per CPU it ran on), and the run loop drains at least every 100 ms.
constexpr size_t kRingPages = 64;

perf_event_attr counting_attr(CounterEvent event, bool leader, bool enable_on_exec,
                              bool exclude_kernel) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  const auto [type, config] = counter_type_config(event);
  attr.type = type;
  attr.config = config;
  attr.read_format = kCountReadFormat;
  attr.inherit = 1;
  // The kernel writes each exiting thread's own count into the ring (PERF_RECORD_READ).
  attr.inherit_stat = 1;
  // Siblings follow their leader: only the leader starts disabled, until the exec.
  attr.disabled = leader && enable_on_exec ? 1 : 0;
  attr.enable_on_exec = leader && enable_on_exec ? 1 : 0;
  attr.exclude_kernel = exclude_kernel ? 1 : 0;
  attr.exclude_hv = 1;
  attr.watermark = 1;
  attr.wakeup_watermark = static_cast<uint32_t>(kRingPages * ::sysconf(_SC_PAGESIZE) / 4);
  return attr;
}

bool event_missing(int err) { return err == ENOENT || err == EOPNOTSUPP || err == ENODEV; }

// Why `event` cannot be counted here, or "" when it can: a counting event on sprof itself, user
// space only (allowed at any perf_event_paranoid below 3).
std::string missing_reason(CounterEvent event) {
  perf_event_attr attr = counting_attr(event, true, false, true);
  attr.disabled = 1;
  const long fd = ::syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd >= 0) {
    ::close(static_cast<int>(fd));
    return "";
  }
  const int err = errno;
  if (!event_missing(err)) return "";  // refused, not missing: open() reports it
  const std::string cause = std::string("perf_event_open: ") + std::strerror(err);
  // Hardware counters come from the CPU's PMU; virtual machines mostly expose none.
  if (attr.type == PERF_TYPE_HARDWARE &&
      !std::filesystem::exists("/sys/bus/event_source/devices/cpu") &&
      !std::filesystem::exists("/sys/bus/event_source/devices/cpu_core")) {
    return "this machine has no hardware PMU (" + cause + ")";
  }
  return "not supported by this machine (" + cause + ")";
}

// One counter of one thread from its per-CPU copies (across_cpus). Software counters are never
// multiplexed: where their copies' times disagree (by ~0.1% in an attached process, whose copies
// were opened moments apart) that is no share of time missed, so they are not scaled.
CounterReading combine_cpus(CounterEvent event, const std::vector<CounterReading>& per_cpu) {
  CounterReading r = across_cpus(per_cpu);
  if (counter_type_config(event).first == PERF_TYPE_SOFTWARE) r.time_running_ns = r.time_enabled_ns;
  return r;
}

Result<UniqueFd> open_counter(perf_event_attr& attr, pid_t tid, uint32_t cpu, int group_fd) {
  const long fd = ::syscall(SYS_perf_event_open, &attr, tid, static_cast<int>(cpu), group_fd,
                            PERF_FLAG_FD_CLOEXEC);
  if (fd >= 0) return UniqueFd(static_cast<int>(fd));
  const int err = errno;
  Error e = Error::from_errno("perf_event_open(counter " + std::to_string(attr.type) + ":" +
                                  std::to_string(attr.config) + ", tid=" + std::to_string(tid) +
                                  ", cpu=" + std::to_string(cpu) + ")",
                              err);
  if (err == EACCES || err == EPERM) {
    e.code = Errc::kPermissionDenied;
    const auto paranoid = perf::read_kernel_number("/proc/sys/kernel/perf_event_paranoid");
    e.message +=
        " (perf_event_paranoid=" + (paranoid ? std::to_string(*paranoid) : "unknown") + ")";
  } else if (err == ESRCH) {
    e.code = Errc::kNotFound;
    e.message += " (no such process)";
  }
  return unexpected(std::move(e));
}

Result<uint64_t> counter_id(int fd) {
  uint64_t id = 0;
  if (::ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0) {
    return unexpected(Error::from_errno("ioctl(PERF_EVENT_IOC_ID)"));
  }
  return id;
}

std::string comm_of(pid_t tid) {
  std::ifstream in("/proc/" + std::to_string(tid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

}  // namespace

Result<CounterSet> CounterSet::open(const CounterSetConfig& config) {
  CounterSet set;
  set.tasks_ = config.tasks;
  for (CounterEvent event : config.events) {
    std::string reason = missing_reason(event);
    if (reason.empty()) {
      set.events_.push_back(event);
    } else {
      set.missing_.push_back({event, std::move(reason)});
    }
  }
  if (set.events_.empty()) {
    std::string names;
    for (const auto& m : set.missing_) {
      names += (names.empty() ? "" : ", ") + counter_event_name(m.event);
    }
    return fail(Errc::kUnsupported, "none of the events can be counted here (" + names +
                                        "): " + set.missing_.front().reason);
  }
  SPROF_TRY(std::vector<uint32_t> cpus, perf::online_cpus());
  auto opened = set.open_all(config, false, cpus);
  if (!opened && opened.error().code == Errc::kPermissionDenied) {
    // perf_event_paranoid >= 2 refuses kernel counting to unprivileged users; user space only
    // is still allowed (what perf stat falls back to as well).
    log::info("perf: " + opened.error().message + "; counting user space only");
    set.counters_.clear();
    set.rings_.clear();
    set.ring_fds_.clear();
    set.counter_by_id_.clear();
    set.user_only_ = true;
    opened = set.open_all(config, true, cpus);
  }
  SPROF_TRY_VOID(std::move(opened));
  set.cpu_count_ = cpus.size();
  return set;
}

Result<void> CounterSet::open_all(const CounterSetConfig& config, bool exclude_kernel,
                                  const std::vector<uint32_t>& cpus) {
  for (size_t cpu_index = 0; cpu_index < cpus.size(); ++cpu_index) {
    const uint32_t cpu = cpus[cpu_index];
    int ring_fd = -1;
    for (size_t task = 0; task < tasks_.size(); ++task) {
      int group_fd = -1;
      int group = -1;
      for (size_t e = 0; e < events_.size(); ++e) {
        const bool leader = counter_group(events_[e]) != group;
        if (leader) group = counter_group(events_[e]);
        perf_event_attr attr =
            counting_attr(events_[e], leader, config.enable_on_exec, exclude_kernel);
        // The CPU's first counter owns the ring and reports thread names; the rest write into
        // its ring.
        attr.comm = ring_fd < 0 ? 1 : 0;
        attr.comm_exec = attr.comm;
        attr.task = attr.comm;
        SPROF_TRY(UniqueFd fd, open_counter(attr, tasks_[task].tid, cpu, leader ? -1 : group_fd));
        if (leader) group_fd = fd.get();
        if (ring_fd < 0) {
          SPROF_TRY(perf::MappedRingBuffer ring, perf::map_ring(fd.get(), kRingPages));
          rings_.push_back(std::move(ring));
          ring_fd = fd.get();
          ring_fds_.push_back(ring_fd);
        } else if (::ioctl(fd.get(), PERF_EVENT_IOC_SET_OUTPUT, ring_fd) != 0) {
          return unexpected(Error::from_errno(
              "ioctl(PERF_EVENT_IOC_SET_OUTPUT, cpu=" + std::to_string(cpu) + ")"));
        }
        SPROF_TRY(const uint64_t id, counter_id(fd.get()));
        counter_by_id_[id] = counters_.size();
        counters_.push_back(Counter{std::move(fd), e, task, cpu_index});
      }
    }
  }
  return ok();
}

void CounterSet::drain() {
  for (auto& mapped : rings_) {
    perf::RingBuffer& ring = mapped.ring();
    ring.read([this](sprof::perf::RawRecord raw) {
      const CountRecord record = parse_count_record(raw.bytes);
      if (const auto* exit = std::get_if<ThreadExitCount>(&record)) {
        add_exit_count(exit->pid, exit->tid, exit->count.id, exit->count.reading);
      } else if (const auto* name = std::get_if<ThreadName>(&record)) {
        names_[name->tid] = name->name;
      } else if (const auto* created = std::get_if<ThreadCreated>(&record)) {
        add_created(created->pid, created->tid, created->parent_tid);
      } else if (const auto* lost = std::get_if<LostRecords>(&record)) {
        lost_records_ += lost->lost;
      }
    });
    ring.release_to(ring.read_position());
  }
}

void CounterSet::add_exit_count(int pid, int tid, uint64_t id, const CounterReading& reading) {
  const auto it = counter_by_id_.find(id);
  if (it == counter_by_id_.end()) return;
  const Counter& counter = counters_[it->second];
  ThreadRow& row = exited_[tid];
  row.pid = pid;
  row.task = counter.task;
  row.readings.resize(events_.size(), std::vector<CounterReading>(cpu_count_));
  row.readings[counter.event][counter.cpu] += reading;
}

void CounterSet::add_created(int pid, int tid, int parent_tid) {
  if (const auto it = family_.find(parent_tid); it != family_.end()) {
    family_[tid] = Relative{it->second.task, pid};
    return;
  }
  for (size_t t = 0; t < tasks_.size(); ++t) {
    if (tasks_[t].tid == parent_tid) family_[tid] = Relative{t, pid};
  }
}

CountedTask CounterSet::remainder_task(size_t t) const {
  // The kernel swaps two tasks' counter contexts on a context switch when one was copied from
  // the other (it then swaps their counts too, inherit_stat), so the counters opened on task t
  // may end up with any thread of its family: the one that writes no exit record. Where several
  // have none (attach: threads still running), the row is task t's own and includes them.
  std::vector<CountedTask> without_record;
  if (!exited_.contains(tasks_[t].tid)) without_record.push_back(tasks_[t]);
  for (const auto& [tid, relative] : family_) {
    if (relative.task == t && !exited_.contains(tid)) without_record.push_back({relative.pid, tid});
  }
  return without_record.size() == 1 ? without_record.front() : tasks_[t];
}

Result<void> CounterSet::disable() {
  for (const Counter& counter : counters_) {
    // Applies to the counter's inherited copies too (the kernel's perf_event_for_each_child).
    if (::ioctl(counter.fd.get(), PERF_EVENT_IOC_DISABLE, 0) != 0) {
      return unexpected(Error::from_errno("ioctl(PERF_EVENT_IOC_DISABLE)"));
    }
  }
  return ok();
}

Result<void> CounterSet::collect(Counts& out) {
  std::vector<PerEventPerCpu> task_totals(
      tasks_.size(), PerEventPerCpu(events_.size(), std::vector<CounterReading>(cpu_count_)));
  for (const Counter& counter : counters_) {
    uint8_t buf[kCountReadBytes];
    const ssize_t n = ::read(counter.fd.get(), buf, sizeof buf);
    if (n < 0) return unexpected(Error::from_errno("read(counter)"));
    const auto reading = parse_counter_read(std::span(buf, static_cast<size_t>(n)));
    if (!reading) return fail(Errc::kInternal, "read(counter): short read");
    task_totals[counter.task][counter.event][counter.cpu] += reading->reading;
  }
  // After the totals: a thread that exits in between then has its row, and its creator's row
  // (the total less the rows) loses nothing twice.
  drain();

  // Each counted task's total covers it and every descendant; its own row is that less the
  // descendants' rows.
  std::vector<std::vector<CounterReading>> own(tasks_.size(),
                                               std::vector<CounterReading>(events_.size()));
  out.totals.assign(events_.size(), CounterReading{});
  for (size_t t = 0; t < tasks_.size(); ++t) {
    for (size_t e = 0; e < events_.size(); ++e) {
      own[t][e] = combine_cpus(events_[e], task_totals[t][e]);
      out.totals[e] += own[t][e];
    }
  }
  std::map<int, ThreadCounts> rows;
  for (const auto& [tid, row] : exited_) {
    ThreadCounts& counts = rows[tid];
    counts.pid = row.pid;
    counts.tid = tid;
    for (size_t e = 0; e < events_.size(); ++e) {
      counts.readings.push_back(combine_cpus(events_[e], row.readings[e]));
      own[row.task][e] -= counts.readings.back();
    }
  }
  for (size_t t = 0; t < tasks_.size(); ++t) {
    const CountedTask task = remainder_task(t);
    ThreadCounts& row = rows[task.tid];
    row.pid = task.pid;
    row.tid = task.tid;
    row.readings.resize(events_.size());
    for (size_t e = 0; e < events_.size(); ++e) row.readings[e] += own[t][e];
  }
  for (auto& [tid, row] : rows) {
    // A thread that never renamed itself has its process's name.
    if (auto n = names_.find(tid); n != names_.end()) {
      row.name = n->second;
    } else if (auto p = names_.find(row.pid); p != names_.end()) {
      row.name = p->second;
    } else {
      row.name = comm_of(tid);
    }
    out.threads.push_back(std::move(row));
  }
  std::sort(out.threads.begin(), out.threads.end(), [](const auto& a, const auto& b) {
    return std::pair(a.pid, a.tid) < std::pair(b.pid, b.tid);
  });
  out.events = events_;
  out.missing = missing_;
  out.user_only = user_only_;
  out.lost_records = lost_records_;
  return ok();
}

}  // namespace sprof::recorder::counting
