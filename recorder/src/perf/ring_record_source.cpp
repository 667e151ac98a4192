#include "perf/ring_record_source.hpp"

namespace sprof::recorder::perf {

void RingRecordSource::drain_round() {
  for (const Ring& r : rings_) {
    r.ring->drain([this](convert::perf::RawRecord raw) { stream_.add(raw); });
  }
  for (RoundInput* input : inputs_) {
    input->read_round([this](convert::perf::Record&& r) { stream_.add_decoded(std::move(r)); });
  }
}

bool RingRecordSource::read_available(const convert::perf::RecordSink& sink) {
  drain_round();
  stream_.end_round(sink);
  return true;
}

void RingRecordSource::flush_all(const convert::perf::RecordSink& sink) {
  drain_round();
  stream_.flush(sink);
}

ReaderStats RingRecordSource::stats() const {
  const auto decoded = stream_.stats();
  ReaderStats s;
  s.records = decoded.records;
  s.malformed_records = decoded.malformed_records;
  s.skipped_records = decoded.skipped_records;
  s.late_records = decoded.late_records;
  for (const Ring& r : rings_) s.ring_corruptions += r.ring->corruptions();
  return s;
}

}  // namespace sprof::recorder::perf
