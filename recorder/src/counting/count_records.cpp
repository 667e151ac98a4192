#include "counting/count_records.hpp"

#include <algorithm>

#include "sprof/core/byte_reader.hpp"

namespace sprof::recorder::counting {

namespace {

bool read_counter(ByteReader& in, IdentifiedReading& out) {
  out.reading.value = in.u64();
  out.reading.time_enabled_ns = in.u64();
  out.reading.time_running_ns = in.u64();
  out.id = in.u64();
  return in.ok();
}

}  // namespace

std::optional<IdentifiedReading> parse_counter_read(std::span<const uint8_t> bytes) {
  ByteReader in(bytes);
  IdentifiedReading r;
  if (!read_counter(in, r)) return std::nullopt;
  return r;
}

CounterReading across_cpus(const std::vector<CounterReading>& per_cpu) {
  CounterReading sum;
  for (const auto& r : per_cpu) {
    sum.value += r.value;
    sum.time_running_ns += r.time_running_ns;
    sum.time_enabled_ns = std::max(sum.time_enabled_ns, r.time_enabled_ns);
  }
  return sum;
}

CountRecord parse_count_record(std::span<const uint8_t> bytes) {
  ByteReader in(bytes);
  perf_event_header header{};
  if (!in.read(header) || header.size > bytes.size() || header.size < sizeof header) {
    return MalformedRecord{};
  }
  // Only this record's bytes: a record never reads into the next.
  ByteReader body(bytes.subspan(sizeof header, header.size - sizeof header));
  switch (header.type) {
    case PERF_RECORD_READ: {
      ThreadExitCount r;
      r.pid = static_cast<int>(body.u32());
      r.tid = static_cast<int>(body.u32());
      if (!read_counter(body, r.count)) return MalformedRecord{};
      return r;
    }
    case PERF_RECORD_COMM: {
      ThreadName r;
      r.pid = static_cast<int>(body.u32());
      r.tid = static_cast<int>(body.u32());
      if (!body.ok()) return MalformedRecord{};
      r.name = std::string(body.padded_string(body.remaining()));
      return r;
    }
    case PERF_RECORD_FORK: {
      ThreadCreated r;
      r.pid = static_cast<int>(body.u32());
      body.u32();  // ppid
      r.tid = static_cast<int>(body.u32());
      r.parent_tid = static_cast<int>(body.u32());
      if (!body.ok()) return MalformedRecord{};
      return r;
    }
    case PERF_RECORD_LOST: {
      body.u64();  // id
      LostRecords r{body.u64()};
      if (!body.ok()) return MalformedRecord{};
      return r;
    }
    default: return OtherRecord{};
  }
}

}  // namespace sprof::recorder::counting
