#include "process/proc_access.hpp"

#include <utility>

#include "process/proc_maps.hpp"

namespace sprof::recorder {

namespace {

std::vector<convert::ProcAccess::Map> exec_maps_from(const std::vector<MapsEntry>& entries) {
  std::vector<convert::ProcAccess::Map> maps;
  for (const auto& e : entries) {
    if (e.executable) maps.push_back({e.path, e.start, e.end, e.offset});
  }
  return maps;
}

}  // namespace

convert::ProcAccess live_proc_access(const std::string& proc_root) {
  convert::ProcAccess access;
  access.read_comm = [proc_root](uint32_t pid, uint32_t tid) -> std::optional<std::string> {
    auto comm = read_comm(static_cast<pid_t>(pid), static_cast<pid_t>(tid), proc_root);
    if (!comm.has_value()) return std::nullopt;
    return *comm;
  };
  access.read_exec_maps = [proc_root](uint32_t pid) {
    auto entries = read_maps(static_cast<pid_t>(pid), proc_root);
    return entries.has_value() ? exec_maps_from(*entries) : std::vector<convert::ProcAccess::Map>{};
  };
  access.read_argv = [proc_root](uint32_t pid) { return read_proc_argv(pid, proc_root); };
  return access;
}

std::vector<uint32_t> list_pids(std::string_view proc_root) {
  auto pids = list_numeric_entries(std::string(proc_root));
  return pids.has_value() ? std::move(*pids) : std::vector<uint32_t>{};
}

SystemSnapshot snapshot_system(std::string_view proc_root) {
  SystemSnapshot snapshot;
  for (uint32_t pid : list_pids(proc_root)) {
    auto tids = list_threads(static_cast<pid_t>(pid), proc_root);
    if (!tids.has_value()) continue;  // exited meanwhile
    ProcessSnapshot process;
    for (pid_t tid : *tids) {
      auto comm = read_comm(static_cast<pid_t>(pid), tid, proc_root);
      if (comm.has_value()) process.thread_names.emplace(static_cast<uint32_t>(tid), *comm);
    }
    // Kernel threads have no mappings; read_maps then gives an empty list.
    auto maps = read_maps(static_cast<pid_t>(pid), proc_root);
    if (maps.has_value()) process.exec_maps = exec_maps_from(*maps);
    snapshot.emplace(pid, std::move(process));
  }
  return snapshot;
}

convert::ProcAccess with_snapshot_fallback(const convert::ProcAccess& live,
                                           const std::shared_ptr<const SystemSnapshot>& snapshot) {
  convert::ProcAccess access;
  access.read_argv = live.read_argv;
  access.read_comm = [live, snapshot](uint32_t pid, uint32_t tid) -> std::optional<std::string> {
    if (pid == 0) return std::string(kIdleProcessName);
    if (live.read_comm) {
      if (auto name = live.read_comm(pid, tid)) return name;
    }
    const auto p = snapshot->find(pid);
    if (p == snapshot->end()) return std::nullopt;
    const auto t = p->second.thread_names.find(tid);
    if (t == p->second.thread_names.end()) return std::nullopt;
    return t->second;
  };
  access.read_exec_maps = [live, snapshot](uint32_t pid) {
    std::vector<convert::ProcAccess::Map> maps;
    if (live.read_exec_maps) maps = live.read_exec_maps(pid);
    if (!maps.empty()) return maps;
    const auto p = snapshot->find(pid);
    return p == snapshot->end() ? maps : p->second.exec_maps;
  };
  return access;
}

}  // namespace sprof::recorder
