// sprof/perf/sample_layout.hpp
//
// `SampleLayout` says which fields a PERF_RECORD_SAMPLE and the sample_id_all trailer of every
// other record contain. It is derived ONCE from the `perf_event_attr` that actually opened the
// event (never re-declared at the parse site), and is the parser's only input besides the bytes.
//
// Creating a layout fails (Errc::kUnsupported) for sample_type or read_format bits this parser
// does not know, so a record can never contain a field we would silently misread.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>

#include "sprof/core/result.hpp"

namespace sprof::perf {

class SampleLayout {
 public:
  // Every PERF_SAMPLE_* bit this parser can walk over (uapi <linux/perf_event.h>, kernel 6.1).
  static constexpr uint64_t kSupportedSampleType =
      PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_READ |
      PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
      PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_IDENTIFIER |
      PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_AUX |
      PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE |
      PERF_SAMPLE_WEIGHT_STRUCT;
  static constexpr uint64_t kSupportedReadFormat = PERF_FORMAT_TOTAL_TIME_ENABLED |
                                                   PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
                                                   PERF_FORMAT_GROUP | PERF_FORMAT_LOST;

  // Derives the layout from the attr passed to perf_event_open. Fails for unknown sample_type or
  // read_format bits and for PERF_SAMPLE_WEIGHT together with PERF_SAMPLE_WEIGHT_STRUCT (the
  // kernel rejects that combination too).
  static Result<SampleLayout> from_attr(const perf_event_attr& attr);

  bool has(uint64_t sample_bit) const { return (sample_type_ & sample_bit) != 0; }
  uint64_t sample_type() const { return sample_type_; }
  uint64_t read_format() const { return read_format_; }
  bool sample_id_all() const { return sample_id_all_; }
  uint64_t sample_regs_user() const { return sample_regs_user_; }
  uint32_t regs_user_count() const { return regs_user_count_; }
  uint32_t regs_intr_count() const { return regs_intr_count_; }
  // PERF_SAMPLE_BRANCH_HW_INDEX: the branch stack starts with a u64 hw_idx after `nr`.
  bool branch_hw_index() const { return branch_hw_index_; }

  // Bytes of the sample_id trailer that ends every non-sample record when sample_id_all is set
  // (0 otherwise): struct sample_id { {pid,tid} {time} {id} {stream_id} {cpu,res} {identifier} }.
  uint32_t sample_id_trailer_bytes() const { return trailer_bytes_; }
  // Bytes of one `struct read_format` in a sample (PERF_SAMPLE_READ) excluding the group's
  // variable part: for PERF_FORMAT_GROUP this is the fixed head and `read_group_entry_bytes` is
  // added per member.
  uint32_t read_fixed_bytes() const { return read_fixed_bytes_; }
  uint32_t read_group_entry_bytes() const { return read_group_entry_bytes_; }

 private:
  SampleLayout() = default;

  uint64_t sample_type_ = 0;
  uint64_t read_format_ = 0;
  uint64_t sample_regs_user_ = 0;
  uint32_t regs_user_count_ = 0;
  uint32_t regs_intr_count_ = 0;
  uint32_t trailer_bytes_ = 0;
  uint32_t read_fixed_bytes_ = 0;
  uint32_t read_group_entry_bytes_ = 0;
  bool sample_id_all_ = false;
  bool branch_hw_index_ = false;
};

}  // namespace sprof::perf
