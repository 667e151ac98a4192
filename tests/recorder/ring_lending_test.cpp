// Samples parsed in place (RingRecordSource): their stack copies borrow the ring's bytes, a
// ring's space goes back to the kernel one round late, and what the sink keeps is copied before
// the kernel may write over it.
#include <doctest/doctest.h>

#include <vector>

#include "fake_kernel_ring.hpp"
#include "perf/perf_event.hpp"
#include "perf/ring_buffer.hpp"
#include "perf/ring_record_source.hpp"
#include "record_builder.hpp"
#include "sprof/perf/event_table.hpp"

using namespace sprof;
namespace cperf = sprof::perf;
using recorder::perf::RingRecordSource;
using test::FakeKernelRing;
using test::RecordBuilder;

namespace {

constexpr size_t kStackBytes = 64;

cperf::EventTable dwarf_events() {
  recorder::perf::EventConfig config;
  config.user_regs_stack = true;
  config.stack_user_bytes = kStackBytes;
  const perf_event_attr attr =
      recorder::perf::make_sample_attr(config, recorder::perf::EventKind::kCpuClock, 1 << 16, 127);
  auto table = cperf::EventTable::create({{attr, cperf::EventRole::kSampling}});
  REQUIRE(table.has_value());
  return std::move(*table);
}

// A user sample at `time` whose stack copy is `kStackBytes` bytes of `fill`.
std::vector<uint8_t> sample_bytes(const cperf::SampleLayout& layout, uint64_t time, uint8_t fill) {
  test::SampleSpec spec;
  cperf::SampleRecord& s = spec.record;
  s.id.pid = s.id.tid = 7;
  s.id.time = time;
  s.ip = 0x401000;
  s.period = 1;
  s.regs_user_abi = PERF_SAMPLE_REGS_ABI_64;
  s.regs_user.assign(static_cast<size_t>(__builtin_popcountll(layout.sample_regs_user())), 0);
  s.stack_user.assign(kStackBytes, fill);
  return RecordBuilder(layout).sample(spec);
}

struct OneRing {
  cperf::EventTable table = dwarf_events();
  const cperf::SampleLayout layout = table.event(0).layout;
  FakeKernelRing kernel{8192};
  recorder::perf::RingBuffer ring = kernel.reader();
  RingRecordSource source{{{0, &ring}}, table};
};

}  // namespace

TEST_CASE("ring buffer: read visits without handing back, release_to hands back up to a position") {
  OneRing r;
  REQUIRE(r.kernel.write(sample_bytes(r.layout, 10, 1)));
  const uint64_t first_end = r.kernel.head();
  REQUIRE(r.kernel.write(sample_bytes(r.layout, 20, 2)));

  size_t in_ring = 0;
  CHECK(r.ring.read([&](cperf::RawRecord raw) { in_ring += r.ring.in_ring(raw.bytes); }) == 2);
  CHECK(in_ring == 2);
  CHECK(r.kernel.tail() == 0);     // nothing handed back yet
  CHECK_FALSE(r.ring.has_data());  // but nothing left to read either
  CHECK(r.ring.read([](cperf::RawRecord) {}) == 0);
  r.ring.release_to(first_end);
  CHECK(r.kernel.tail() == first_end);
  r.ring.release_to(r.ring.read_position());
  CHECK(r.kernel.tail() == r.kernel.head());
}

TEST_CASE("samples borrow the ring's bytes; the ring is handed back a round late") {
  OneRing r;
  std::vector<cperf::SampleRecord> kept;  // what a sink keeps past the call
  size_t borrowed = 0;
  const cperf::RecordSink sink = [&](cperf::Record&& rec) {
    auto& s = std::get<cperf::SampleRecord>(rec);
    borrowed += s.stack_user.borrowed();
    kept.push_back(s);
  };
  r.source.set_before_release([&] {
    for (auto& s : kept) s.stack_user.own();
  });

  // Round 1 reads two samples; the merge keeps them for a round, so nothing is handed back.
  REQUIRE(r.kernel.write(sample_bytes(r.layout, 10, 0xa1)));
  REQUIRE(r.kernel.write(sample_bytes(r.layout, 20, 0xa2)));
  r.source.read_available(sink);
  CHECK(kept.empty());
  CHECK(r.kernel.tail() == 0);
  const uint64_t round1_end = r.kernel.head();

  // Round 2 emits them, lent from the ring, and then hands round 1's space back.
  REQUIRE(r.kernel.write(sample_bytes(r.layout, 30, 0xa3)));
  r.source.read_available(sink);
  REQUIRE(kept.size() == 2);
  CHECK(borrowed == 2);
  CHECK(r.kernel.tail() == round1_end);

  // The kernel now reuses that space; the kept samples own copies of their bytes.
  for (int i = 0; i < 40 && r.kernel.write(sample_bytes(r.layout, 40 + i, 0xee)); ++i) {
  }
  CHECK(kept[0].stack_user.size() == kStackBytes);
  CHECK(std::vector<uint8_t>(kept[0].stack_user.begin(), kept[0].stack_user.end()) ==
        std::vector<uint8_t>(kStackBytes, 0xa1));
  CHECK(std::vector<uint8_t>(kept[1].stack_user.begin(), kept[1].stack_user.end()) ==
        std::vector<uint8_t>(kStackBytes, 0xa2));

  // The flush emits the rest and hands everything back.
  r.source.flush_all(sink);
  CHECK(r.kernel.tail() == r.kernel.head());
  CHECK(std::vector<uint8_t>(kept[2].stack_user.begin(), kept[2].stack_user.end()) ==
        std::vector<uint8_t>(kStackBytes, 0xa3));
  CHECK(r.source.stats().malformed_records == 0);
}

TEST_CASE("a sample that wraps the end of the ring is copied, not lent") {
  OneRing r;
  const auto bytes = sample_bytes(r.layout, 10, 0xb1);
  r.kernel.set_positions(8192 - 64);  // the next record starts 64 bytes before the end
  r.ring = r.kernel.reader();
  RingRecordSource source{{{0, &r.ring}}, r.table};
  REQUIRE(r.kernel.write(bytes));
  std::vector<cperf::SampleRecord> out;
  source.flush_all([&](cperf::Record&& rec) { out.push_back(std::get<cperf::SampleRecord>(rec)); });
  REQUIRE(out.size() == 1);
  CHECK_FALSE(out[0].stack_user.borrowed());
  CHECK(std::vector<uint8_t>(out[0].stack_user.begin(), out[0].stack_user.end()) ==
        std::vector<uint8_t>(kStackBytes, 0xb1));
}
