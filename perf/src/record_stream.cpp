#include "sprof/perf/record_stream.hpp"

#include "sprof/core/log.hpp"

namespace sprof::perf {

RecordStream::RecordStream(EventTable events) : events_(std::move(events)) {
  for (size_t i = 0; i < events_.size(); ++i) {
    if (events_.event(i).spec.role == EventRole::kSwitchSideBand) switch_side_band_ = true;
  }
}

bool RecordStream::wanted_side_band_switch(const SwitchRecord& r) const {
  return r.out && (pids_.contains(r.next_prev_pid) || pids_.contains(r.id.pid));
}

void RecordStream::add(RawRecord raw, StackCopy stack) {
  if (switch_side_band_) {
    // A CPU-wide switch-in says nothing a per-task record does not; skip it unparsed.
    const perf_event_header h = raw.header();
    if (h.type == PERF_RECORD_SWITCH_CPU_WIDE && (h.misc & PERF_RECORD_MISC_SWITCH_OUT) == 0) {
      return;
    }
  }
  const EventTable::Event& event = events_.event_of(raw);
  if (event.spec.role == EventRole::kOther && raw.header().type == PERF_RECORD_SAMPLE) {
    ++stats_.other_event_samples;
    return;
  }
  auto rec = parse_record(raw, event.layout, stack);
  if (rec) {
    if (auto* sample = std::get_if<SampleRecord>(&*rec)) {
      if (event.spec.role == EventRole::kRuntime) {
        if (!sample->read_value) {
          ++stats_.malformed_records;
          log::debug("perf record skipped: a runtime count's sample without its count");
          return;
        }
        *rec = Record{RuntimeRecord{sample->id, *sample->read_value}};
      } else {
        sample->context_switch_sample = event.spec.role == EventRole::kContextSwitch;
      }
    }
    if (switch_side_band_) {
      const auto* sw = std::get_if<SwitchRecord>(&*rec);
      if (sw != nullptr && sw->cpu_wide) {
        if (!wanted_side_band_switch(*sw)) return;
      } else {
        const uint32_t pid = record_id(*rec).pid;
        if (pid != last_pid_) pids_.insert(pid);
        last_pid_ = pid;
        // A new process's first switch-in may come before any record of its own.
        if (const auto* fork = std::get_if<ForkRecord>(&*rec)) pids_.insert(fork->pid);
      }
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

void RecordStream::add_decoded(Record record) {
  ++stats_.records;
  merger_.add(std::move(record));
}

RecordStream::Stats RecordStream::stats() const {
  Stats s = stats_;
  s.late_records = merger_.late_records();
  return s;
}

}  // namespace sprof::perf
