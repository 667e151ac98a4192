#include "sprof/convert/per_cpu_tracks.hpp"

#include <algorithm>
#include <tuple>

#include "sprof/convert/marker_schemas.hpp"

namespace sprof::convert {

std::string process_label(const PerCpuTracks::Task& task) {
  return std::string(task.process_name) + " (pid " + std::to_string(task.pid) + ")";
}

std::string thread_label(const PerCpuTracks::Task& task) {
  return std::string(task.thread_name) + " (tid " + std::to_string(task.tid) + ")";
}

PerCpuTracks::PerCpuTracks(uint64_t origin_ns, bool stretch_markers)
    : origin_ns_(origin_ns), stretch_markers_(stretch_markers) {}

double PerCpuTracks::to_ms(uint64_t ns) const {
  return ns <= origin_ns_ ? 0 : static_cast<double>(ns - origin_ns_) / 1e6;
}

PerCpuTracks::Track& PerCpuTracks::track(uint32_t cpu) {
  auto [it, inserted] = tracks_.try_emplace(cpu);
  if (inserted) {
    profile::Thread& t = it->second.thread;
    t.name = "CPU " + std::to_string(cpu);
    t.pid = kCpusProcessPid;
    t.tid = kCpusProcessPid + 1 + static_cast<int64_t>(cpu);
  }
  return it->second;
}

void PerCpuTracks::close_stretch(Track& t, uint64_t end_ns) {
  if (!t.stretch) return;
  if (stretch_markers_) {
    profile::Marker m;
    m.name = t.stretch->thread;
    m.start_ms = to_ms(t.stretch->since_ns);
    m.end_ms = to_ms(std::max(end_ns, t.stretch->since_ns));
    m.phase = profile::MarkerPhase::kInterval;
    m.type = kOnCpuMarkerType;
    m.fields.push_back({"thread", t.stretch->thread});
    m.fields.push_back({"pid", static_cast<int64_t>(t.stretch->pid)});
    m.fields.push_back({"tid", static_cast<int64_t>(t.stretch->tid)});
    t.thread.add_marker(std::move(m));
  }
  t.stretch.reset();
}

void PerCpuTracks::running(uint32_t cpu, const Task& task, uint64_t time_ns) {
  Track& t = track(cpu);
  if (t.stretch && t.stretch->tid == task.tid) {
    busy_.running(cpu, time_ns);
    return;
  }
  // Another thread on this CPU: the previous one left it (its switch-out may be lost).
  if (t.stretch) {
    busy_.switched_out(cpu, time_ns);
    close_stretch(t, time_ns);
  }
  busy_.switched_in(cpu, time_ns);
  t.stretch =
      Stretch{task.pid, task.tid, stretch_markers_ ? thread_label(task) : std::string(), time_ns};
}

void PerCpuTracks::switched_out(uint32_t cpu, const Task& task, uint64_t time_ns) {
  Track& t = track(cpu);
  if (!t.stretch || t.stretch->tid != task.tid) return;
  busy_.switched_out(cpu, time_ns);
  close_stretch(t, time_ns);
}

uint32_t PerCpuTracks::copy_stack(Track& t, const Task& task, const profile::Thread& thread,
                                  uint32_t stack) {
  if (const auto found = t.stacks.find(task.track_key, stack)) return *found;
  chain_.clear();
  for (std::optional<uint32_t> s = stack; s && *s < thread.stacks().size();
       s = thread.stacks()[*s].prefix) {
    chain_.push_back(thread.stacks()[*s].frame);
  }
  profile::Thread& out = t.thread;
  std::optional<uint32_t> copied = out.intern_stack(
      std::nullopt, out.intern_frame(process_label(task), profile::Category::kOther));
  copied =
      out.intern_stack(copied, out.intern_frame(thread_label(task), profile::Category::kOther));
  for (auto it = chain_.rbegin(); it != chain_.rend(); ++it) {
    const profile::FrameEntry& frame = thread.frames()[*it];
    copied = out.intern_stack(copied,
                              out.intern_frame(thread.strings()[frame.location], frame.category));
  }
  t.stacks.insert(task.track_key, stack, *copied);
  return *copied;
}

void PerCpuTracks::add_sample(uint32_t cpu, const Task& task, const profile::Thread& thread,
                              std::optional<uint32_t> stack, uint64_t time_ns,
                              std::optional<uint64_t> period_cpu_ns) {
  running(cpu, task, time_ns);
  Track& t = track(cpu);
  const CpuAccounting::Taken taken = busy_.take(cpu, time_ns);
  const std::optional<uint64_t> cpu_ns = taken.cpu_ns ? taken.cpu_ns : period_cpu_ns;
  const std::optional<uint32_t> copied =
      stack ? std::optional<uint32_t>(copy_stack(t, task, thread, *stack)) : std::nullopt;
  // The front end ignores the first sample's CPU delta (docs/firefox-profiler-format.md, "CPU
  // deltas"): a stackless zero-CPU sample where the CPU started running keeps the first real one's.
  if (t.thread.samples().empty() && taken.cpu_ns.value_or(0) > 0 && taken.since_ns < time_ns) {
    t.thread.add_sample(profile::Sample{std::nullopt, to_ms(taken.since_ns), 0});
  }
  t.thread.add_sample(profile::Sample{copied, to_ms(time_ns), cpu_ns});
}

void PerCpuTracks::finish(profile::Profile& profile) {
  if (tracks_.empty()) return;
  profile::Process cpus;
  cpus.pid = kCpusProcessPid;
  cpus.name = "CPUs";
  cpus.process_type = "child";
  for (const auto& process : profile.processes) {
    cpus.libs.insert(cpus.libs.end(), process.libs.begin(), process.libs.end());
  }
  // The same lib mapped at the same place in several processes (forks, the kernel) once.
  std::sort(cpus.libs.begin(), cpus.libs.end(), [](const auto& a, const auto& b) {
    return std::tie(a.start, a.end, a.breakpad_id) < std::tie(b.start, b.end, b.breakpad_id);
  });
  cpus.libs.erase(std::unique(cpus.libs.begin(), cpus.libs.end(),
                              [](const auto& a, const auto& b) {
                                return a.start == b.start && a.end == b.end &&
                                       a.breakpad_id == b.breakpad_id;
                              }),
                  cpus.libs.end());
  for (auto& [cpu, t] : tracks_) {
    if (const auto last = busy_.last_seen(cpu)) close_stretch(t, *last);
    if (t.thread.samples().empty() && t.thread.markers().empty()) continue;
    t.thread.process_name = cpus.name;
    t.thread.process_type = cpus.process_type;
    cpus.threads.push_back(std::move(t.thread));
  }
  tracks_.clear();
  if (!cpus.threads.empty()) profile.processes.push_back(std::move(cpus));
}

}  // namespace sprof::convert
