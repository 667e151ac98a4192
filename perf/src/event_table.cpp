#include "sprof/perf/event_table.hpp"

#include <bit>
#include <cstring>

#include "sprof/perf/event_attr.hpp"

namespace sprof::perf {

namespace {

// The id's offset in a sample body: PERF_SAMPLE_IDENTIFIER comes first; PERF_SAMPLE_ID after
// ip, {pid, tid}, time and addr (uapi comment on PERF_RECORD_SAMPLE).
std::optional<size_t> sample_id_offset(const SampleLayout& l) {
  if (l.has(PERF_SAMPLE_IDENTIFIER)) return 0;
  if (!l.has(PERF_SAMPLE_ID)) return std::nullopt;
  const uint64_t before =
      l.sample_type() & (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR);
  return 8 * static_cast<size_t>(std::popcount(before));
}

// The id's distance from the end of a non-sample record: the sample_id trailer ends with
// {id}, {stream_id}, {cpu, res}, {identifier} (uapi `struct sample_id`).
std::optional<size_t> trailer_id_from_end(const SampleLayout& l) {
  if (!l.sample_id_all()) return std::nullopt;
  if (l.has(PERF_SAMPLE_IDENTIFIER)) return 8;
  if (!l.has(PERF_SAMPLE_ID)) return std::nullopt;
  const uint64_t after = l.sample_type() & (PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU);
  return 8 + 8 * static_cast<size_t>(std::popcount(after));
}

}  // namespace

Result<EventTable> EventTable::create(const std::vector<EventSpec>& specs) {
  if (specs.empty()) return fail(Errc::kInvalidArgument, "event table: no events");
  std::vector<Event> events;
  for (const auto& spec : specs) {
    SPROF_TRY(SampleLayout layout, SampleLayout::from_attr(spec.attr));
    events.push_back(Event{spec, layout});
  }
  EventTable table(std::move(events));
  table.sample_id_offset_ = sample_id_offset(table.events_[0].layout);
  table.trailer_id_from_end_ = trailer_id_from_end(table.events_[0].layout);
  for (const Event& e : table.events_) {
    if (sample_id_offset(e.layout) != table.sample_id_offset_ ||
        trailer_id_from_end(e.layout) != table.trailer_id_from_end_) {
      return fail(Errc::kUnsupported, "event table: events carry their ids in different places (" +
                                          event_name(e.spec.attr) + ")");
    }
  }
  return table;
}

void EventTable::add_id(uint64_t id, size_t index) { by_id_[id] = index; }

const EventTable::Event& EventTable::event_of(RawRecord raw) const {
  const Event& fallback = events_.front();
  if (by_id_.empty()) return fallback;
  const perf_event_header h = raw.header();
  std::optional<size_t> at;
  if (h.type == PERF_RECORD_SAMPLE) {
    if (sample_id_offset_) at = sizeof h + *sample_id_offset_;
  } else if (trailer_id_from_end_ && raw.bytes.size() >= sizeof h + *trailer_id_from_end_) {
    at = raw.bytes.size() - *trailer_id_from_end_;
  }
  if (!at || *at + sizeof(uint64_t) > raw.bytes.size()) return fallback;
  uint64_t id = 0;
  std::memcpy(&id, raw.bytes.data() + *at, sizeof id);
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? fallback : events_[it->second];
}

std::vector<EventSpec> EventTable::specs() const {
  std::vector<EventSpec> out;
  for (const Event& e : events_) out.push_back(e.spec);
  return out;
}

}  // namespace sprof::perf
