#include "sprof/convert/record_source.hpp"

namespace sprof::convert {

RecordListSource::RecordListSource(std::vector<perf::Record> records) {
  for (auto& r : records) merger_.add(std::move(r));
}

bool RecordListSource::read_available(const perf::RecordSink& sink) {
  merger_.flush(sink);
  return false;
}

void RecordListSource::flush_all(const perf::RecordSink& sink) { merger_.flush(sink); }

}  // namespace sprof::convert
