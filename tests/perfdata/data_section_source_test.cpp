// The data section as a record source: decoding with each event's layout, perf's round
// boundaries, perf's own records, and where reading must stop.
#include "sprof/perfdata/data_section_source.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include "perf_data_fixture.hpp"
#include "read_only_bytes.hpp"
#include "sprof/perfdata/perf_data_file.hpp"
#include "temp_dir.hpp"

using namespace sprof;
using namespace sprof::perfdata;
using test::PerfDataWriter;

namespace {

enum class Access { kInPlace, kChunked };

struct Read {
  std::vector<perf::Record> records;
  size_t reads = 0;  // read_available calls that said more would come
  DataSectionSource::Stats stats;
  perf::RecordStream::Stats stream;
  RecordedBuildIds build_ids;
  std::vector<int64_t> thread_map;
};

Read read_all(const std::vector<uint8_t>& bytes, std::vector<perf::EventSpec> specs = {},
              DataSectionSource::Options options = {}, Access access = Access::kInPlace) {
  MemoryBytes memory(bytes, "test.data");
  test::ReadOnlyBytes copied(bytes, "test.data");
  ByteSource& source = access == Access::kInPlace ? static_cast<ByteSource&>(memory) : copied;
  auto file = open_perf_data(source);
  REQUIRE_MESSAGE(file.has_value(), (file ? "" : file.error().message));
  if (specs.empty()) {
    for (const auto& e : file->events) specs.push_back({e.attr, perf::EventRole::kSampling});
  }
  auto table = perf::EventTable::create(specs);
  REQUIRE(table.has_value());
  for (size_t i = 0; i < file->events.size(); ++i) {
    for (uint64_t id : file->events[i].ids) table->add_id(id, i);
  }
  Read out;
  DataSectionSource data(source, file->header.data, std::move(*table), options);
  const perf::RecordSink sink = [&](perf::Record&& r) { out.records.push_back(std::move(r)); };
  const auto take_side_records = [&] {
    DataSectionSource::SideRecords side = data.take_side_records();
    for (auto& entry : side.build_ids) out.build_ids.add(std::move(entry));
    if (side.thread_map) out.thread_map = std::move(*side.thread_map);
  };
  while (data.read_available(sink)) {
    ++out.reads;
    take_side_records();
  }
  data.flush_all(sink);
  take_side_records();
  out.stats = data.stats();
  out.stream = data.stream_stats();
  return out;
}

uint64_t sample_time(const perf::Record& r) { return std::get<perf::SampleRecord>(r).id.time; }

}  // namespace

TEST_CASE("records come out in time order, one round per FINISHED_ROUND") {
  PerfDataWriter w;
  w.add_event(test::cpu_clock_attr(), {});
  w.add_record(test::sample_bytes(7, 7, 300, {test::kContextUser, 0x3}));
  w.add_record(test::sample_bytes(7, 8, 100, {test::kContextUser, 0x1}));
  w.finished_round();
  w.add_record(test::sample_bytes(7, 7, 200, {test::kContextUser, 0x2}));
  w.finished_round();
  w.add_record(test::sample_bytes(7, 7, 400, {test::kContextUser, 0x4}));
  const Read r = read_all(w.file_bytes());
  CHECK(r.reads == 2);
  CHECK(r.stats.finished_rounds == 2);
  REQUIRE(r.records.size() == 4);
  for (size_t i = 0; i < 4; ++i) CHECK(sample_time(r.records[i]) == 100 * (i + 1));
  const auto& s = std::get<perf::SampleRecord>(r.records[0]);
  CHECK(s.id.tid == 8);
  CHECK(s.callchain.back() == 0x1);
  CHECK(r.stream.late_records == 0);
}

TEST_CASE("records of several events decode with each event's layout, found by id") {
  perf_event_attr clock = test::cpu_clock_attr(test::kPerfSampleType | PERF_SAMPLE_IDENTIFIER);
  perf_event_attr faults = clock;
  faults.config = PERF_COUNT_SW_PAGE_FAULTS;
  faults.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                       PERF_SAMPLE_CPU | PERF_SAMPLE_ADDR;
  const auto clock_layout = *perf::SampleLayout::from_attr(clock);
  const auto faults_layout = *perf::SampleLayout::from_attr(faults);
  PerfDataWriter w;
  w.add_event(clock, {11, 12});
  w.add_event(faults, {21});
  w.add_record(test::sample_bytes(7, 7, 100, {test::kContextUser, 0x1}, clock_layout, 12));
  w.add_record(test::sample_bytes(7, 7, 200, {}, faults_layout, 21));
  w.add_record(test::sample_bytes(7, 7, 300, {test::kContextUser, 0x3}, clock_layout, 11));
  SUBCASE("both converted") {
    const Read r = read_all(w.file_bytes());
    REQUIRE(r.records.size() == 3);
    CHECK(std::get<perf::SampleRecord>(r.records[1]).event_id == 21);
    CHECK(std::get<perf::SampleRecord>(r.records[2]).callchain.back() == 0x3);
    CHECK(r.stream.malformed_records == 0);
  }
  SUBCASE("the other event's samples skipped and counted") {
    const Read r = read_all(
        w.file_bytes(), {{clock, perf::EventRole::kSampling}, {faults, perf::EventRole::kOther}});
    REQUIRE(r.records.size() == 2);
    CHECK(r.stream.other_event_samples == 1);
  }
}

TEST_CASE("perf's own records are used or counted; unknown types are counted and skipped") {
  PerfDataWriter w;
  w.add_event(test::cpu_clock_attr(), {});
  w.thread_map({4242});
  w.add_record(PerfDataWriter::build_id_entry(PerfDataWriter::kHeaderBuildId, "/usr/bin/app",
                                              *BuildId::from_hex("00112233"), false));
  w.add_record(PerfDataWriter::user_record(PerfDataWriter::kFinishedInit, {}));
  w.add_record(PerfDataWriter::user_record(99, std::vector<uint8_t>(16, 1)));
  w.add_record(test::RecordBuilder::opaque(PERF_RECORD_KSYMBOL, 24));
  w.add_record(test::sample_bytes(7, 7, 100, {test::kContextUser, 0x1}));
  const Read r = read_all(w.file_bytes());
  CHECK(r.records.size() == 1);
  CHECK(r.thread_map == std::vector<int64_t>{4242});
  CHECK(r.stats.unused_by_type.at(PerfDataWriter::kFinishedInit) == 1);
  CHECK(r.stats.unknown_by_type.at(99) == 1);
  CHECK(r.stream.skipped_records == 1);
  const auto* ids = r.build_ids.find("/usr/bin/app");
  REQUIRE(ids != nullptr);
  CHECK(ids->front().code_id() == "00112233");
}

TEST_CASE("AUX data after a PERF_RECORD_AUXTRACE is skipped with it") {
  PerfDataWriter w;
  w.add_event(test::cpu_clock_attr(), {});
  test::ByteWriter aux;
  aux.put(uint64_t{40}).put(uint64_t{0}).put(uint64_t{0}).put(uint32_t{0}).put(uint32_t{0});
  aux.put(uint32_t{0}).put(uint32_t{0});
  w.add_record(PerfDataWriter::user_record(PerfDataWriter::kAuxtrace, aux.bytes()));
  w.add_bytes(std::vector<uint8_t>(40, 0xFF));  // the AUX data: not a record
  w.add_record(test::sample_bytes(7, 7, 100, {test::kContextUser, 0x1}));
  for (const Access access : {Access::kInPlace, Access::kChunked}) {
    const Read r = read_all(w.file_bytes(), {}, {}, access);
    CHECK(r.records.size() == 1);
    CHECK_FALSE(r.stats.stopped.has_value());
  }
}

TEST_CASE("an impossible record size stops reading there, keeping what came before") {
  const auto file_ending_with = [](const std::vector<uint8_t>& bad, bool more_after) {
    PerfDataWriter w;
    w.add_event(test::cpu_clock_attr(), {});
    w.add_record(test::sample_bytes(7, 7, 100, {test::kContextUser, 0x1}));
    w.add_bytes(bad);
    if (more_after) w.add_record(test::sample_bytes(7, 7, 200, {test::kContextUser, 0x2}));
    return w.file_bytes();
  };
  test::ByteWriter too_small, too_large;
  too_small.put(perf_event_header{PERF_RECORD_SAMPLE, 0, 4});
  too_large.put(perf_event_header{PERF_RECORD_SAMPLE, 0, 4000}).put(uint64_t{0});
  for (const Access access : {Access::kInPlace, Access::kChunked}) {
    CAPTURE(static_cast<int>(access));
    const Read small = read_all(file_ending_with(too_small.bytes(), true), {}, {}, access);
    CHECK(small.records.size() == 1);
    REQUIRE(small.stats.stopped.has_value());
    CHECK(small.stats.stopped->find("less than its own header") != std::string::npos);
    CHECK(small.stats.unread_bytes > 0);
    const Read large = read_all(file_ending_with(too_large.bytes(), false), {}, {}, access);
    CHECK(large.records.size() == 1);
    REQUIRE(large.stats.stopped.has_value());
    CHECK(large.stats.stopped->find("past the end") != std::string::npos);
  }
}

TEST_CASE("a file without round boundaries is released in bounded rounds, nothing lost") {
  PerfDataWriter w;
  w.add_event(test::cpu_clock_attr(), {});
  constexpr size_t kRecords = 3000;  // ~200 KB: several chunks and several forced rounds
  for (size_t i = 0; i < kRecords; ++i) {
    w.add_record(test::sample_bytes(7, 7, 1000 + i, {test::kContextUser, 0x1000 + i}));
  }
  DataSectionSource::Options options;
  options.chunk_bytes = 1;  // the smallest buffer: one maximal record
  options.max_round_bytes = 20'000;
  const Read r = read_all(w.file_bytes(), {}, options, Access::kChunked);
  REQUIRE(r.records.size() == kRecords);
  CHECK(r.stats.forced_rounds > 5);
  for (size_t i = 0; i < kRecords; ++i) CHECK(sample_time(r.records[i]) == 1000 + i);
}

TEST_CASE("a file that shrinks while it is read stops the reading with an error, not a signal") {
  // `sprof import` of a perf.data that another program truncates meanwhile: the bytes that are
  // gone must be a read error (as pread gives), never a SIGBUS (as touching a mapping would).
  PerfDataWriter w;
  w.add_event(test::cpu_clock_attr(), {});
  for (uint64_t i = 0; i < 20000; ++i) {
    w.add_record(test::sample_bytes(7, 7, 100 + i, {test::kContextUser, 0x1000 + i}));
  }
  const std::vector<uint8_t> bytes = w.file_bytes();
  test::TempDir dir;
  REQUIRE(dir.valid());
  const std::string path =
      dir.write_file("perf.data", {reinterpret_cast<const char*>(bytes.data()), bytes.size()});
  auto source = FileBytes::open(path);
  REQUIRE(source.has_value());
  auto file = open_perf_data(*source);
  REQUIRE(file.has_value());
  auto table = perf::EventTable::create({{file->events[0].attr, perf::EventRole::kSampling}});
  REQUIRE(table.has_value());
  // Cut the file in the middle of its data section, after it was opened and its header read;
  // at a page boundary, so that a mapping's next page is gone rather than zero-filled.
  const uint64_t cut = (file->header.data.offset + file->header.data.size / 2) & ~uint64_t{4095};
  REQUIRE(::truncate(path.c_str(), static_cast<off_t>(cut)) == 0);
  DataSectionSource::Options options;
  options.chunk_bytes = 64 * 1024;  // several reads
  DataSectionSource data(*source, file->header.data, std::move(*table), options);
  size_t records = 0;
  const perf::RecordSink sink = [&](perf::Record&&) { ++records; };
  while (data.read_available(sink)) {
  }
  data.flush_all(sink);
  const auto& stopped = data.stats().stopped;
  REQUIRE(stopped.has_value());
  INFO(*stopped);
  CHECK(stopped->find("reading " + path + " failed") != std::string::npos);
  CHECK(stopped->find("the file ends at byte " + std::to_string(cut)) != std::string::npos);
  CHECK(data.stats().unread_bytes > 0);
  CHECK(records > 0);
  CHECK(records < 20000);
}
