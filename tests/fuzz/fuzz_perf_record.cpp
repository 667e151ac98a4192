// Fuzz target: perf records as the kernel writes them into the ring buffer
// (perf::parse_record), under any layout a perf_event_attr can give.
#include "perf_record_input.hpp"
#include "sprof/perf/record_parser.hpp"

namespace perf = sprof::perf;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sprof::fuzz::PerfRecordInput input;
  if (!sprof::fuzz::split_perf_record_input({data, size}, input)) return 0;
  perf_event_attr attr = input.head.attr();
  // Bits the layout refuses would only make the input uninteresting.
  attr.sample_type &= perf::SampleLayout::kSupportedSampleType;
  attr.read_format &= perf::SampleLayout::kSupportedReadFormat;
  const auto layout = perf::SampleLayout::from_attr(attr);
  if (!layout) return 0;
  for (const auto record : input.records) {
    const auto parsed = perf::parse_record(perf::RawRecord{record}, *layout);
    (void)parsed;
  }
  return 0;
}
