#include "sprof/convert/perf/record_stream.hpp"

#include "sprof/core/log.hpp"

namespace sprof::convert::perf {

void RecordStream::add(RawRecord raw) {
  const EventTable::Event& event = events_.event_of(raw);
  auto rec = parse_record(raw, event.layout);
  if (rec) {
    if (auto* sample = std::get_if<SampleRecord>(&*rec)) {
      sample->context_switch_sample = event.spec.role == EventRole::kContextSwitch;
    }
    ++stats_.records;
    merger_.add(std::move(*rec));
  } else if (is_skipped_record(rec.error())) {
    ++stats_.skipped_records;
  } else {
    ++stats_.malformed_records;
    log::debug("perf record skipped: " + rec.error().message);
  }
}

RecordStream::Stats RecordStream::stats() const {
  Stats s = stats_;
  s.late_records = merger_.late_records();
  return s;
}

}  // namespace sprof::convert::perf
