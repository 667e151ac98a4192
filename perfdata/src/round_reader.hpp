// perfdata/src/round_reader.hpp (private to sprof::perfdata)
//
// Reads a DataSectionSource on a thread of its own, a few rounds ahead of the caller, which
// converts what was read before. Reading a perf.data file is half the work of an import (the
// first touch of each mapped page, the record parsing, the merge by time) and converting is the
// other half (unwinding, the profile's tables), so the two overlap on two CPUs. perf script does
// both on one thread.
//
// Each round is what one `read_available` emitted plus the side records read meanwhile
// (DataSectionSource::take_side_records); the caller applies the side records first, so it sees
// everything in the order a single thread would. The records borrow their stack bytes from the
// source's mapped file, which outlives the import. What reading throws is rethrown by `next`.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "sprof/perf/records.hpp"
#include "sprof/perfdata/data_section_source.hpp"

namespace sprof::perfdata {

class RoundReader {
 public:
  struct Round {
    DataSectionSource::SideRecords side;  // to apply before `records`
    std::vector<sprof::perf::Record> records;
  };

  // Starts reading `source` at once. Rounds are handed over in batches of at least
  // `batch_records` records (perf ends a round every few dozen samples: a hand-over each would
  // cost more than it saves); at most `batches_ahead` batches wait for the caller, so memory
  // stays bounded when converting is the slower half.
  explicit RoundReader(DataSectionSource& source, size_t batch_records = 4096,
                       size_t batches_ahead = 2);
  // Stops reading (the source is left part-read) and waits for the thread.
  ~RoundReader();
  RoundReader(const RoundReader&) = delete;
  RoundReader& operator=(const RoundReader&) = delete;

  // The next rounds in order, waiting for them; empty once the source is done.
  std::vector<Round> next();

 private:
  void read_all();
  // Hands `batch` over, waiting while the caller is `batches_ahead_` behind; false: stop.
  bool hand_over(std::vector<Round>& batch);

  DataSectionSource& source_;
  const size_t batch_records_;
  const size_t batches_ahead_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::vector<Round>> ready_;
  bool finished_ = false;  // the reading thread emitted its last round
  bool stopping_ = false;  // the caller is gone
  std::exception_ptr failure_;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace sprof::perfdata
