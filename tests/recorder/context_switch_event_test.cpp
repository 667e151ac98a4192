// The context-switch event behind off-CPU stacks: its attr matches the sampling event's layout,
// and the parser gives back the event id that tells the two events' samples apart.
#include <doctest/doctest.h>

#include "perf/perf_event.hpp"
#include "perf_names.hpp"
#include "record_builder.hpp"
#include "sprof/perf/record_parser.hpp"

TEST_CASE("context-switch event shares the sampling event's layout but not its side-band records") {
  perf::EventConfig config;
  config.user_regs_stack = true;
  config.off_cpu = true;
  const perf_event_attr sampling =
      perf::make_sample_attr(config, perf::EventKind::kCpuClock, 1 << 20, 127);
  CHECK((sampling.sample_type & PERF_SAMPLE_IDENTIFIER) != 0);
  const perf_event_attr cs = perf::make_context_switch_attr(sampling);
  CHECK(cs.type == PERF_TYPE_SOFTWARE);
  CHECK(cs.config == PERF_COUNT_SW_CONTEXT_SWITCHES);
  CHECK(cs.freq == 0);
  CHECK(cs.sample_period == 1);
  // One SampleLayout parses both: same sample_type, registers, stack size and trailer.
  CHECK(cs.sample_type == sampling.sample_type);
  CHECK(cs.sample_regs_user == sampling.sample_regs_user);
  CHECK(cs.sample_stack_user == sampling.sample_stack_user);
  CHECK(cs.sample_id_all == sampling.sample_id_all);
  // SET_OUTPUT requires the same clock.
  CHECK(cs.use_clockid == sampling.use_clockid);
  CHECK(cs.clockid == sampling.clockid);
  CHECK(cs.inherit == sampling.inherit);
  CHECK(cs.enable_on_exec == sampling.enable_on_exec);
  CHECK(cs.mmap == 0);
  CHECK(cs.mmap2 == 0);
  CHECK(cs.mmap_data == 0);
  CHECK(cs.comm == 0);
  CHECK(cs.task == 0);
  CHECK(cs.context_switch == 0);

  config.off_cpu = false;
  config.runtime_counts = false;
  CHECK((perf::make_sample_attr(config, perf::EventKind::kCpuClock, 1 << 20, 127).sample_type &
         PERF_SAMPLE_IDENTIFIER) == 0);
}

TEST_CASE("CPU-wide switch event writes only switch records, parsed with the sampling layout") {
  perf::EventConfig config;
  config.user_regs_stack = true;
  config.off_cpu = true;
  const perf_event_attr sampling =
      perf::make_sample_attr(config, perf::EventKind::kCpuClock, 1 << 20, 127);
  const perf_event_attr wide = perf::make_cpu_wide_switch_attr(sampling);
  CHECK(wide.type == PERF_TYPE_SOFTWARE);
  CHECK(wide.config == PERF_COUNT_SW_DUMMY);
  CHECK(wide.sample_period == 0);
  CHECK(wide.freq == 0);
  CHECK(wide.context_switch == 1);
  // Its records' sample_id trailer must parse like the sampling event's, into the same ring.
  CHECK(wide.sample_type == sampling.sample_type);
  CHECK(wide.sample_id_all == 1);
  CHECK(wide.use_clockid == sampling.use_clockid);
  CHECK(wide.clockid == sampling.clockid);
  // A CPU-wide event is not a task's: nothing to inherit or to wait for an exec for.
  CHECK(wide.inherit == 0);
  CHECK(wide.enable_on_exec == 0);
  CHECK(wide.disabled == 0);
  CHECK(wide.mmap == 0);
  CHECK(wide.mmap2 == 0);
  CHECK(wide.comm == 0);
  CHECK(wide.task == 0);
}

TEST_CASE("parser reads the sample's event id from PERF_SAMPLE_IDENTIFIER") {
  const auto layout = sprof::test::make_layout(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
                                               PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
  sprof::test::SampleSpec spec;
  spec.record.ip = 0x401000;
  spec.record.id = perf::SampleId{1, 2, 3, 0};
  const auto bytes = sprof::test::RecordBuilder(layout).sample(spec);
  auto parsed = perf::parse_record(perf::RawRecord{bytes}, layout);
  REQUIRE(parsed.has_value());
  const auto& s = std::get<perf::SampleRecord>(*parsed);
  // The builder writes its filler as the identifier.
  CHECK(s.event_id == sprof::test::kFiller);
  CHECK(s.ip == 0x401000);
  // Set from the event's role (RecordStream), never by the parser.
  CHECK_FALSE(s.context_switch_sample);
}

TEST_CASE("runtime-count event samples the scheduler's count into the sampling event's ring") {
  perf::EventConfig config;
  config.user_regs_stack = true;
  config.off_cpu = false;  // the count alone asks for the identifier too
  perf_event_attr sampling =
      perf::make_sample_attr(config, perf::EventKind::kCpuClock, 1 << 20, 127);
  sampling.exclude_kernel = 1;  // as after a perf_event_paranoid retry
  CHECK((sampling.sample_type & PERF_SAMPLE_IDENTIFIER) != 0);
  const perf_event_attr count = perf::make_runtime_attr(sampling, 363);
  CHECK(count.type == PERF_TYPE_TRACEPOINT);
  CHECK(count.config == 363u);
  CHECK(count.freq == 0);
  CHECK(count.sample_period > 0u);
  // With PERF_SAMPLE_PERIOD the kernel would sample every hit of the tracepoint.
  CHECK((count.sample_type & PERF_SAMPLE_PERIOD) == 0);
  CHECK((count.sample_type & PERF_SAMPLE_READ) != 0);
  CHECK(count.read_format == 0u);
  CHECK(count.exclude_kernel == 0);  // the tracepoint fires in the kernel
  // Told apart by id in the same ring: the id and the trailer fields match the sampling event's.
  CHECK((count.sample_type & PERF_SAMPLE_IDENTIFIER) != 0);
  const uint64_t trailer = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_ID |
                           PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_IDENTIFIER;
  CHECK((count.sample_type & trailer) == (sampling.sample_type & trailer));
  CHECK(count.sample_id_all == 1);
  CHECK(bool(count.use_clockid == sampling.use_clockid));
  CHECK(bool(count.clockid == sampling.clockid));
  CHECK(bool(count.inherit == sampling.inherit));
  CHECK(bool(count.enable_on_exec == sampling.enable_on_exec));
  CHECK(count.sample_stack_user == 0u);
  CHECK(count.mmap == 0);
  CHECK(count.comm == 0);
  CHECK(count.task == 0);
  CHECK(count.context_switch == 0);
}
