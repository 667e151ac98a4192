// sprof/perfdata/start_snapshot.hpp
//
// What perf record found running when it started: for a CPU-wide recording (-a) it reads /proc
// and writes a FORK, a COMM and the executable MMAPs of every task, all with time 0. A live
// system-wide recording reads /proc too, but only names and maps the processes that show up in
// its records (recorder's snapshot fallback). An import does the same with perf's snapshot: the
// converter gets these records' facts through `ProcAccess` when it meets a task, so processes
// that did nothing while recording do not crowd the profile.
#pragma once

#include <memory>

#include "sprof/convert/host.hpp"
#include "sprof/perf/records.hpp"

namespace sprof::perfdata {

class StartSnapshot {
 public:
  StartSnapshot();
  // Keeps what a COMM or an executable MMAP2 says; other records change nothing.
  void add(const sprof::perf::Record& record);
  // Answers from what was added; pid 0 (the idle task) is convert::kIdleProcessName.
  convert::ProcAccess proc_access() const;

 private:
  struct Data;
  std::shared_ptr<Data> data_;
};

}  // namespace sprof::perfdata
