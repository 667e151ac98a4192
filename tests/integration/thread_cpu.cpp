#include "thread_cpu.hpp"

#include <doctest/doctest.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <sprof/convert/cpu_accounting.hpp>
#include <sstream>

namespace sprof::test {
namespace {

bool whole_number(const std::string& text, uint64_t& value) {
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  return error == std::errc{} && stop == end;
}

}  // namespace

std::map<int64_t, ThreadCpu> measured_threads(const std::string& out) {
  std::map<int64_t, ThreadCpu> threads;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    int64_t tid = 0;
    ThreadCpu t;
    std::string steal, switches, rest;
    if (!(fields >> tid >> t.cpu_ns >> t.name)) continue;
    if (fields >> steal) {
      if (!(fields >> switches) || fields >> rest) continue;
      if (!whole_number(steal, t.steal_ns) || !whole_number(switches, t.switches)) continue;
    }
    threads[tid] = t;
  }
  return threads;
}

std::optional<uint64_t> measured_total(const std::string& out, const std::string& name) {
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string word, group, rest;
    uint64_t cpu_ns = 0;
    if (fields >> word >> group >> cpu_ns && word == "total" && group == name &&
        !(fields >> rest)) {
      return cpu_ns;
    }
  }
  return std::nullopt;
}

const ThreadView* thread_with_tid(const ProfileView& p, int64_t tid) {
  for (const auto& proc : p.processes) {
    for (const auto& t : proc.threads) {
      if (t.tid == tid) return &t;
    }
  }
  return nullptr;
}

const ThreadView* thread_named(const ProfileView& p, const std::string& name) {
  for (const auto& proc : p.processes) {
    for (const auto& t : proc.threads) {
      if (t.name == name) return &t;
    }
  }
  return nullptr;
}

double relative_error(uint64_t profile_ns, uint64_t real_ns) {
  return (static_cast<double>(profile_ns) - static_cast<double>(real_ns)) /
         static_cast<double>(real_ns);
}

StatedStalls stated_stalls(const ProfileView& p) {
  REQUIRE(p.sprof_meta_cpu_stalled_ms.has_value());
  REQUIRE(p.sprof_meta_cpu_stall_credited_ms.has_value());
  return {static_cast<uint64_t>(*p.sprof_meta_cpu_stalled_ms * 1e6),
          static_cast<uint64_t>(*p.sprof_meta_cpu_stall_credited_ms * 1e6)};
}

DeltaBias& DeltaBias::operator+=(const DeltaBias& other) {
  steal_ns += other.steal_ns;
  late_starts_ns += other.late_starts_ns;
  return *this;
}

DeltaBias delta_bias(const ProfileView& p, const ThreadCpu& real) {
  if (p.sprof_meta_cpu_counts.value_or(0) > 0) return {};
  const uint64_t late_switch_ins = std::min<uint64_t>(
      real.switches + 1,
      static_cast<uint64_t>(p.sprof_meta_cpu_switch_ins_without_pick.value_or(0)));
  return {real.steal_ns, late_switch_ins * convert::CpuAccounting::kSwitchInLatenessNs};
}

double error_beyond_stalls(uint64_t profile_ns, uint64_t real_ns, const StatedStalls& stalls,
                           const DeltaBias& bias) {
  const uint64_t steal_held = std::max(stalls.credited_ns, bias.steal_ns);
  const uint64_t low = profile_ns > steal_held ? profile_ns - steal_held : 0;
  const uint64_t high = profile_ns + stalls.left_out_ns + bias.late_starts_ns;
  if (real_ns < low) return relative_error(low, real_ns);
  if (real_ns > high) return relative_error(high, real_ns);
  return 0;
}

double thread_cpu_error(const ProfileView& p, uint64_t profile_ns, const ThreadCpu& real) {
  return error_beyond_stalls(profile_ns, real.cpu_ns, stated_stalls(p), delta_bias(p, real));
}

std::string cpu_comparison(uint64_t profile_ns, const ThreadCpu& real) {
  return "real " + std::to_string(real.cpu_ns) + " ns, profile " + std::to_string(profile_ns) +
         " ns, steal " + std::to_string(real.steal_ns) + " ns, " + std::to_string(real.switches) +
         " switches";
}

bool scheduler_counts_possible() {
  if (::geteuid() != 0) return false;
  // Mounted, or mountable: where tracefs is not mounted, sprof mounts one privately for the id.
  if (::access("/sys/kernel/tracing/events/sched/sched_stat_runtime/id", R_OK) != 0) {
    std::ifstream filesystems("/proc/filesystems");
    std::string line;
    bool tracefs = false;
    while (std::getline(filesystems, line)) tracefs = tracefs || line.ends_with("\ttracefs");
    if (!tracefs || ::access("/sys/kernel/tracing", F_OK) != 0) return false;
  }
  utsname u{};
  if (::uname(&u) != 0) return false;
  int major = 0, minor = 0;
  if (std::sscanf(u.release, "%d.%d", &major, &minor) != 2) return false;
  return major > 6 || (major == 6 && minor >= 12);
}

bool scheduler_counts_expected() {
  if (!scheduler_counts_possible()) return false;
  // --cpu-counts=auto records them on a VM, which the CPU flags say.
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) == 0) return line.find(" hypervisor") != std::string::npos;
  }
  return false;
}

uint64_t front_end_cpu_ns(const ThreadView& t) {
  uint64_t sum = 0;
  for (size_t i = 1; i < t.cpu_deltas.size(); ++i) sum += t.cpu_deltas[i].value_or(0);
  return sum;
}

bool is_idle_sample(const ProfileView& p, const ThreadView& t, size_t i) {
  const int64_t c = t.leaf_categories.at(i);
  return c >= 0 && static_cast<size_t>(c) < p.categories.size() && p.categories[c] == "Idle";
}

size_t idle_samples(const ProfileView& p, const ThreadView& t) {
  size_t n = 0;
  for (size_t i = 0; i < t.samples; ++i) n += is_idle_sample(p, t, i) ? 1 : 0;
  return n;
}

void check_blockers_idle(const ProfileView& p) {
  const ThreadView* sleeper = thread_named(p, "sleeper");
  REQUIRE(sleeper != nullptr);
  const size_t idle = idle_samples(p, *sleeper);
  CAPTURE(sleeper->samples);
  CAPTURE(idle);
  CHECK(idle > sleeper->samples * 35 / 100);
  CHECK(idle < sleeper->samples * 65 / 100);
  for (const char* name : {"mutex-waiter", "pipe-reader"}) {
    CAPTURE(name);
    const ThreadView* t = thread_named(p, name);
    REQUIRE(t != nullptr);
    CHECK(idle_samples(p, *t) >= 100);
  }
}

}  // namespace sprof::test
