// tests/perfdata/perf_data_fixture.hpp
//
// Small perf.data files built in memory for the perfdata tests: the event perf 6.1 records by
// default (`perf record -g`: cpu-clock at 4000 Hz, sample_type IP|TID|TIME|CALLCHAIN|PERIOD,
// sample_id_all), written by tests/support/perf_data_writer.hpp with records from
// record_builder.hpp.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <vector>

#include "perf_data_writer.hpp"
#include "record_builder.hpp"
#include "synthetic_records.hpp"

namespace sprof::test {

inline constexpr uint64_t kPerfSampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                            PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD;

inline perf_event_attr cpu_clock_attr(uint64_t sample_type = kPerfSampleType) {
  perf_event_attr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.freq = 1;
  a.sample_freq = 4000;
  a.sample_type = sample_type;
  a.sample_id_all = 1;
  a.mmap = a.comm = a.task = a.mmap2 = a.comm_exec = 1;
  return a;
}

inline const perf::SampleLayout& default_layout() {
  static const perf::SampleLayout layout = *perf::SampleLayout::from_attr(cpu_clock_attr());
  return layout;
}

inline std::vector<uint8_t> sample_bytes(uint32_t pid, uint32_t tid, uint64_t ns,
                                         std::vector<uint64_t> callchain,
                                         const perf::SampleLayout& layout = default_layout(),
                                         uint64_t event_id = kFiller) {
  SampleSpec spec;
  spec.record = sample_record(pid, tid, ns, std::move(callchain), 250'000);
  spec.record.ip = spec.record.callchain.empty() ? 0 : spec.record.callchain.back();
  return RecordBuilder(layout, event_id).sample(spec);
}

inline perf::Mmap2Record mmap2(uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
                               std::string path, uint64_t ns) {
  perf::Mmap2Record m;
  m.id = sample_id(pid, pid, ns);
  m.pid = m.tid = pid;
  m.addr = addr;
  m.len = len;
  m.pgoff = pgoff;
  m.prot = 5;  // PROT_READ | PROT_EXEC
  m.filename = std::move(path);
  return m;
}

}  // namespace sprof::test
