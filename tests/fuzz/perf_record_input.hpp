// tests/fuzz/perf_record_input.hpp
//
// The input of the perf-record fuzz target: a fixed head with the perf_event_attr fields that
// shape records (the parser's only other input), then records back to back as a ring buffer
// hands them out, each `header.size` bytes long. The seed writer builds inputs with it too.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace sprof::fuzz {

struct PerfRecordInputHead {
  uint64_t sample_type = 0;
  uint64_t read_format = 0;
  uint64_t sample_regs_user = 0;
  uint64_t sample_regs_intr = 0;
  uint64_t branch_sample_type = 0;
  uint64_t sample_id_all = 0;  // 0 or 1; a whole word keeps the head free of padding

  perf_event_attr attr() const {
    perf_event_attr a{};
    a.sample_type = sample_type;
    a.read_format = read_format;
    a.sample_regs_user = sample_regs_user;
    a.sample_regs_intr = sample_regs_intr;
    a.branch_sample_type = branch_sample_type;
    a.sample_id_all = sample_id_all & 1;
    return a;
  }
};

struct PerfRecordInput {
  PerfRecordInputHead head;
  std::vector<std::span<const uint8_t>> records;
};

// Splits `bytes`; false when they are shorter than the head. A record whose size field is below
// a header or past the end takes the rest of the input (a truncated record).
inline bool split_perf_record_input(std::span<const uint8_t> bytes, PerfRecordInput& out) {
  if (bytes.size() < sizeof out.head) return false;
  std::memcpy(&out.head, bytes.data(), sizeof out.head);
  bytes = bytes.subspan(sizeof out.head);
  out.records.clear();
  while (!bytes.empty()) {
    perf_event_header header{};
    size_t size = bytes.size();
    if (bytes.size() >= sizeof header) {
      std::memcpy(&header, bytes.data(), sizeof header);
      if (header.size >= sizeof header && header.size <= bytes.size()) size = header.size;
    }
    out.records.push_back(bytes.first(size));
    bytes = bytes.subspan(size);
  }
  return true;
}

// The inverse, for the seed writer.
inline std::vector<uint8_t> join_perf_record_input(
    const PerfRecordInputHead& head, const std::vector<std::vector<uint8_t>>& records) {
  std::vector<uint8_t> out(sizeof head);
  std::memcpy(out.data(), &head, sizeof head);
  for (const auto& r : records) out.insert(out.end(), r.begin(), r.end());
  return out;
}

}  // namespace sprof::fuzz
