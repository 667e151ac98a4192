// Reading what a perf.data file says before its records: the header, the events and the
// features, in file and pipe mode, and the refusals of files sprof cannot read.
#include "sprof/perfdata/perf_data_file.hpp"

#include <doctest/doctest.h>

#include <cstring>

#include "perf_data_fixture.hpp"

using namespace sprof;
using namespace sprof::perfdata;
using test::PerfDataWriter;

namespace {

Result<PerfDataFile> open_bytes(const std::vector<uint8_t>& bytes) {
  MemoryBytes source(bytes, "test.data");
  return open_perf_data(source);
}

template <typename T>
void poke(std::vector<uint8_t>& bytes, size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

PerfDataWriter one_event_file() {
  PerfDataWriter w;
  w.add_event(test::cpu_clock_attr(), {101, 102});
  w.add_record(test::sample_bytes(7, 7, 1000, {test::kContextUser, 0x401000}));
  return w;
}

}  // namespace

TEST_CASE("a file perf writes is read: its events with their ids and its features") {
  PerfDataWriter w = one_event_file();
  w.feature_string(PerfDataWriter::kHostname, "buildhost");
  w.feature_string(PerfDataWriter::kOsRelease, "6.1.0-13-amd64");
  w.feature_string(PerfDataWriter::kVersion, "6.1.187");
  w.feature_string(PerfDataWriter::kArch, "x86_64");
  w.feature_strings(PerfDataWriter::kCmdline, {"/usr/bin/perf", "record", "-g", "--", "./app"});
  test::ByteWriter nrcpus;
  nrcpus.put(uint32_t{8}).put(uint32_t{4});  // available, then online
  w.feature_bytes(PerfDataWriter::kNrCpus, nrcpus.bytes());
  test::ByteWriter times;
  times.put(uint64_t{5'000}).put(uint64_t{9'000});
  w.feature_bytes(PerfDataWriter::kSampleTime, times.bytes());
  test::ByteWriter clock;
  clock.put(uint32_t{1})
      .put(uint32_t{1})
      .put(uint64_t{1'700'000'000'000'000'000})
      .put(uint64_t{4'000});
  w.feature_bytes(PerfDataWriter::kClockData, clock.bytes());
  w.build_id("[kernel.kallsyms]", *BuildId::from_hex("aabbccdd"), true);
  w.build_id("/usr/bin/app", *BuildId::from_hex("0102030405060708090a0b0c0d0e0f1011121314"));

  auto file = open_bytes(w.file_bytes());
  REQUIRE_MESSAGE(file.has_value(), (file ? "" : file.error().message));
  CHECK_FALSE(file->header.pipe_mode);
  REQUIRE(file->events.size() == 1);
  CHECK(file->events[0].attr.sample_type == test::kPerfSampleType);
  CHECK(file->events[0].attr.sample_freq == 4000);
  CHECK(file->events[0].ids == std::vector<uint64_t>{101, 102});
  const auto& f = file->features;
  CHECK(f.unreadable.empty());
  CHECK(f.hostname == "buildhost");
  CHECK(f.os_release == "6.1.0-13-amd64");
  CHECK(f.perf_version == "6.1.187");
  CHECK(f.arch == "x86_64");
  CHECK(joined_command_line(f) == "/usr/bin/perf record -g -- ./app");
  CHECK(f.cpus_available == 8);
  CHECK(f.cpus_online == 4);
  CHECK(f.first_sample_ns == 5'000u);
  CHECK(f.last_sample_ns == 9'000u);
  REQUIRE(f.clock.has_value());
  CHECK(f.clock->clockid == 1);
  CHECK(f.clock->wall_ns == 1'700'000'000'000'000'000u);
  CHECK(f.clock->clock_ns == 4'000u);
  REQUIRE(f.build_ids.size() == 2);
  CHECK(f.build_ids[0].path == "[kernel.kallsyms]");
  CHECK(f.build_ids[0].kernel);
  CHECK(f.build_ids[0].build_id.code_id() == "aabbccdd");
  CHECK(f.build_ids[1].path == "/usr/bin/app");
  CHECK_FALSE(f.build_ids[1].kernel);
  CHECK(f.build_ids[1].build_id.code_id() == "0102030405060708090a0b0c0d0e0f1011121314");
}

TEST_CASE(
    "files that are not perf.data, or not one sprof reads, are refused saying what they are") {
  SUBCASE("empty") {
    auto r = open_bytes({});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::kMalformed);
    CHECK(r.error().message.find("empty") != std::string::npos);
  }
  SUBCASE("not perf.data") {
    std::vector<uint8_t> text(300, 'x');
    auto r = open_bytes(text);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::kMalformed);
    CHECK(r.error().message.find("not a perf.data file") != std::string::npos);
  }
  SUBCASE("big-endian") {
    auto bytes = one_event_file().file_bytes();
    poke(bytes, 0, uint64_t{0x50455246494c4532ULL});
    auto r = open_bytes(bytes);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::kUnsupported);
    CHECK(r.error().message.find("big-endian") != std::string::npos);
  }
  SUBCASE("version 1") {
    auto bytes = one_event_file().file_bytes();
    std::memcpy(bytes.data(), "PERFFILE", 8);
    auto r = open_bytes(bytes);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::kUnsupported);
    CHECK(r.error().message.find("version-1") != std::string::npos);
  }
  SUBCASE("header cut short") {
    auto bytes = one_event_file().file_bytes();
    bytes.resize(60);
    auto r = open_bytes(bytes);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::kMalformed);
  }
  SUBCASE("an attrs entry size no perf writes") {
    auto bytes = one_event_file().file_bytes();
    poke(bytes, PerfDataWriter::kAttrSizeOffset, uint64_t{1} << 40);
    auto r = open_bytes(bytes);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::kMalformed);
  }
  SUBCASE("attrs section past the end") {
    auto bytes = one_event_file().file_bytes();
    poke(bytes, PerfDataWriter::kAttrsOffset, uint64_t{bytes.size()});
    auto r = open_bytes(bytes);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message.find("attrs section") != std::string::npos);
  }
  SUBCASE("ids past the end, or huge") {
    auto bytes = one_event_file().file_bytes();
    // The ids section of event 0 sits in the last 16 bytes of its attrs entry.
    uint64_t attrs_at = 0, entry = 0;
    std::memcpy(&attrs_at, bytes.data() + PerfDataWriter::kAttrsOffset, 8);
    std::memcpy(&entry, bytes.data() + PerfDataWriter::kAttrSizeOffset, 8);
    poke(bytes, attrs_at + entry - 8, uint64_t{1} << 62);
    auto r = open_bytes(bytes);
    REQUIRE_FALSE(r.has_value());
    CHECK((r.error().code == Errc::kTooLarge || r.error().code == Errc::kMalformed));
  }
  SUBCASE("an attr larger than its entry") {
    PerfDataWriter w;
    perf_event_attr a = test::cpu_clock_attr();
    w.add_event(a, {1});
    auto bytes = w.file_bytes();
    uint64_t attrs_at = 0;
    std::memcpy(&attrs_at, bytes.data() + PerfDataWriter::kAttrsOffset, 8);
    poke(bytes, attrs_at + offsetof(perf_event_attr, size), uint32_t{4000});
    auto r = open_bytes(bytes);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::kMalformed);
  }
}

TEST_CASE("an attr from a newer perf is read up to what sprof knows") {
  PerfDataWriter w;
  w.add_event(test::cpu_clock_attr(), {5}, /*extra_attr_bytes=*/24, /*fill=*/0x5A);
  auto file = open_bytes(w.file_bytes());
  REQUIRE_MESSAGE(file.has_value(), (file ? "" : file.error().message));
  CHECK(file->events[0].recorded_attr_bytes == sizeof(perf_event_attr) + 24);
  CHECK(file->events[0].attr.size == sizeof(perf_event_attr));
  CHECK(file->events[0].attr.sample_type == test::kPerfSampleType);
  CHECK(file->events[0].ids == std::vector<uint64_t>{5});
}

TEST_CASE(
    "a cut-short file keeps the records it has; a killed perf's size-0 data section is read") {
  SUBCASE("truncated inside the data section") {
    PerfDataWriter w = one_event_file();
    w.feature_string(PerfDataWriter::kHostname, "h");
    auto bytes = w.file_bytes();
    uint64_t data_at = 0;
    std::memcpy(&data_at, bytes.data() + PerfDataWriter::kDataOffset, 8);
    bytes.resize(data_at + 20);
    auto file = open_bytes(bytes);
    REQUIRE(file.has_value());
    CHECK(file->header.data.size == 20);
    CHECK(file->features.hostname.empty());
    REQUIRE(file->header.notes.size() == 1);
    CHECK(file->header.notes[0].find("truncated") != std::string::npos);
  }
  SUBCASE("data size 0") {
    auto bytes = one_event_file().file_bytes();
    uint64_t data_at = 0;
    std::memcpy(&data_at, bytes.data() + PerfDataWriter::kDataOffset, 8);
    poke(bytes, PerfDataWriter::kDataSizeOffset, uint64_t{0});
    auto file = open_bytes(bytes);
    REQUIRE(file.has_value());
    CHECK(file->header.data.size == bytes.size() - data_at);
    REQUIRE(file->header.notes.size() == 1);
    CHECK(file->header.notes[0].find("did not finish") != std::string::npos);
  }
  SUBCASE("data section starting past the end") {
    auto bytes = one_event_file().file_bytes();
    poke(bytes, PerfDataWriter::kDataOffset, uint64_t{1} << 50);
    auto r = open_bytes(bytes);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code == Errc::kMalformed);
  }
}

TEST_CASE("a feature that does not parse is noted and the others are still read") {
  PerfDataWriter w = one_event_file();
  w.feature_string(PerfDataWriter::kHostname, "host");
  test::ByteWriter cut;
  cut.put(uint32_t{3});  // three strings promised, none there
  w.feature_bytes(PerfDataWriter::kCmdline, cut.bytes());
  auto file = open_bytes(w.file_bytes());
  REQUIRE(file.has_value());
  CHECK(file->features.hostname == "host");
  REQUIRE(file->features.unreadable.size() == 1);
  CHECK(file->features.unreadable[0].find("HEADER_CMDLINE") != std::string::npos);
}

TEST_CASE("an empty or cut string feature reads as empty (found by the perf.data fuzzer)") {
  PerfDataWriter w = one_event_file();
  test::ByteWriter empty, cut;
  empty.put(uint32_t{0});  // a string of length 0
  cut.put(uint32_t{100});  // 100 bytes promised, none there
  w.feature_bytes(PerfDataWriter::kHostname, empty.bytes());
  w.feature_bytes(PerfDataWriter::kOsRelease, cut.bytes());
  auto file = open_bytes(w.file_bytes());
  REQUIRE(file.has_value());
  CHECK(file->features.hostname.empty());
  CHECK(file->features.os_release.empty());
  REQUIRE(file->features.unreadable.size() == 1);
  CHECK(file->features.unreadable[0].find("HEADER_OSRELEASE") != std::string::npos);
}

TEST_CASE("pipe mode: events and features come from the records before the kernel's") {
  PerfDataWriter w = one_event_file();
  w.feature_string(PerfDataWriter::kVersion, "6.1.187");
  w.feature_strings(PerfDataWriter::kCmdline, {"perf", "record", "-o", "-"});
  auto file = open_bytes(w.pipe_bytes());
  REQUIRE_MESSAGE(file.has_value(), (file ? "" : file.error().message));
  CHECK(file->header.pipe_mode);
  REQUIRE(file->events.size() == 1);
  CHECK(file->events[0].ids == std::vector<uint64_t>{101, 102});
  CHECK(file->events[0].attr.sample_type == test::kPerfSampleType);
  CHECK(file->features.perf_version == "6.1.187");
  CHECK(joined_command_line(file->features) == "perf record -o -");
  CHECK(file->header.data.offset == 16);
}

TEST_CASE("a pipe-mode file without events is refused") {
  PerfDataWriter w;
  w.add_record(test::sample_bytes(7, 7, 1000, {test::kContextUser, 0x401000}));
  auto r = open_bytes(w.pipe_bytes());
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message.find("no events") != std::string::npos);
}
