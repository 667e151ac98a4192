// sprof/perf/event_table.hpp
//
// The events whose records one source holds, and which of them wrote each record. Every event
// has its own `SampleLayout`, derived from its attr, so records of events with different
// sample_types (a perf.data file with several events) each decode with the right one.
//
// A record names its event by id: PERF_SAMPLE_IDENTIFIER (the first u64 of a sample, the last of a
// non-sample record's sample_id trailer) or PERF_SAMPLE_ID at the place the layout puts it. Ids
// are mapped to events with `add_id` (perf_event_open's PERF_EVENT_IOC_ID, or a file's id
// table). A record without an id, or with an id the table does not know, belongs to the first
// event; a source with one event needs no ids at all. This is how perf's own reader attributes
// records, and like perf the table requires every event to carry its id in the same place.
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/perf/record_parser.hpp"
#include "sprof/perf/sample_layout.hpp"

namespace sprof::perf {

// What an event's samples mean to the converter.
enum class EventRole : uint8_t {
  kSampling,       // periodic samples: where threads run
  kContextSwitch,  // one sample per switch-out: the stack a thread blocks with (off-CPU)
  // CPU-wide switch records next to per-task ones, for the pick time of each switch-in
  // (cpu_accounting.hpp); no samples.
  kSwitchSideBand,
  // The scheduler's count of CPU time per thread and CPU (sched_stat_runtime, counting
  // nanoseconds): its samples carry the count (PERF_SAMPLE_READ) and become RuntimeRecords.
  kRuntime,
  // An event whose samples sprof does not convert (a recorded file's page-faults or tracepoint
  // event beside its clock, perf's side-band "dummy"): its samples are counted and skipped, its
  // other records (COMM, MMAP, SWITCH, ...) are used like any other.
  kOther,
};

struct EventSpec {
  perf_event_attr attr{};
  EventRole role = EventRole::kSampling;
};

class EventTable {
 public:
  struct Event {
    EventSpec spec;
    SampleLayout layout;
  };

  // `specs[0]` is the default event. Errc::kInvalidArgument without events; kUnsupported when
  // an attr has no layout the parser can walk, or when events disagree on where records carry
  // their id (their records could not be told apart).
  static Result<EventTable> create(const std::vector<EventSpec>& specs);

  // Records carrying `id` were written by `event(index)`.
  void add_id(uint64_t id, size_t index);

  // The event that wrote `raw` (the default event when the record says nothing usable).
  const Event& event_of(RawRecord raw) const;
  const Event& event(size_t index) const { return events_[index]; }
  size_t size() const { return events_.size(); }
  std::vector<EventSpec> specs() const;

 private:
  explicit EventTable(std::vector<Event> events) : events_(std::move(events)) {}

  std::vector<Event> events_;
  std::unordered_map<uint64_t, size_t> by_id_;
  // Where every event's records carry the id: its byte offset in a sample's body, and its
  // distance from the end of other records (in their sample_id trailer); nullopt: nowhere.
  std::optional<size_t> sample_id_offset_;
  std::optional<size_t> trailer_id_from_end_;
};

}  // namespace sprof::perf
