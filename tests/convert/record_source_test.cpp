// The list source: typed records a test made, fed to the converter the way every source feeds
// it (RecordSource -> ProfileConverter::consume_all).
#include "sprof/convert/record_source.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "fake_host_files.hpp"
#include "sprof/convert/profile_converter.hpp"
#include "sprof/profile/gecko_writer.hpp"
#include "synthetic_records.hpp"

using namespace sprof;
using namespace sprof::convert;

namespace {

constexpr uint64_t kOrigin = 1'000'000'000;
uint64_t at_ms(uint64_t ms) { return kOrigin + ms * 1'000'000; }

perf::SampleRecord sample(uint32_t tid, uint64_t ms, uint64_t ip) {
  return test::sample_record(10, tid, at_ms(ms), {test::kContextUser, ip}, 1'000'000);
}

// Process 10 execs, starts thread 11, both run, 11 exits. In time order.
std::vector<perf::Record> scenario() {
  return {test::comm_record(10, 10, "app", true, at_ms(0)),
          test::fork_record(10, 10, 11, 10, at_ms(1)),
          sample(10, 2, 0x1000),
          test::comm_record(10, 11, "worker", false, at_ms(2)),
          sample(11, 3, 0x2000),
          sample(10, 4, 0x1100),
          test::exit_record(10, 11, at_ms(5))};
}

ConverterOptions options() {
  ConverterOptions o;
  o.origin_monotonic_ns = kOrigin;
  o.root_pid = 10;
  return o;
}

std::string convert_one_by_one(const std::vector<perf::Record>& records) {
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(), cache);
  for (const auto& r : records) c.consume(r);
  return profile::gecko_json_string(c.finish(at_ms(6)));
}

}  // namespace

TEST_CASE("a list source emits its records in time order, ties in list order, then is done") {
  std::vector<perf::Record> records = {sample(10, 3, 0x3), sample(10, 1, 0x1), sample(11, 2, 0x2),
                                       sample(10, 1, 0x11)};
  RecordListSource source(std::move(records));
  std::vector<uint64_t> ips;
  const perf::RecordSink sink = [&](perf::Record&& r) {
    ips.push_back(std::get<perf::SampleRecord>(r).callchain.back());
  };
  CHECK_FALSE(source.read_available(sink));  // a list has nothing more to come
  CHECK(ips == std::vector<uint64_t>{0x1, 0x11, 0x2, 0x3});
  source.flush_all(sink);
  CHECK(ips.size() == 4);
}

TEST_CASE("the converter takes a list source's records as if they came one by one in time order") {
  const std::string expected = convert_one_by_one(scenario());

  // The same records, listed out of order: the source puts them back in time order.
  std::vector<perf::Record> shuffled = scenario();
  std::swap(shuffled[2], shuffled[5]);
  std::swap(shuffled[0], shuffled[6]);
  test::FakeHostFiles files;
  ModuleCache cache(files);
  ProfileConverter c(options(), cache);
  RecordListSource source(std::move(shuffled));
  c.consume_all(source);
  const profile::Profile p = c.finish(at_ms(6));

  CHECK(profile::gecko_json_string(p) == expected);
  REQUIRE(p.processes.size() == 1);
  REQUIRE(p.processes[0].threads.size() == 2);
  CHECK(p.processes[0].threads[0].samples().size() == 2);
  CHECK(p.processes[0].threads[1].name == "worker");
  CHECK(p.processes[0].threads[1].unregister_time_ms == doctest::Approx(5.0));
  CHECK(c.stats().samples == 3);
}
