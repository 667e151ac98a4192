#include "perf/ring_buffer.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "fake_kernel_ring.hpp"
#include "perf_names.hpp"
#include "record_builder.hpp"
#include "sprof/perf/record_parser.hpp"

using sprof::test::FakeKernelRing;
using sprof::test::make_layout;
using sprof::test::RecordBuilder;

namespace {

std::vector<uint8_t> comm_record(const perf::SampleLayout& layout, uint32_t tid,
                                 const std::string& name) {
  perf::CommRecord c;
  c.pid = 1;
  c.tid = tid;
  c.id.time = tid;
  c.comm = name;
  return RecordBuilder(layout).comm(c);
}

// Reads the ring, parses every record back into COMM records, and hands all the space back.
std::vector<perf::CommRecord> drain_comms(perf::RingBuffer& ring,
                                          const perf::SampleLayout& layout) {
  std::vector<perf::CommRecord> out;
  ring.read([&](perf::RawRecord raw) {
    auto rec = perf::parse_record(raw, layout);
    if (!rec) FAIL(rec.error().message);
    out.push_back(std::get<perf::CommRecord>(*rec));
  });
  ring.release_to(ring.read_position());
  return out;
}

const auto kLayout = make_layout(PERF_SAMPLE_TID | PERF_SAMPLE_TIME);

}  // namespace

TEST_CASE("ring buffer returns the records between tail and head and releases them") {
  FakeKernelRing kernel(256);
  auto ring = kernel.reader();
  CHECK_FALSE(ring.has_data());
  REQUIRE(kernel.write(comm_record(kLayout, 1, "one")));
  REQUIRE(kernel.write(comm_record(kLayout, 2, "two")));
  CHECK(ring.has_data());

  const auto comms = drain_comms(ring, kLayout);
  REQUIRE(comms.size() == 2);
  CHECK(comms[0].comm == "one");
  CHECK(comms[1].comm == "two");
  CHECK(kernel.tail() == kernel.head());
  CHECK_FALSE(ring.has_data());
  CHECK(drain_comms(ring, kLayout).empty());
  CHECK(ring.corruptions() == 0);
}

TEST_CASE("ring buffer reassembles a record that wraps the end") {
  FakeKernelRing kernel(128);
  const auto rec = comm_record(kLayout, 7, "a-name-long-enough-to-span");
  REQUIRE(rec.size() == 64);
  SUBCASE("wrap inside the body") { kernel.set_positions(128 - 24); }
  SUBCASE("wrap inside the header") { kernel.set_positions(128 - 4 + 128 * 1000); }
  SUBCASE("record ending exactly at the end") { kernel.set_positions(128 - 64); }
  auto ring = kernel.reader();
  REQUIRE(kernel.write(rec));
  const auto comms = drain_comms(ring, kLayout);
  REQUIRE(comms.size() == 1);
  CHECK(comms[0].comm == "a-name-long-enough-to-span");
  CHECK(comms[0].tid == 7);
  CHECK(kernel.tail() == kernel.head());
}

TEST_CASE("ring buffer keeps up with a writer that laps the data area many times") {
  FakeKernelRing kernel(256);
  auto ring = kernel.reader();
  uint32_t written = 0, read = 0;
  for (int round = 0; round < 50; ++round) {
    while (kernel.write(comm_record(kLayout, written + 1, "t" + std::to_string(written + 1)))) {
      ++written;
    }
    for (const auto& c : drain_comms(ring, kLayout)) {
      ++read;
      CHECK(c.tid == read);
      CHECK(c.comm == "t" + std::to_string(read));
    }
  }
  CHECK(read == written);
  CHECK(written > 100);
  CHECK(kernel.head() > 256 * 20);
}

TEST_CASE("ring buffer treats impossible headers as corruption and resynchronises at head") {
  FakeKernelRing kernel(256);
  auto ring = kernel.reader();
  REQUIRE(kernel.write(comm_record(kLayout, 1, "good")));

  std::vector<uint8_t> bad(16, 0);
  perf_event_header h{};
  h.type = PERF_RECORD_COMM;
  SUBCASE("size zero") { h.size = 0; }
  SUBCASE("size larger than the data area") { h.size = 512; }
  SUBCASE("size larger than what was published") { h.size = 64; }
  SUBCASE("size not u64-aligned") { h.size = 12; }
  std::memcpy(bad.data(), &h, sizeof h);
  kernel.write_unchecked(bad);

  const auto comms = drain_comms(ring, kLayout);
  REQUIRE(comms.size() == 1);
  CHECK(comms[0].comm == "good");
  CHECK(ring.corruptions() == 1);
  CHECK(kernel.tail() == kernel.head());

  // Records published after the resync are read normally.
  REQUIRE(kernel.write(comm_record(kLayout, 2, "after")));
  const auto after = drain_comms(ring, kLayout);
  REQUIRE(after.size() == 1);
  CHECK(after[0].comm == "after");
}

TEST_CASE("ring buffer treats a head more than one buffer ahead as corruption") {
  FakeKernelRing kernel(128);
  auto ring = kernel.reader();
  kernel.write_unchecked(std::vector<uint8_t>(200, 0));
  CHECK(drain_comms(ring, kLayout).empty());
  CHECK(ring.corruptions() == 1);
  CHECK(kernel.tail() == kernel.head());
}
