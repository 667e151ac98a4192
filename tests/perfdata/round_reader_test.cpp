// Reading a perf.data data section on a thread of its own (RoundReader): the caller gets the
// same records and side records in the same order as reading on its own thread, can stop early,
// and sees what reading threw.
#include "round_reader.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

#include "perf_data_fixture.hpp"
#include "sprof/perfdata/perf_data_file.hpp"

using namespace sprof;
using namespace sprof::perfdata;
using test::PerfDataWriter;

namespace {

// Ten rounds of three samples; a build-id record and the thread map arrive in round 4.
std::vector<uint8_t> ten_rounds() {
  PerfDataWriter w;
  w.add_event(test::cpu_clock_attr(), {});
  uint64_t time = 100;
  for (int round = 0; round < 10; ++round) {
    if (round == 4) {
      w.thread_map({4242});
      w.add_record(PerfDataWriter::build_id_entry(PerfDataWriter::kHeaderBuildId, "/usr/bin/app",
                                                  *BuildId::from_hex("00112233"), false));
    }
    for (int i = 0; i < 3; ++i)
      w.add_record(test::sample_bytes(7, 7, time++, {test::kContextUser, 0x1}));
    w.finished_round();
  }
  return w.file_bytes();
}

// A byte source that fails the way a bug or an allocation would: by throwing.
class ThrowingBytes final : public ByteSource {
 public:
  explicit ThrowingBytes(std::span<const uint8_t> bytes) : memory_(bytes, "test.data") {}
  uint64_t size() const override { return memory_.size(); }
  Result<void> read(uint64_t offset, std::span<uint8_t> out) override {
    if (offset >= data_offset) throw std::runtime_error("read failed hard");
    return memory_.read(offset, out);
  }
  std::string name() const override { return memory_.name(); }
  uint64_t data_offset = UINT64_MAX;

 private:
  MemoryBytes memory_;
};

perf::EventTable table_for(const PerfDataFile& file) {
  std::vector<perf::EventSpec> specs;
  for (const auto& e : file.events) specs.push_back({e.attr, perf::EventRole::kSampling});
  auto table = perf::EventTable::create(specs);
  REQUIRE(table.has_value());
  for (size_t i = 0; i < file.events.size(); ++i) {
    for (uint64_t id : file.events[i].ids) table->add_id(id, i);
  }
  return std::move(*table);
}

}  // namespace

TEST_CASE("a round reader hands over every record and side record in reading order") {
  const auto bytes = ten_rounds();
  MemoryBytes memory(bytes, "test.data");
  auto file = open_perf_data(memory);
  REQUIRE(file.has_value());
  // One round per hand-over, several, and everything in one batch.
  for (const size_t batch_records : {size_t{1}, size_t{5}, size_t{4096}}) {
    CAPTURE(batch_records);
    DataSectionSource source(memory, file->header.data, table_for(*file), {});
    RoundReader reader(source, batch_records, 1);
    std::vector<uint64_t> times;
    size_t batches = 0;
    std::optional<size_t> build_id_before;  // records handed over before the build-id
    std::vector<int64_t> thread_map;
    for (auto batch = reader.next(); !batch.empty(); batch = reader.next()) {
      ++batches;
      for (RoundReader::Round& round : batch) {
        if (!round.side.build_ids.empty()) {
          CHECK_FALSE(build_id_before.has_value());
          CHECK(round.side.build_ids.front().path == "/usr/bin/app");
          build_id_before = times.size();
        }
        if (round.side.thread_map) thread_map = *round.side.thread_map;
        for (const perf::Record& r : round.records) {
          times.push_back(std::get<perf::SampleRecord>(r).id.time);
        }
      }
    }
    REQUIRE(times.size() == 30);
    for (size_t i = 0; i < times.size(); ++i) CHECK(times[i] == 100 + i);
    CHECK(thread_map == std::vector<int64_t>{4242});
    // Read in round 4, before the merge emitted that round's samples: as a single thread sees it.
    REQUIRE(build_id_before.has_value());
    CHECK(*build_id_before <= 12);
    // The merge emits a round's records one round late: the first of the 11 reads emits none, so
    // 10 batches of 3 records, 5 of 6, or one of all 30.
    CHECK(batches == (batch_records == 1 ? 10u : batch_records == 5 ? 5u : 1u));
    CHECK(reader.next().empty());  // done stays done
  }
}

TEST_CASE("a round reader stops reading when its caller leaves early") {
  const auto bytes = ten_rounds();
  MemoryBytes memory(bytes, "test.data");
  auto file = open_perf_data(memory);
  REQUIRE(file.has_value());
  DataSectionSource source(memory, file->header.data, table_for(*file), {});
  {
    RoundReader reader(source, 1, 1);
    CHECK_FALSE(reader.next().empty());
  }  // the reading thread is blocked handing over the next batch: the destructor must end it
  CHECK(source.stats().finished_rounds < 10);
}

TEST_CASE("a round reader passes what reading threw to its caller") {
  const auto bytes = ten_rounds();
  ThrowingBytes throwing(bytes);
  auto file = open_perf_data(throwing);
  REQUIRE(file.has_value());
  throwing.data_offset = file->header.data.offset;  // the header reads fine, the records do not
  DataSectionSource source(throwing, file->header.data, table_for(*file), {});
  RoundReader reader(source);
  CHECK_THROWS_WITH(reader.next(), "read failed hard");
  CHECK(reader.next().empty());
}
