// sprof/convert/record_source.hpp
//
// Where the converter's records come from. The live ring buffers of a recording
// (recorder::PerfEvents), a recorded file and a test's list of records are all a `RecordSource`:
// each hands out typed records (perf/records.hpp) in time order through a sink, in as many steps
// as it likes, and the converter takes them the same way whatever the source
// (`ProfileConverter::consume`, or `consume_all` for a source that ends by itself). How the
// records were made travels beside them, in a `SourceDescription` (source_description.hpp).
//
// A source that holds raw record bytes decodes and orders them with a `perf::RecordStream`.
#pragma once

#include <vector>

#include "sprof/perf/record_merger.hpp"
#include "sprof/perf/records.hpp"

namespace sprof::convert {

class RecordSource {
 public:
  virtual ~RecordSource() = default;

  // Emits, in time order, the records that are ready now. Returns false once the source has
  // emitted everything it will ever have (a file read to its end, a list); a live source cannot
  // know that and returns true: whoever runs it decides when recording ends and calls
  // `flush_all`.
  virtual bool read_available(const perf::RecordSink& sink) = 0;
  // Emits everything still held back, in time order (the end of the recording).
  virtual void flush_all(const perf::RecordSink& sink) = 0;
};

// Typed records made by the caller (tests build scenarios this way). They go through the same
// merge as decoded records, so they come out in time order (equal times keep their list order),
// all at the first read.
class RecordListSource final : public RecordSource {
 public:
  explicit RecordListSource(std::vector<perf::Record> records);
  bool read_available(const perf::RecordSink& sink) override;
  void flush_all(const perf::RecordSink& sink) override;

 private:
  perf::RecordMerger merger_;
};

}  // namespace sprof::convert
