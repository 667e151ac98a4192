// tests/support/synthetic_records.hpp
//
// Builders for the typed perf records the converter consumes, so converter tests describe
// scenarios ("thread 11 of process 10 exits at t") instead of filling structs. Times are
// CLOCK_MONOTONIC nanoseconds; tests convert from their own unit.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sprof/perf/records.hpp"

namespace sprof::test {

// perf callchain context markers (PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER).
inline constexpr uint64_t kContextKernel = static_cast<uint64_t>(-128);
inline constexpr uint64_t kContextUser = static_cast<uint64_t>(-512);

inline sprof::perf::SampleId sample_id(uint32_t pid, uint32_t tid, uint64_t ns) {
  return sprof::perf::SampleId{pid, tid, ns, 0};
}

inline sprof::perf::CommRecord comm_record(uint32_t pid, uint32_t tid, std::string comm, bool exec,
                                           uint64_t ns) {
  sprof::perf::CommRecord c;
  c.id = sample_id(pid, tid, ns);
  c.pid = pid;
  c.tid = tid;
  c.exec = exec;
  c.comm = std::move(comm);
  return c;
}

inline sprof::perf::SampleRecord sample_record(uint32_t pid, uint32_t tid, uint64_t ns,
                                               std::vector<uint64_t> callchain, uint64_t period) {
  sprof::perf::SampleRecord s;
  s.id = sample_id(pid, tid, ns);
  s.period = period;
  s.callchain = std::move(callchain);
  return s;
}

inline sprof::perf::ForkRecord fork_record(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
                                           uint64_t ns) {
  sprof::perf::ForkRecord f;
  // The kernel writes FORK in the context of the forking (parent) thread, whose ids the
  // sample_id trailer carries.
  f.id = sample_id(ppid, ptid, ns);
  f.pid = pid;
  f.ppid = ppid;
  f.tid = tid;
  f.ptid = ptid;
  f.time = ns;
  return f;
}

inline sprof::perf::ExitRecord exit_record(uint32_t pid, uint32_t tid, uint64_t ns) {
  sprof::perf::ExitRecord e;
  e.id = sample_id(pid, tid, ns);
  e.pid = e.ppid = pid;
  e.tid = e.ptid = tid;
  e.time = ns;
  return e;
}

}  // namespace sprof::test
