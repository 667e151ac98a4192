// Heap dumps: a header snapshot plus records, read back with the same checks as the ring.
#include "sprof/heap/heap_dump.hpp"

#include <doctest/doctest.h>

#include "heap_record_builder.hpp"

using namespace sprof::heap;
using namespace sprof::heap::test;

namespace {

std::vector<uint8_t> dump_of(const std::vector<std::vector<uint8_t>>& records) {
  RingHeader header{};
  header.config = ring_config(kMinDataBytes);
  header.counters.allocations = 77;
  auto out = encode_dump_prefix(header);
  for (const auto& r : records) out.insert(out.end(), r.begin(), r.end());
  return out;
}

}  // namespace

TEST_CASE("a dump gives back its header and every record in order") {
  const auto bytes =
      dump_of({attach_record("/bin/x"), alloc_record(AllocSpec{}), free_record(0x1000)});
  auto dump = parse_heap_dump(bytes);
  REQUIRE(dump.has_value());
  CHECK(dump->header.counters.allocations == 77);
  std::vector<size_t> kinds;
  DumpReadStats stats;
  REQUIRE(for_each_dump_record(
              *dump, [&](const HeapEvent& e) { kinds.push_back(e.index()); }, stats)
              .has_value());
  CHECK(kinds == std::vector<size_t>{2, 0, 1});
  CHECK(stats.records == 3);
}

TEST_CASE("a dump with a bad prefix or configuration is refused") {
  auto bytes = dump_of({});
  SUBCASE("truncated header") {
    bytes.resize(100);
    CHECK_FALSE(parse_heap_dump(bytes).has_value());
  }
  SUBCASE("bad magic") {
    bytes[0] ^= 1;
    CHECK(parse_heap_dump(bytes).error().message.find("magic") != std::string::npos);
  }
  SUBCASE("huge data size in the configuration") {
    poke(bytes, sizeof(DumpPrefix) + offsetof(RingConfig, data_bytes), ~uint64_t{0});
    CHECK_FALSE(parse_heap_dump(bytes).has_value());
  }
}

TEST_CASE("a dump record that cannot be framed ends the walk; malformed bodies are skipped") {
  auto bad_body = alloc_record(AllocSpec{});
  poke(bad_body, kAllocAt + offsetof(AllocFields, address), uint64_t{0});
  auto bytes = dump_of({free_record(0x1000), bad_body, free_record(0x2000)});
  std::vector<uint64_t> freed;
  auto visit = [&](const HeapEvent& e) { freed.push_back(std::get<HeapFree>(e).address); };
  {
    auto dump = parse_heap_dump(bytes);
    REQUIRE(dump.has_value());
    DumpReadStats stats;
    CHECK(for_each_dump_record(*dump, visit, stats).has_value());
    CHECK(stats.malformed_records == 1);
    CHECK(freed == std::vector<uint64_t>{0x1000, 0x2000});
  }
  freed.clear();
  bytes.resize(bytes.size() - 4);  // the last record is cut
  auto dump = parse_heap_dump(bytes);
  REQUIRE(dump.has_value());
  DumpReadStats stats;
  CHECK_FALSE(for_each_dump_record(*dump, visit, stats).has_value());
  CHECK(freed == std::vector<uint64_t>{0x1000});
}
