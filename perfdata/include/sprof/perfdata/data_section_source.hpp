// sprof/perfdata/data_section_source.hpp
//
// A perf.data file's records as a `convert::RecordSource`. The data section is looked at in place
// when the source has its bytes in memory (a mapped file), else read in chunks (never whole: it
// can be gigabytes); the kernel's records are decoded by a `perf::RecordStream`
// with the layout of the event that wrote each, and perf's own records are used or skipped:
//   PERF_RECORD_FINISHED_ROUND   the round boundary of the merge (perf's promise that no record
//                                after it is older than one before the previous boundary);
//   PERF_RECORD_HEADER_BUILD_ID  build-ids (perf inject writes them here);
//   PERF_RECORD_THREAD_MAP       the threads perf record was asked to follow (-p, a command);
//   PERF_RECORD_AUXTRACE         skipped together with the AUX data that follows it;
//   the rest of perf's records (FINISHED_INIT, TIME_CONV, CPU_MAP, EVENT_UPDATE, ...) are not
//   needed and counted as unused; types perf does not define are counted as unknown. Both skipped.
// Each `read_available` emits one round. A file with rare round boundaries would make the merge
// hold everything in memory; after `max_round_bytes` of records a round is ended early (counted:
// records that then arrive older than what was emitted go out of order, as `late_records`).
//
// A record whose size is impossible (smaller than its header, or past the end of the section)
// ends the reading there: nothing after it can be found. What was lost is said in `stats`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sprof/convert/record_source.hpp"
#include "sprof/perf/record_stream.hpp"
#include "sprof/perfdata/byte_source.hpp"
#include "sprof/perfdata/file_header.hpp"
#include "sprof/perfdata/recorded_build_ids.hpp"

namespace sprof::perfdata {

class DataSectionSource final : public convert::RecordSource {
 public:
  struct Options {
    size_t chunk_bytes = 4u << 20;
    uint64_t max_round_bytes = 256ull << 20;
  };
  struct Stats {
    uint64_t finished_rounds = 0;
    uint64_t forced_rounds = 0;  // rounds ended early (max_round_bytes)
    // perf's own records sprof does not need, by type.
    std::map<uint32_t, uint64_t> unused_by_type;
    // Record types (64 and up) perf does not define: a newer perf, or corrupt data. By type.
    std::map<uint32_t, uint64_t> unknown_by_type;
    uint64_t compressed_records = 0;  // PERF_RECORD_COMPRESSED (perf record -z): not decoded
    // Why reading stopped before the end of the data section, and how many bytes were left.
    std::optional<std::string> stopped;
    uint64_t unread_bytes = 0;
  };

  // What perf's own records said, beside the kernel's records.
  struct SideRecords {
    std::vector<RecordedBuildId> build_ids;  // PERF_RECORD_HEADER_BUILD_ID entries
    // PERF_RECORD_THREAD_MAP's pids (-1: every task, i.e. a CPU-wide recording), when one came.
    std::optional<std::vector<int64_t>> thread_map;
  };

  // `events` knows every event's ids (the attrs section's; PERF_RECORD_ID_INDEX adds none: its
  // `idx` numbers perf's ring buffers, not events).
  DataSectionSource(ByteSource& bytes, FileSection data, sprof::perf::EventTable events,
                    Options options);

  bool read_available(const sprof::perf::RecordSink& sink) override;
  void flush_all(const sprof::perf::RecordSink& sink) override;

  // The side records read since the last call. Whoever applies them does so before handling the
  // records of the same `read_available`, so it sees them in the order reading met them (the
  // records a round emits were read before its side records, or in the round before). The
  // source keeps no shared state, so it can read on a thread of its own (RoundReader).
  SideRecords take_side_records();
  const Stats& stats() const { return stats_; }
  sprof::perf::RecordStream::Stats stream_stats() const { return stream_.stats(); }
  const sprof::perf::EventTable& events() const { return stream_.events(); }

 private:
  // Makes `n` bytes available at the cursor; false at the end of the section or on a read error.
  bool ensure(size_t n);
  void stop(uint64_t at, std::string why);
  // Handles one of perf's own records (types >= 64); true when it ends a round.
  bool on_user_record(std::span<const uint8_t> record, uint32_t type);
  void skip_aux_data(uint64_t payload_bytes);
  uint64_t position() const { return buffer_offset_ + cursor_; }

  ByteSource& bytes_;
  FileSection data_;
  sprof::perf::RecordStream stream_;
  Options options_;
  // The section's bytes at hand: the source's own (in memory: all of them) or a chunk read into
  // `buffer_`.
  std::vector<uint8_t> buffer_;
  const uint8_t* window_ = nullptr;
  bool in_place_ = false;
  uint64_t buffer_offset_ = 0;  // file offset of window_[0]
  size_t filled_ = 0;           // valid bytes at window_
  size_t cursor_ = 0;           // next record in window_
  uint64_t round_bytes_ = 0;
  bool done_ = false;
  SideRecords side_;
  Stats stats_;
};

}  // namespace sprof::perfdata
