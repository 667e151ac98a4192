#include "sprof/perfdata/start_snapshot.hpp"

#include <unordered_map>
#include <vector>

namespace sprof::perfdata {

struct StartSnapshot::Data {
  std::unordered_map<uint64_t, std::string> comm;  // by pid << 32 | tid
  std::unordered_map<uint32_t, std::vector<convert::ProcAccess::Map>> exec_maps;
};

namespace {

uint64_t task_key(uint32_t pid, uint32_t tid) { return uint64_t{pid} << 32 | tid; }

}  // namespace

StartSnapshot::StartSnapshot() : data_(std::make_shared<Data>()) {}

void StartSnapshot::add(const perf::Record& record) {
  if (const auto* c = std::get_if<perf::CommRecord>(&record)) {
    data_->comm[task_key(c->pid, c->tid)] = c->comm;
  } else if (const auto* m = std::get_if<perf::Mmap2Record>(&record); m && m->executable) {
    data_->exec_maps[m->pid].push_back({m->filename, m->addr, m->addr + m->len, m->pgoff});
  }
}

convert::ProcAccess StartSnapshot::proc_access() const {
  convert::ProcAccess access;
  std::shared_ptr<const Data> data = data_;
  access.read_comm = [data](uint32_t pid, uint32_t tid) -> std::optional<std::string> {
    if (pid == 0) return std::string(convert::kIdleProcessName);
    const auto it = data->comm.find(task_key(pid, tid));
    if (it == data->comm.end()) return std::nullopt;
    return it->second;
  };
  access.read_exec_maps = [data](uint32_t pid) {
    const auto it = data->exec_maps.find(pid);
    return it == data->exec_maps.end() ? std::vector<convert::ProcAccess::Map>{} : it->second;
  };
  return access;
}

}  // namespace sprof::perfdata
