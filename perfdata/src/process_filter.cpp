#include "sprof/perfdata/process_filter.hpp"

#include <algorithm>
#include <map>

namespace sprof::perfdata {

uint32_t record_pid(const perf::Record& record) {
  return std::visit(
      [](const auto& r) -> uint32_t {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, perf::Mmap2Record> || std::is_same_v<T, perf::CommRecord> ||
                      std::is_same_v<T, perf::ForkRecord> || std::is_same_v<T, perf::ExitRecord>) {
          return r.pid;
        } else {
          return r.id.pid;
        }
      },
      record);
}

ProcessFilter::ProcessFilter(std::vector<uint32_t> pids, std::vector<std::string> names)
    : pids_(pids.begin(), pids.end()), names_(names.begin(), names.end()) {}

bool ProcessFilter::selected(uint32_t pid) const {
  if (pids_.contains(pid)) return true;
  if (names_.empty()) return false;
  const auto it = name_of_.find(pid);
  return it != name_of_.end() && names_.contains(it->second);
}

bool ProcessFilter::keep(const perf::Record& record) {
  if (!active()) return true;
  if (const auto* c = std::get_if<perf::CommRecord>(&record)) {
    if (c->exec || c->tid == c->pid) name_of_[c->pid] = c->comm;
  } else if (const auto* f = std::get_if<perf::ForkRecord>(&record)) {
    if (f->pid != f->ppid && !name_of_.contains(f->pid)) {
      const auto parent = name_of_.find(f->ppid);
      if (parent != name_of_.end()) name_of_[f->pid] = parent->second;
    }
  } else if (std::holds_alternative<perf::LostRecord>(record) ||
             std::holds_alternative<perf::LostSamplesRecord>(record) ||
             std::holds_alternative<perf::ThrottleRecord>(record)) {
    return true;
  }
  return selected(record_pid(record));
}

std::string ProcessFilter::selection() const {
  // Sorted, so the message does not depend on hashing.
  std::vector<uint32_t> pids(pids_.begin(), pids_.end());
  std::vector<std::string> names(names_.begin(), names_.end());
  std::sort(pids.begin(), pids.end());
  std::sort(names.begin(), names.end());
  std::string out;
  for (uint32_t pid : pids) out += (out.empty() ? "--pid " : " --pid ") + std::to_string(pid);
  for (const auto& name : names) out += (out.empty() ? "--name " : " --name ") + name;
  return out;
}

std::string ProcessFilter::processes_seen(size_t max) const {
  const std::map<uint32_t, std::string> sorted(name_of_.begin(), name_of_.end());
  std::string out;
  size_t shown = 0;
  for (const auto& [pid, name] : sorted) {
    if (pid == 0) continue;  // the idle task is not a process one can select
    if (shown == max) {
      out += ", ...";
      break;
    }
    out += (out.empty() ? "" : ", ") + name + " (" + std::to_string(pid) + ")";
    ++shown;
  }
  return out.empty() ? "none named" : out;
}

}  // namespace sprof::perfdata
