#include "sprof/perf/sample_layout.hpp"

#include <bit>
#include <cstdio>

namespace sprof::perf {

namespace {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

Result<SampleLayout> SampleLayout::from_attr(const perf_event_attr& attr) {
  if (const uint64_t unknown = attr.sample_type & ~kSupportedSampleType; unknown != 0) {
    return fail(Errc::kUnsupported, "sample layout: unsupported sample_type bits " + hex(unknown));
  }
  if ((attr.sample_type & PERF_SAMPLE_WEIGHT) && (attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT)) {
    return fail(Errc::kUnsupported,
                "sample layout: PERF_SAMPLE_WEIGHT and PERF_SAMPLE_WEIGHT_STRUCT are exclusive");
  }
  if ((attr.sample_type & PERF_SAMPLE_READ) != 0) {
    if (const uint64_t unknown = attr.read_format & ~kSupportedReadFormat; unknown != 0) {
      return fail(Errc::kUnsupported,
                  "sample layout: unsupported read_format bits " + hex(unknown));
    }
  }

  SampleLayout l;
  l.sample_type_ = attr.sample_type;
  l.read_format_ = attr.read_format;
  l.sample_id_all_ = attr.sample_id_all != 0;
  if (l.has(PERF_SAMPLE_REGS_USER)) {
    l.sample_regs_user_ = attr.sample_regs_user;
    l.regs_user_count_ = static_cast<uint32_t>(std::popcount(attr.sample_regs_user));
  }
  if (l.has(PERF_SAMPLE_REGS_INTR)) {
    l.regs_intr_count_ = static_cast<uint32_t>(std::popcount(attr.sample_regs_intr));
  }
  l.branch_hw_index_ = l.has(PERF_SAMPLE_BRANCH_STACK) &&
                       (attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) != 0;

  // struct sample_id (uapi, "sample_id_all"): pid/tid, time, id, stream_id, cpu/res,
  // identifier — each present only when the same bit is set in sample_type.
  if (l.sample_id_all_) {
    uint32_t bytes = 0;
    for (uint64_t bit : {PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
                         PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER}) {
      if (l.has(bit)) bytes += 8;
    }
    l.trailer_bytes_ = bytes;
  }

  // struct read_format (uapi): without PERF_FORMAT_GROUP { value, [time_enabled],
  // [time_running], [id], [lost] }; with it { nr, [time_enabled], [time_running],
  // { value, [id], [lost] } cntr[nr] }.
  const uint64_t rf = attr.read_format;
  const uint32_t times = ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 8u : 0u) +
                         ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 8u : 0u);
  const uint32_t per_value =
      8u + ((rf & PERF_FORMAT_ID) ? 8u : 0u) + ((rf & PERF_FORMAT_LOST) ? 8u : 0u);
  if (rf & PERF_FORMAT_GROUP) {
    l.read_fixed_bytes_ = 8 + times;
    l.read_group_entry_bytes_ = per_value;
  } else {
    l.read_fixed_bytes_ = times + per_value;
    l.read_group_entry_bytes_ = 0;
  }
  return l;
}

}  // namespace sprof::perf
