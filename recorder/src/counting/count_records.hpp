// recorder/src/counting/count_records.hpp
//
// The bytes a counting event gives back, decoded: what read(2) returns for one counter, and the
// records its ring holds (PERF_RECORD_READ: an exited thread's own final count; PERF_RECORD_COMM:
// a thread's name; PERF_RECORD_FORK: who created it; PERF_RECORD_LOST). Pure, so tests feed it
// bytes.
//
// Every counter is opened with `kCountReadFormat` and without PERF_FORMAT_GROUP: the kernel
// writes an exiting thread's READ record after it has detached the thread's counter from its
// group, so a group read there would list the leader alone. Read one by one, each counter's
// record is whole. The id is the counter's as opened (PERF_EVENT_IOC_ID): the kernel writes the
// id of the counter a thread's inherited copy came from (primary_event_id), which tells which
// counter, CPU and attached task the count belongs to. Without sample_id_all the records end
// after these fields.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "sprof/recorder/counting.hpp"

namespace sprof::recorder::counting {

// { u64 value; u64 time_enabled; u64 time_running; u64 id; } (struct read_format in
// include/uapi/linux/perf_event.h, without PERF_FORMAT_GROUP or PERF_FORMAT_LOST).
inline constexpr uint64_t kCountReadFormat =
    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
inline constexpr size_t kCountReadBytes = 4 * sizeof(uint64_t);

struct IdentifiedReading {
  uint64_t id = 0;
  CounterReading reading;
};

// What read(2) of one counter returned; nullopt when it is shorter than kCountReadBytes.
std::optional<IdentifiedReading> parse_counter_read(std::span<const uint8_t> bytes);

struct ThreadExitCount {  // PERF_RECORD_READ
  int pid = 0;
  int tid = 0;
  IdentifiedReading count;
};
struct ThreadName {  // PERF_RECORD_COMM
  int pid = 0;
  int tid = 0;
  std::string name;
};
struct ThreadCreated {  // PERF_RECORD_FORK: a thread or process, and the thread that created it
  int pid = 0;
  int tid = 0;
  int parent_tid = 0;  // ptid
};
struct LostRecords {  // PERF_RECORD_LOST
  uint64_t lost = 0;
};
struct MalformedRecord {};
struct OtherRecord {};  // a record type counting does not ask for (skipped)

using CountRecord = std::variant<ThreadExitCount, ThreadName, ThreadCreated, LostRecords,
                                 MalformedRecord, OtherRecord>;

// One counter of one task, from its per-CPU copies: each copy is enabled for all of the task's
// time but runs only while the task is on its CPU, so the values and running times add up and
// the enabled time is the one they share (the largest, where they were enabled a moment apart).
// Scaled by enabled / running, the result is then multiplexing's correction only, as for a
// counter that follows the task on every CPU.
CounterReading across_cpus(const std::vector<CounterReading>& per_cpu);

// Decodes one whole record (header included) of a counting event's ring.
CountRecord parse_count_record(std::span<const uint8_t> bytes);

}  // namespace sprof::recorder::counting
