// The heap ring end to end in memory: the interposer's RingWriter produces, RingReader consumes.
// Covers order and wrap-around, a full ring, records reserved but never committed (a writer
// that died), and ring contents a hostile program could leave (bad sizes, heads, bodies).
#include "sprof/heap/ring_reader.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "heap_record_builder.hpp"
#include "interposer/ring_writer.hpp"
#include "sprof/heap/heap_dump.hpp"
#include "sprof/heap/record_decoder.hpp"

using namespace sprof::heap;
using namespace sprof::heap::test;
using sprof::heap::interposer::RingWriter;

namespace {

constexpr uint64_t kData = kMinDataBytes;  // 64 KiB

// A shared area as sprof would create it, in ordinary memory.
struct Area {
  explicit Area(uint64_t data_bytes = kData, uint32_t stack_copy_bytes = 1024,
                bool wait_when_full = false)
      : size(kRingHeaderBytes + data_bytes),
        bytes(static_cast<uint8_t*>(std::aligned_alloc(4096, size))) {
    std::memset(bytes.get(), 0, size);
    const RingConfig c = ring_config(data_bytes, stack_copy_bytes);
    std::memcpy(bytes.get(), &c, sizeof c);
    // The reader is this process, alive for the whole test.
    writer.init(header(), bytes.get() + kRingHeaderBytes, data_bytes, wait_when_full,
                static_cast<uint64_t>(getpid()));
  }
  RingHeader* header() { return reinterpret_cast<RingHeader*>(bytes.get()); }
  std::span<uint8_t> span() { return {bytes.get(), size}; }
  uint8_t* data() { return bytes.get() + kRingHeaderBytes; }

  // Writes a record built by heap_record_builder at the next reservation; false if full.
  bool put(std::vector<uint8_t> record, bool commit = true) {
    uint64_t pos = 0;
    if (!writer.reserve(static_cast<uint32_t>(record.size()), pos)) return false;
    writer.write(pos, 8, record.data() + 8, record.size() - 8);
    if (commit) writer.commit(pos);
    last_position = pos;
    return true;
  }

  size_t size;
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> bytes;
  RingWriter writer{};
  uint64_t last_position = 0;
};

struct Drained {
  std::vector<uint64_t> addresses;  // alloc and free addresses, in order
  size_t count = 0;
};

Drained drain(RingReader& reader, DrainOptions options = {}) {
  Drained d;
  d.count = reader.drain(options, [&](const DrainedRecord& r) {
    if (const auto* a = std::get_if<HeapAlloc>(&r.event)) d.addresses.push_back(a->address);
    if (const auto* f = std::get_if<HeapFree>(&r.event)) d.addresses.push_back(f->address);
  });
  return d;
}

std::vector<uint8_t> alloc_at(uint64_t address, size_t stack_bytes = 64) {
  AllocSpec spec;
  spec.fields.address = address;
  spec.stack.assign(stack_bytes, 0x5A);
  return alloc_record(spec);
}

}  // namespace

TEST_CASE("ring reader refuses areas that are not a ring it knows") {
  Area area;
  SUBCASE("too small for the header") {
    CHECK_FALSE(RingReader::open(area.span().first(100)).has_value());
  }
  SUBCASE("smaller than header plus data") {
    CHECK_FALSE(RingReader::open(area.span().first(area.size - 8)).has_value());
  }
  SUBCASE("bad magic") {
    area.header()->config.magic ^= 1;
    CHECK(RingReader::open(area.span()).error().message.find("magic") != std::string::npos);
  }
  SUBCASE("unknown version") {
    area.header()->config.version = 99;
    CHECK_FALSE(RingReader::open(area.span()).has_value());
  }
  SUBCASE("the version before free stacks") {
    area.header()->config.version = 3;
    CHECK(RingReader::open(area.span()).error().message.find("version") != std::string::npos);
  }
  SUBCASE("unknown options") {
    area.header()->config.options = kKnownOptions + 1;
    CHECK(RingReader::open(area.span()).error().message.find("options") != std::string::npos);
  }
  SUBCASE("data size not a power of two") {
    area.header()->config.data_bytes = kData + 8;
    CHECK(RingReader::open(area.span()).error().message.find("power of two") != std::string::npos);
  }
  SUBCASE("oversized stack copy") {
    area.header()->config.stack_copy_bytes = kMaxStackCopyBytes + 8;
    CHECK_FALSE(RingReader::open(area.span()).has_value());
  }
}

TEST_CASE("records come out in reservation order and the tail is handed back") {
  Area area;
  auto reader = RingReader::open(area.span());
  REQUIRE(reader.has_value());
  REQUIRE(area.put(attach_record("/bin/prog")));
  REQUIRE(area.put(alloc_at(0x1000)));
  REQUIRE(area.put(free_record(0x1000)));
  const auto d = drain(*reader);
  CHECK(d.count == 3);
  CHECK(d.addresses == std::vector<uint64_t>{0x1000, 0x1000});
  CHECK(area.header()->read_tail == area.header()->write_head);
  CHECK(drain(*reader).count == 0);
}

TEST_CASE("a bounded drain stops after max_bytes and the next one goes on from there") {
  Area area;
  auto reader = RingReader::open(area.span());
  REQUIRE(reader.has_value());
  for (uint64_t a = 1; a <= 5; ++a) REQUIRE(area.put(alloc_at(a * 0x1000)));
  DrainOptions bounded;
  // One byte more than a record: the second record is read, the third not.
  bounded.max_bytes = alloc_at(0).size() + 1;
  CHECK(drain(*reader, bounded).addresses == std::vector<uint64_t>{0x1000, 0x2000});
  // What was read is handed back at once, the rest stays.
  CHECK(area.header()->read_tail < area.header()->write_head);
  CHECK(drain(*reader, bounded).addresses == std::vector<uint64_t>{0x3000, 0x4000});
  CHECK(drain(*reader, bounded).addresses == std::vector<uint64_t>{0x5000});
  CHECK(area.header()->read_tail == area.header()->write_head);
  CHECK(drain(*reader, bounded).count == 0);
}

// The recorder's backlog: records copied out undecoded, back to back, decoded later.
std::vector<uint64_t> decoded_addresses(const std::vector<uint8_t>& copied, size_t& rejected) {
  std::vector<uint64_t> addresses;
  for (size_t at = 0; at < copied.size();) {
    const auto record = front_record(std::span<const uint8_t>(copied).subspan(at));
    REQUIRE(record.has_value());
    auto event = decode_record(*record, DecodeLimits{1024});
    at += record->size();
    if (!event) {
      ++rejected;
      continue;
    }
    if (const auto* a = std::get_if<HeapAlloc>(&*event)) addresses.push_back(a->address);
    if (const auto* f = std::get_if<HeapFree>(&*event)) addresses.push_back(f->address);
  }
  return addresses;
}

TEST_CASE("copy_records appends the committed records undecoded, framed, within its budget") {
  Area area;
  auto reader = RingReader::open(area.span());
  REQUIRE(reader.has_value());
  for (uint64_t a = 1; a <= 3; ++a) REQUIRE(area.put(alloc_at(a * 0x1000)));
  // Plausible in size, but its body is not a record: copied, and rejected when decoded.
  std::vector<uint8_t> bad = free_record(0x4000);
  std::memset(bad.data() + sizeof(RecordHeader), 0, bad.size() - sizeof(RecordHeader));
  REQUIRE(area.put(bad));
  REQUIRE(area.put(free_record(0x1000)));
  REQUIRE(area.put(alloc_at(0x5000), /*commit=*/false));  // reserved, not yet written

  std::vector<uint8_t> backlog = {};
  DrainOptions bounded;
  bounded.max_bytes = alloc_at(0).size() + 1;  // two records
  CHECK(reader->copy_records(bounded, backlog) == 2 * alloc_at(0).size());
  CHECK(backlog.size() == 2 * alloc_at(0).size());
  CHECK(area.header()->read_tail < area.header()->write_head);
  // Appended after what the buffer holds; stops at the uncommitted reservation.
  reader->copy_records({}, backlog);
  size_t rejected = 0;
  CHECK(decoded_addresses(backlog, rejected) ==
        std::vector<uint64_t>{0x1000, 0x2000, 0x3000, 0x1000});
  CHECK(rejected == 1);
  CHECK(reader->stats().records == 5);
  CHECK(reader->stats().malformed_records == 0);  // the decoding is the caller's
  CHECK(area.header()->read_tail == area.last_position);

  // The reservation is committed: the next copy takes it.
  area.writer.commit(area.last_position);
  backlog.clear();
  reader->copy_records({}, backlog);
  rejected = 0;
  CHECK(decoded_addresses(backlog, rejected) == std::vector<uint64_t>{0x5000});
}

TEST_CASE("a free with its stack comes out of the ring with the stack, also across the end") {
  Area area;
  auto reader = RingReader::open(area.span());
  REQUIRE(reader.has_value());
  // Fill to just before the end, so the stacked free straddles it.
  uint64_t address = 0x10000;
  while (area.header()->write_head + alloc_record_bytes(64) < kData - 64)
    REQUIRE(area.put(alloc_at(address += 16)));
  drain(*reader);
  StackedFreeSpec spec;
  spec.address = 0x7000;
  spec.stack.assign(300, 0x77);
  REQUIRE(area.put(stacked_free_record(spec)));
  REQUIRE(area.header()->write_head > kData);  // it wrapped
  std::vector<HeapFree> frees;
  std::vector<uint8_t> stack;
  reader->drain({}, [&](const DrainedRecord& r) {
    const auto& f = std::get<HeapFree>(r.event);
    frees.push_back(f);
    stack.assign(f.stack.begin(), f.stack.end());
  });
  REQUIRE(frees.size() == 1);
  CHECK(frees[0].address == 0x7000);
  CHECK(frees[0].has_stack());
  CHECK(frees[0].regs.sp == spec.fields.regs.sp);
  CHECK(stack == std::vector<uint8_t>(300, 0x77));
  CHECK(reader->stats().malformed_records == 0);
}

TEST_CASE("records that wrap the end of the data area are reassembled, lap after lap") {
  Area area;
  auto reader = RingReader::open(area.span());
  REQUIRE(reader.has_value());
  // 300-byte stacks do not divide 64 KiB: records straddle the end at varying offsets.
  uint64_t next = 0x10000, expected = 0x10000;
  while (area.header()->write_head < 10 * kData) {
    for (int i = 0; i < 50; ++i) REQUIRE(area.put(alloc_at(next += 16, 300)));
    const auto d = drain(*reader);
    REQUIRE(d.count == 50);
    for (const uint64_t a : d.addresses) CHECK(a == (expected += 16));
  }
  CHECK(reader->stats().malformed_records == 0);
  CHECK(reader->stats().resyncs == 0);
}

TEST_CASE("a full ring drops and counts records instead of overwriting unread ones") {
  Area area;
  auto reader = RingReader::open(area.span());
  REQUIRE(reader.has_value());
  int written = 0;
  while (area.put(alloc_at(0x1000 + 16 * static_cast<uint64_t>(written), 1000))) ++written;
  CHECK(area.header()->counters.dropped_records == 1);
  CHECK(area.header()->counters.dropped_bytes == alloc_record_bytes(1000));
  CHECK(drain(*reader).count == static_cast<size_t>(written));
  CHECK(area.put(alloc_at(0x1000, 1000)));
}

TEST_CASE("a reservation never committed stalls the reader until its timeout, then is skipped") {
  Area area;
  auto reader = RingReader::open(area.span());
  REQUIRE(reader.has_value());
  REQUIRE(area.put(alloc_at(0x1000)));
  REQUIRE(area.put(alloc_at(0x2000), /*commit=*/false));  // its writer died
  REQUIRE(area.put(alloc_at(0x3000)));
  DrainOptions options;
  options.now_ns = 1'000;
  options.stall_timeout_ns = 500;
  CHECK(drain(*reader, options).addresses == std::vector<uint64_t>{0x1000});
  options.now_ns = 1'200;  // not yet timed out
  CHECK(drain(*reader, options).count == 0);
  options.now_ns = 1'600;
  CHECK(drain(*reader, options).addresses == std::vector<uint64_t>{0x3000});
  CHECK(reader->stats().resyncs == 1);
  CHECK(reader->stats().skipped_bytes == alloc_record_bytes(64));
}

TEST_CASE("a final drain skips holes at once; a late commit inside the ring is still read") {
  Area area;
  auto reader = RingReader::open(area.span());
  REQUIRE(reader.has_value());
  REQUIRE(area.put(alloc_at(0x1000), false));
  const uint64_t hole = area.last_position;
  CHECK(drain(*reader).count == 0);
  area.writer.commit(hole);  // the writer was only slow
  CHECK(drain(*reader).addresses == std::vector<uint64_t>{0x1000});

  REQUIRE(area.put(alloc_at(0x2000), false));
  DrainOptions final_drain;
  final_drain.final = true;
  CHECK(drain(*reader, final_drain).count == 0);
  CHECK(reader->position() == area.header()->write_head);
}

TEST_CASE("leftovers of an earlier lap are not taken for new records") {
  Area area;
  auto reader = RingReader::open(area.span());
  REQUIRE(reader.has_value());
  // Fill one lap, read it, then reserve a record at a position whose bytes are leftovers.
  while (area.header()->write_head < kData) {
    REQUIRE(area.put(alloc_at(0x1000, 184)));
    drain(*reader);
  }
  REQUIRE(area.put(alloc_at(0x2000, 184), false));
  CHECK(drain(*reader).count == 0);
  CHECK(reader->stats().malformed_records == 0);
}

TEST_CASE("hostile ring contents are counted and skipped, never read out of bounds") {
  Area area;
  auto reader = RingReader::open(area.span());
  REQUIRE(reader.has_value());
  SUBCASE("a committed record with an impossible size") {
    REQUIRE(area.put(alloc_at(0x1000)));
    const uint64_t bad = area.last_position;
    REQUIRE(area.put(alloc_at(0x2000)));
    std::memcpy(area.data() + bad + offsetof(RecordHeader, size), "\xF8\xFF\xFF\x7F", 4);
    CHECK(drain(*reader).addresses == std::vector<uint64_t>{0x2000});
    CHECK(reader->stats().resyncs == 1);
  }
  SUBCASE("a committed record whose body is malformed") {
    auto record = alloc_at(0x1000);
    poke(record, kAllocAt + offsetof(AllocFields, address), uint64_t{0});
    REQUIRE(area.put(record));
    REQUIRE(area.put(alloc_at(0x2000)));
    CHECK(drain(*reader).addresses == std::vector<uint64_t>{0x2000});
    CHECK(reader->stats().malformed_records == 1);
  }
  SUBCASE("a write head far beyond one ring") {
    REQUIRE(area.put(alloc_at(0x1000)));
    area.header()->write_head = 1ULL << 60;
    CHECK(drain(*reader).addresses == std::vector<uint64_t>{0x1000});
    CHECK(reader->stats().bad_heads == 1);
  }
  SUBCASE("a write head behind the reader") {
    REQUIRE(area.put(alloc_at(0x1000)));
    drain(*reader);
    area.header()->write_head = 8;
    CHECK(drain(*reader).count == 0);
    CHECK(reader->stats().bad_heads == 1);
  }
  SUBCASE("random bytes everywhere") {
    uint64_t x = 12345;
    for (uint64_t i = 0; i < kData; i += 8) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      std::memcpy(area.data() + i, &x, 8);
    }
    area.header()->write_head = kData;
    DrainOptions final_drain;
    final_drain.final = true;
    CHECK(drain(*reader, final_drain).count == 0);
    CHECK(reader->position() == kData);
  }
  SUBCASE("a configuration changed after open is ignored") {
    area.header()->config.data_bytes = 1ULL << 40;
    REQUIRE(area.put(alloc_at(0x1000)));  // the writer keeps its own copy too
    CHECK(drain(*reader).addresses == std::vector<uint64_t>{0x1000});
  }
}

TEST_CASE("record-all writers wait through a reader that stalls for seconds, losing nothing") {
  // The recorder's visitor can stall (a table of 2^23 rows growing); writers used to give up
  // for good after 1 s without room and drop the rest of the program's records.
  Area area(kData, 1024, /*wait_when_full=*/true);
  auto reader = RingReader::open(area.span());
  REQUIRE(reader);
  constexpr uint64_t kRecords = 4000;  // about 13 rings of 336-byte records
  std::atomic<bool> written{false};
  std::thread writer([&] {
    for (uint64_t i = 1; i <= kRecords; ++i) area.put(alloc_at(0x1000 * i));
    written = true;
  });
  uint64_t seen = 0;
  uint64_t in_order = 0;
  bool stalled = false;
  for (bool last = false; !last;) {
    last = written.load();  // everything is committed before the last drain starts
    reader->drain({}, [&](const DrainedRecord& r) {
      const auto* a = std::get_if<HeapAlloc>(&r.event);
      if (a == nullptr) return;
      ++seen;
      if (a->address == 0x1000 * seen) ++in_order;
      if (!stalled && seen == 100) {
        stalled = true;
        const struct timespec pause { 1, 500'000'000 };  // past the old 1 s give-up
        ::nanosleep(&pause, nullptr);
      }
    });
  }
  writer.join();
  CHECK(seen == kRecords);
  CHECK(in_order == kRecords);
  CHECK(reader->counters().dropped_records == 0);
}

TEST_CASE("a ring with room never drops, however closely the reader follows the writers") {
  // Sampled mode drops only when the ring is full. A writer that read the head before the tail
  // could see a tail that a fast reader had moved past that stale head, and take the ring for
  // full (most likely the one sampled record a 64 MiB ring lost in CI, sanitizer build). That
  // takes a preemption between two loads, so this run catches it only by chance; what it
  // always checks is that a ring never full drops nothing with a reader at the writers' heels.
  constexpr uint64_t kBig = 16 * 1024 * 1024;
  Area area(kBig, 1024, /*wait_when_full=*/false);
  auto reader = RingReader::open(area.span());
  REQUIRE(reader);
  // More writers than CPUs, so that some are preempted between their reads of the ring's ends.
  constexpr int kWriters = 8;
  // All the records together fill half the ring: it is never full, whatever the reader does.
  const uint64_t per_writer = kBig / 2 / alloc_at(1, 8).size() / kWriters;
  std::atomic<int> done{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      const auto record = alloc_at(0x1000 + static_cast<uint64_t>(w), 8);
      for (uint64_t i = 0; i < per_writer; ++i) area.put(record);
      ++done;
    });
  }
  uint64_t seen = 0;
  for (bool last = false; !last;) {
    last = done.load() == kWriters;
    seen += drain(*reader).count;
  }
  for (auto& t : writers) t.join();
  CHECK(reader->counters().dropped_records == 0);
  CHECK(reader->counters().dropped_contended == 0);
  CHECK(seen == kWriters * per_writer);
}

TEST_CASE("the reader hands space back during a long drain, not only at its end") {
  Area area;
  auto reader = RingReader::open(area.span());
  REQUIRE(reader);
  const uint64_t size = alloc_at(1).size();
  size_t written = 0;
  while (area.put(alloc_at(0x1000 * (written + 1)))) ++written;
  REQUIRE(written > 100);
  uint64_t tail_seen_mid_drain = 0;
  size_t visited = 0;
  reader->drain({}, [&](const DrainedRecord&) {
    if (++visited == written - 1)
      tail_seen_mid_drain = std::atomic_ref<uint64_t>(area.header()->read_tail).load();
  });
  // While visiting the last but one record, all but at most a sixteenth of the ring before it
  // has been handed back (the old reader handed back nothing until the drain ended).
  CHECK(tail_seen_mid_drain + kData / 16 >= (written - 1) * size);
  CHECK(tail_seen_mid_drain > 0);
  CHECK(area.header()->read_tail == reader->position());
}

TEST_CASE("once the reader closes the ring, record-all writers drop and name the cause") {
  Area area(kData, 1024, /*wait_when_full=*/true);
  auto reader = RingReader::open(area.span());
  REQUIRE(reader);
  size_t written = 0;
  // Fill the ring without waiting: a full record-all ring would block this thread.
  const uint32_t size = static_cast<uint32_t>(alloc_at(1).size());
  while (kData - written * size >= size) {
    REQUIRE(area.put(alloc_at(0x1000 * (written + 1))));
    ++written;
  }
  reader->close_for_writers();
  CHECK_FALSE(area.put(alloc_at(0x42000)));
  CHECK_FALSE(area.put(alloc_at(0x43000)));
  const RingCounters c = reader->counters();
  CHECK(c.dropped_records == 2);
  CHECK(c.dropped_reader_gone == 2);
  CHECK(c.dropped_contended == 0);
  CHECK(drain(*reader).count == written);
}

TEST_CASE("a record-all writer whose reader's process is gone drops instead of hanging") {
  Area area(kData, 1024, /*wait_when_full=*/false);
  // A pid that no longer exists: a child that has been reaped.
  const pid_t child = fork();
  if (child == 0) _exit(0);
  REQUIRE(child > 0);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  area.writer.init(area.header(), area.data(), kData, /*wait_when_full=*/true,
                   static_cast<uint64_t>(child));
  const uint32_t size = static_cast<uint32_t>(alloc_at(1).size());
  size_t written = 0;
  while (kData - written * size >= size) {
    REQUIRE(area.put(alloc_at(0x1000 * (written + 1))));
    ++written;
  }
  errno = 1234;
  CHECK_FALSE(area.put(alloc_at(0x42000)));
  CHECK(errno == 1234);  // the liveness check leaves the program's errno alone
  CHECK(area.header()->counters.dropped_reader_gone == 1);
}
