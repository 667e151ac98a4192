// Which event wrote each record, and its layout: several events with different sample_types in
// one stream (as in a perf.data file), ids from PERF_SAMPLE_IDENTIFIER or PERF_SAMPLE_ID, and the
// context-switch event's samples, decoded and ordered by RecordStream.
#include "sprof/perf/event_table.hpp"

#include <doctest/doctest.h>

#include <variant>
#include <vector>

#include "record_builder.hpp"
#include "sprof/arch/x86_64.hpp"
#include "sprof/perf/record_stream.hpp"

namespace perf = sprof::perf;
using sprof::Errc;
using sprof::test::RecordBuilder;
using sprof::test::SampleSpec;

namespace {

constexpr uint64_t kCommon =
    PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
constexpr uint64_t kRegsMask = sprof::arch::x86_64::kUnwindRegsMask;

perf::EventSpec spec(uint64_t sample_type, perf::EventRole role = perf::EventRole::kSampling) {
  perf::EventSpec s;
  s.attr.sample_type = sample_type;
  s.attr.sample_id_all = 1;
  s.attr.sample_regs_user = (sample_type & PERF_SAMPLE_REGS_USER) ? kRegsMask : 0;
  s.attr.sample_stack_user = (sample_type & PERF_SAMPLE_STACK_USER) ? 64 : 0;
  s.role = role;
  return s;
}

perf::SampleRecord sample_at(uint64_t time) {
  perf::SampleRecord s;
  s.id = perf::SampleId{10, 11, time, 0};
  s.ip = 0x401000 + time;
  s.period = 1000;
  return s;
}

std::vector<perf::Record> read_all(perf::RecordStream& stream,
                                   const std::vector<std::vector<uint8_t>>& records) {
  for (const auto& bytes : records) stream.add(perf::RawRecord{bytes});
  std::vector<perf::Record> out;
  stream.flush([&](perf::Record&& r) { out.push_back(std::move(r)); });
  return out;
}

}  // namespace

TEST_CASE("each record decodes with the layout of the event its identifier names") {
  // A callchain event and a DWARF event (registers and stack copies) in one stream.
  auto table = perf::EventTable::create(
      {spec(PERF_SAMPLE_IDENTIFIER | kCommon | PERF_SAMPLE_CALLCHAIN),
       spec(PERF_SAMPLE_IDENTIFIER | kCommon | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)});
  REQUIRE(table.has_value());
  table->add_id(11, 0);
  table->add_id(22, 1);
  const RecordBuilder callchains(table->event(0).layout, 11);
  const RecordBuilder stacks(table->event(1).layout, 22);

  SampleSpec with_chain;
  with_chain.record = sample_at(1);
  with_chain.record.callchain = {0x401001, 0x402000};
  SampleSpec with_stack;
  with_stack.record = sample_at(2);
  with_stack.record.regs_user_abi = PERF_SAMPLE_REGS_ABI_64;
  with_stack.record.regs_user.assign(17, 0x7ffd0000);
  with_stack.record.stack_user = std::vector<uint8_t>(64, 0xAB);
  perf::CommRecord comm;
  comm.id = perf::SampleId{10, 10, 3, 0};
  comm.pid = comm.tid = 10;
  comm.comm = "app";

  perf::RecordStream stream(std::move(*table));
  const auto records = read_all(
      stream, {stacks.sample(with_stack), callchains.sample(with_chain), stacks.comm(comm)});
  CHECK(stream.stats().malformed_records == 0);
  REQUIRE(records.size() == 3);
  // In time order: the callchain sample, the DWARF sample, the COMM from its trailer's time.
  const auto& first = std::get<perf::SampleRecord>(records[0]);
  CHECK(first.callchain == std::vector<uint64_t>{0x401001, 0x402000});
  CHECK(first.event_id == 11);
  CHECK(first.regs_user.empty());
  const auto& second = std::get<perf::SampleRecord>(records[1]);
  CHECK(second.event_id == 22);
  CHECK(second.regs_user.size() == 17);
  CHECK(second.sample_regs_user == kRegsMask);
  CHECK(second.stack_user.size() == 64);
  CHECK(second.callchain.empty());
  CHECK(std::get<perf::CommRecord>(records[2]).comm == "app");
}

TEST_CASE("context-switch samples are marked, and unknown ids belong to the first event") {
  const uint64_t sample_type = PERF_SAMPLE_IDENTIFIER | kCommon | PERF_SAMPLE_CALLCHAIN;
  auto table = perf::EventTable::create(
      {spec(sample_type), spec(sample_type, perf::EventRole::kContextSwitch)});
  REQUIRE(table.has_value());
  table->add_id(7, 1);  // the context-switch event; the sampling event's ids stay unknown
  const perf::SampleLayout layout = table->event(0).layout;
  SampleSpec s;
  s.record = sample_at(1);
  const auto switch_sample = RecordBuilder(layout, 7).sample(s);
  s.record = sample_at(2);
  const auto periodic_sample = RecordBuilder(layout, 8).sample(s);

  perf::RecordStream stream(std::move(*table));
  const auto records = read_all(stream, {switch_sample, periodic_sample});
  REQUIRE(records.size() == 2);
  CHECK(std::get<perf::SampleRecord>(records[0]).context_switch_sample);
  CHECK_FALSE(std::get<perf::SampleRecord>(records[1]).context_switch_sample);
}

TEST_CASE("the runtime-count event's samples become runtime records with their count") {
  const uint64_t sampling_type = PERF_SAMPLE_IDENTIFIER | kCommon | PERF_SAMPLE_CALLCHAIN;
  perf::EventSpec count = spec(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                   PERF_SAMPLE_CPU | PERF_SAMPLE_READ,
                               perf::EventRole::kRuntime);
  count.attr.read_format = PERF_FORMAT_ID;  // a value and its id: the count is the first
  auto table = perf::EventTable::create({spec(sampling_type), count});
  REQUIRE(table.has_value());
  table->add_id(9, 1);
  SampleSpec s;
  s.record = sample_at(1);
  const auto periodic = RecordBuilder(table->event(0).layout, 8).sample(s);
  s.record = sample_at(2);
  s.record.id.cpu = 3;
  s.record.read_value = 4'000'123;
  const auto counted = RecordBuilder(table->event(1).layout, 9).sample(s);

  perf::RecordStream stream(std::move(*table));
  const auto records = read_all(stream, {periodic, counted});
  REQUIRE(records.size() == 2);
  CHECK(std::holds_alternative<perf::SampleRecord>(records[0]));
  const auto& runtime = std::get<perf::RuntimeRecord>(records[1]);
  CHECK(runtime.runtime_ns == 4'000'123u);
  CHECK(runtime.id.tid == 11u);
  CHECK(runtime.id.time == 2u);
  CHECK(runtime.id.cpu == 3u);
}

TEST_CASE("a runtime-count event whose samples carry no count is refused as malformed") {
  perf::EventSpec count =
      spec(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
           perf::EventRole::kRuntime);
  auto table = perf::EventTable::create({spec(PERF_SAMPLE_IDENTIFIER | kCommon), count});
  REQUIRE(table.has_value());
  table->add_id(9, 1);
  SampleSpec s;
  s.record = sample_at(1);
  const auto counted = RecordBuilder(table->event(1).layout, 9).sample(s);
  perf::RecordStream stream(std::move(*table));
  CHECK(read_all(stream, {counted}).empty());
  CHECK(stream.stats().malformed_records == 1u);
}

TEST_CASE("PERF_SAMPLE_ID without an identifier is read where each layout puts it") {
  // The id sits at the same place in both events' records (three u64 before it in a sample, the
  // cpu after it in the trailer), but the second event has no tid: its trailers are shorter.
  const uint64_t second_type = PERF_SAMPLE_ID | PERF_SAMPLE_IP | PERF_SAMPLE_ADDR |
                               PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
  auto table = perf::EventTable::create({spec(PERF_SAMPLE_ID | kCommon | PERF_SAMPLE_CALLCHAIN),
                                         spec(second_type, perf::EventRole::kContextSwitch)});
  REQUIRE(table.has_value());
  table->add_id(5, 1);
  const perf::SampleLayout first_layout = table->event(0).layout;
  const RecordBuilder first(first_layout, 4);
  const RecordBuilder second(table->event(1).layout, 5);
  SampleSpec s;
  s.record = sample_at(1);
  s.record.callchain = {0x401001};
  const auto a = first.sample(s);
  s.record = sample_at(2);
  s.record.callchain.clear();
  const auto b = second.sample(s);
  perf::CommRecord comm;
  comm.id = perf::SampleId{0, 0, 3, 1};
  comm.pid = comm.tid = 10;
  comm.comm = "app";
  const auto c = second.comm(comm);
  // Read with the first event's (longer) trailer, the name would lose its bytes.
  auto misread = perf::parse_record(perf::RawRecord{c}, first_layout);
  CHECK((!misread || std::get<perf::CommRecord>(*misread).comm != "app"));

  perf::RecordStream stream(std::move(*table));
  const auto records = read_all(stream, {a, b, c});
  CHECK(stream.stats().malformed_records == 0);
  REQUIRE(records.size() == 3);
  CHECK(std::get<perf::SampleRecord>(records[0]).callchain == std::vector<uint64_t>{0x401001});
  CHECK_FALSE(std::get<perf::SampleRecord>(records[0]).context_switch_sample);
  CHECK(std::get<perf::SampleRecord>(records[1]).context_switch_sample);
  CHECK(std::get<perf::SampleRecord>(records[1]).event_id == 5);
  CHECK(std::get<perf::CommRecord>(records[2]).comm == "app");
  CHECK(std::get<perf::CommRecord>(records[2]).id.time == 3);
}

TEST_CASE("events whose records carry the id in different places cannot share a table") {
  auto mixed = perf::EventTable::create(
      {spec(PERF_SAMPLE_IDENTIFIER | kCommon), spec(PERF_SAMPLE_ID | kCommon)});
  REQUIRE_FALSE(mixed.has_value());
  CHECK(mixed.error().code == Errc::kUnsupported);
  auto none = perf::EventTable::create({});
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().code == Errc::kInvalidArgument);
}

TEST_CASE(
    "a side-band switch event's CPU-wide records reach the converter only as switch-outs "
    "to processes with records") {
  const uint64_t type = PERF_SAMPLE_IDENTIFIER | kCommon;
  auto table = perf::EventTable::create({spec(type), spec(type, perf::EventRole::kSwitchSideBand)});
  REQUIRE(table.has_value());
  const RecordBuilder b(table->event(0).layout);
  auto cpu_wide = [&](bool out, uint32_t next_pid, uint64_t time, uint32_t prev_pid = 900) {
    perf::SwitchRecord r;
    r.id = perf::SampleId{prev_pid, prev_pid + 1, time, 0};
    r.out = out;
    r.next_prev_pid = next_pid;
    r.next_prev_tid = next_pid + 1;
    return b.context_switch(r, true);
  };
  perf::ForkRecord fork;
  fork.id = perf::SampleId{50, 50, 3, 0};
  fork.pid = 60;
  fork.ppid = 50;
  fork.tid = 60;
  fork.ptid = 50;
  perf::SwitchRecord own;
  own.id = perf::SampleId{50, 50, 2, 0};
  perf::RecordStream stream(std::move(*table));
  const auto out =
      read_all(stream, {cpu_wide(true, 50, 1),  // before any record of pid 50
                        b.context_switch(own, false), cpu_wide(true, 50, 4),  // kept
                        cpu_wide(false, 50, 5),               // a switch-in: dropped
                        cpu_wide(true, 70, 6),                // another process: dropped
                        b.fork(fork), cpu_wide(true, 60, 7),  // the forked process: kept
                        cpu_wide(true, 70, 8, 50)});          // leaving one of ours: kept
  std::vector<uint64_t> kept;
  for (const auto& r : out) {
    if (const auto* sw = std::get_if<perf::SwitchRecord>(&r); sw && sw->cpu_wide) {
      kept.push_back(sw->id.time);
    }
  }
  CHECK(kept == std::vector<uint64_t>{4, 7, 8});
  CHECK(out.size() == 5);
}
