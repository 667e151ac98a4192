// The live record source without a kernel: records written as bytes into heap rings (two CPUs)
// come out of RingRecordSource decoded, merged in time order across the rings, with the
// context-switch event's samples marked, and convert into the same profile as the same records
// from a list source.
#include "perf/ring_record_source.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "fake_host_files.hpp"
#include "fake_kernel_ring.hpp"
#include "perf/perf_event.hpp"
#include "record_builder.hpp"
#include "sprof/convert/profile_converter.hpp"
#include "sprof/convert/record_source.hpp"
#include "sprof/convert/source_description.hpp"
#include "sprof/profile/gecko_writer.hpp"
#include "synthetic_records.hpp"

using namespace sprof;
namespace cperf = sprof::perf;
using recorder::perf::RingRecordSource;
using test::FakeKernelRing;
using test::RecordBuilder;

namespace {

constexpr uint64_t kOrigin = 1'000'000'000;
constexpr uint32_t kPid = 10;
constexpr uint64_t kSwitchEventId = 77;   // what PERF_EVENT_IOC_ID said for the switch event
constexpr uint64_t kSamplingEventId = 1;  // never registered: the table's default event

uint64_t at_us(uint64_t us) { return kOrigin + us * 1000; }

// The attrs a DWARF-less recording with off-CPU stacks opens (perf_event.cpp).
std::vector<cperf::EventSpec> recording_events() {
  recorder::perf::EventConfig config;
  config.off_cpu = true;
  const perf_event_attr sampling =
      recorder::perf::make_sample_attr(config, recorder::perf::EventKind::kCpuClock, 1 << 16, 127);
  return {{sampling, cperf::EventRole::kSampling},
          {recorder::perf::make_context_switch_attr(sampling), cperf::EventRole::kContextSwitch}};
}

// One record of the scenario: the typed record, and on which CPU's ring it is written.
struct Written {
  cperf::Record record;
  uint32_t cpu;
};

cperf::SampleRecord on_cpu(uint32_t tid, uint64_t us, uint32_t cpu, uint64_t ip) {
  auto s = test::sample_record(kPid, tid, at_us(us), {test::kContextUser, ip, 0x400100}, 1000);
  s.id.cpu = cpu;
  return s;
}

template <typename R>
R on(R r, uint32_t cpu) {
  r.id.cpu = cpu;
  return r;
}

cperf::SwitchRecord switched(uint32_t tid, uint64_t us, uint32_t cpu, bool out) {
  cperf::SwitchRecord r;
  r.id = test::sample_id(kPid, tid, at_us(us));
  r.id.cpu = cpu;
  r.out = out;
  return r;
}

// Process 10 execs and starts thread 11; both run on two CPUs; 11 blocks (the switch event's
// sample, then a voluntary switch-out), wakes on the other CPU, and exits. The kernel lost 5
// records on CPU 1. Per ring, in the order each CPU wrote them.
std::vector<Written> scenario() {
  auto blocked = test::sample_record(
      kPid, 11, at_us(3000),
      {test::kContextKernel, 0xffffffff81000100, test::kContextUser, 0x405000, 0x400100}, 1);
  blocked.id.cpu = 1;
  blocked.context_switch_sample = true;
  cperf::LostRecord lost;
  lost.id = test::sample_id(kPid, 11, at_us(6000));
  lost.id.cpu = 1;
  lost.lost = 5;
  return {
      {on(test::comm_record(kPid, kPid, "app", true, at_us(0)), 0), 0},
      {on(test::fork_record(kPid, kPid, 11, kPid, at_us(1000)), 0), 0},
      {on_cpu(kPid, 2000, 0, 0x401000), 0},
      {on_cpu(11, 2500, 1, 0x402000), 1},
      {blocked, 1},
      {switched(11, 3001, 1, true), 1},
      {on_cpu(kPid, 5000, 0, 0x401010), 0},
      {lost, 1},
      {switched(11, 7000, 0, false), 0},
      {on_cpu(11, 8000, 0, 0x402010), 0},
      {on(test::exit_record(kPid, 11, at_us(9000)), 0), 0},
  };
}

std::vector<uint8_t> bytes_of(const cperf::Record& r, const cperf::SampleLayout& layout) {
  return std::visit(
      [&](const auto& rec) -> std::vector<uint8_t> {
        using T = std::decay_t<decltype(rec)>;
        if constexpr (std::is_same_v<T, cperf::SampleRecord>) {
          test::SampleSpec spec;
          spec.record = rec;
          return RecordBuilder(layout,
                               rec.context_switch_sample ? kSwitchEventId : kSamplingEventId)
              .sample(spec);
        } else if constexpr (std::is_same_v<T, cperf::CommRecord>) {
          return RecordBuilder(layout, kSamplingEventId).comm(rec);
        } else if constexpr (std::is_same_v<T, cperf::ForkRecord>) {
          return RecordBuilder(layout, kSamplingEventId).fork(rec);
        } else if constexpr (std::is_same_v<T, cperf::ExitRecord>) {
          return RecordBuilder(layout, kSamplingEventId).exit(rec);
        } else if constexpr (std::is_same_v<T, cperf::SwitchRecord>) {
          return RecordBuilder(layout, kSamplingEventId).context_switch(rec, false);
        } else if constexpr (std::is_same_v<T, cperf::LostRecord>) {
          return RecordBuilder(layout, kSamplingEventId).lost(rec);
        } else {
          FAIL("the scenario has no such record");
          return {};
        }
      },
      r);
}

// The live source over two heap rings (CPUs 0 and 1), reading the recording's two events.
struct TwoCpuRings {
  FakeKernelRing ring0{4096};
  FakeKernelRing ring1{4096};
  recorder::perf::RingBuffer reader0 = ring0.reader();
  recorder::perf::RingBuffer reader1 = ring1.reader();
  cperf::EventTable table = event_table();
  const cperf::SampleLayout layout = table.event(0).layout;
  RingRecordSource source{{{0, &reader0}, {1, &reader1}}, table};

  static cperf::EventTable event_table() {
    auto table = cperf::EventTable::create(recording_events());
    REQUIRE(table.has_value());
    table->add_id(kSwitchEventId, 1);
    return std::move(*table);
  }
  // Writes `w` into its CPU's ring as the kernel would; false when it does not fit.
  bool write(const Written& w) {
    return (w.cpu == 0 ? ring0 : ring1).write(bytes_of(w.record, layout));
  }
};

convert::SourceDescription describe(std::vector<cperf::EventSpec> events) {
  convert::SourceDescription d;
  d.events = std::move(events);
  d.origin_monotonic_ns = kOrigin;
  d.root_pid = kPid;
  d.product = "sprof: app";
  return d;
}

// Converts everything `source` gives: one read after each batch of writes, then the flush.
profile::Profile convert_from(convert::RecordSource& source,
                              const std::function<void(int batch)>& write_batch,
                              convert::RecordingStats* stats = nullptr) {
  test::FakeHostFiles files;
  convert::ModuleCache cache(files);
  convert::ProfileConverter c(convert::converter_options(describe(recording_events()), {}, nullptr),
                              cache);
  const cperf::RecordSink sink = [&](cperf::Record&& r) { c.consume(r); };
  for (int batch = 0; batch < 2; ++batch) {
    write_batch(batch);
    source.read_available(sink);
  }
  source.flush_all(sink);
  auto p = c.finish(at_us(10'000));
  if (stats) *stats = c.stats();
  return p;
}

}  // namespace

TEST_CASE("the ring source decodes both CPUs' rings into one time-ordered stream") {
  TwoCpuRings rings;
  RingRecordSource& source = rings.source;
  for (const auto& w : scenario()) REQUIRE(rings.write(w));

  std::vector<cperf::Record> out;
  const cperf::RecordSink sink = [&](cperf::Record&& r) { out.push_back(std::move(r)); };
  CHECK(source.read_available(sink));  // a live source never says it is done
  source.flush_all(sink);
  REQUIRE(out.size() == scenario().size());
  for (size_t i = 1; i < out.size(); ++i) {
    CHECK(cperf::record_time(out[i - 1]) <= cperf::record_time(out[i]));
  }
  size_t switch_samples = 0;
  for (const auto& r : out) {
    if (const auto* s = std::get_if<cperf::SampleRecord>(&r)) {
      if (s->context_switch_sample) {
        ++switch_samples;
        CHECK(s->event_id == kSwitchEventId);
        CHECK(s->id.time == at_us(3000));
      }
    }
  }
  CHECK(switch_samples == 1);
  const auto stats = source.stats();
  CHECK(stats.records == scenario().size());
  CHECK(stats.malformed_records == 0);
  CHECK(stats.ring_corruptions == 0);
}

TEST_CASE("records from heap rings convert into the profile the same records give from a list") {
  const auto records = scenario();

  // The live path: bytes in two rings, written in two batches (the first up to the block), read
  // in rounds.
  TwoCpuRings rings;
  convert::RecordingStats ring_stats;
  const profile::Profile from_rings = convert_from(
      rings.source,
      [&](int batch) {
        for (size_t i = batch == 0 ? 0 : 6; i < (batch == 0 ? 6 : records.size()); ++i) {
          REQUIRE(rings.write(records[i]));
        }
      },
      &ring_stats);

  // The same typed records as a list.
  std::vector<cperf::Record> typed;
  for (const auto& w : records) typed.push_back(w.record);
  convert::RecordListSource list(std::move(typed));
  const profile::Profile from_list = convert_from(list, [](int) {});

  CHECK(profile::gecko_json_string(from_rings) == profile::gecko_json_string(from_list));
  // And that profile is the scenario's: two threads, the block as off-CPU samples, the loss.
  REQUIRE(from_rings.processes.size() == 1);
  REQUIRE(from_rings.processes[0].threads.size() == 2);
  CHECK(from_rings.processes[0].threads[1].name == "app");  // thread 11 kept the process's comm
  // Blocked from the off-CPU sample at 3 ms (the switch-out record at 3.001 ms comes after its
  // stack copy) to 7 ms: grid points 3, 4, 5, 6.
  CHECK(ring_stats.off_cpu_samples == 4);
  CHECK(ring_stats.lost_records == 5);
  CHECK(ring_stats.samples >= 4 + ring_stats.off_cpu_samples);
}

namespace {

// An extra input with a backlog it hands out a few records per round, as the allocation ring's
// reader does (HeapRingInput): each round says from when on it still holds records.
class BacklogInput final : public recorder::perf::RoundInput {
 public:
  BacklogInput(std::vector<uint64_t> times, size_t per_round)
      : times_(std::move(times)), per_round_(per_round) {}
  std::optional<uint64_t> read_round(const std::function<void(cperf::Record&&)>& add) override {
    ++rounds_;
    const size_t end = std::min(next_ + per_round_, times_.size());
    for (; next_ < end; ++next_) add(on_cpu(kPid, (times_[next_] - kOrigin) / 1000, 0, 0x401000));
    if (next_ == times_.size()) return std::nullopt;
    return times_[next_ - 1];
  }
  size_t left() const { return times_.size() - next_; }
  int rounds() const { return rounds_; }

 private:
  std::vector<uint64_t> times_;
  size_t per_round_;
  size_t next_ = 0;
  int rounds_ = 0;
};

}  // namespace

TEST_CASE("an input read in bounded rounds is merged in order with what the rings held") {
  TwoCpuRings rings;
  // The rings' records: the process starts at 0 and exits at 9 ms.
  REQUIRE(rings.write({on(test::comm_record(kPid, kPid, "app", true, at_us(0)), 0), 0}));
  REQUIRE(rings.write({on(test::exit_record(kPid, kPid, at_us(9000)), 1), 1}));
  // The backlog: 1,000 records between 1 and 8.99 ms, 16 a round, so the reads during the
  // recording leave most of it and flush_all must go on until it is all read.
  std::vector<uint64_t> times;
  for (uint64_t i = 0; i < 1000; ++i) times.push_back(at_us(1000 + i * 8));
  BacklogInput backlog(times, 16);
  rings.source.add_round_input(backlog);

  std::vector<uint64_t> out;
  const cperf::RecordSink sink = [&](cperf::Record&& r) { out.push_back(cperf::record_time(r)); };
  for (int read = 0; read < 10; ++read) {
    rings.source.read_available(sink);
    CHECK(backlog.rounds() == read + 1);  // one round a read: the caller checks between them
    CHECK(rings.source.behind());         // and comes back at once
  }
  CHECK(out.size() < 10 * 16);  // the exit (9 ms) waits for the records before it
  for (uint64_t t : out) CHECK(t < at_us(9000));
  rings.source.flush_all(sink);
  CHECK(backlog.left() == 0);
  CHECK_FALSE(rings.source.behind());
  REQUIRE(out.size() == 1002);
  CHECK(std::is_sorted(out.begin(), out.end()));
  CHECK(out.back() == at_us(9000));
  CHECK(rings.source.stats().late_records == 0);
}
