#include "heap/heap_records.hpp"

#include <vector>

namespace sprof::recorder {

namespace {

namespace cperf = sprof::perf;

cperf::SampleId id_of(uint32_t pid, uint32_t tid, uint64_t time_ns) {
  cperf::SampleId id;
  id.pid = pid;
  id.tid = tid;
  id.time = time_ns;
  return id;
}

cperf::Record from(const heap::HeapAlloc& a) {
  // The allocation whole; the stack copy is taken out of the ring's bytes.
  return cperf::HeapAllocRecord{a, id_of(a.pid, a.tid, a.time_ns),
                                std::vector<uint8_t>(a.stack.begin(), a.stack.end())};
}

cperf::Record from(const heap::HeapFree& f) {
  cperf::HeapFreeRecord r;
  r.id = id_of(f.pid, f.tid, f.time_ns);
  r.address = f.address;
  if (f.has_stack()) {
    r.regs = f.regs;
    r.stack.assign(f.stack.begin(), f.stack.end());
    r.walked_stack = (f.flags & heap::kFlagWalkedStack) != 0;
  }
  return r;
}

cperf::Record from(const heap::HeapAttach& at) {
  cperf::HeapAttachRecord r;
  r.id = id_of(at.pid, at.tid, at.time_ns);
  r.ppid = at.ppid;
  r.fork = at.how == heap::AttachHow::kFork;
  r.running = at.how == heap::AttachHow::kRunning;
  r.malloc_bypassed = at.malloc_bypassed;
  r.foreign_operator_new = at.foreign_operator_new;
  r.executable = std::string(at.exe);
  return r;
}

}  // namespace

sprof::perf::Record heap_record(const heap::HeapEvent& event) {
  return std::visit([](const auto& e) { return from(e); }, event);
}

}  // namespace sprof::recorder
