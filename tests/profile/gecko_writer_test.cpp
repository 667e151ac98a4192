#include "sprof/profile/gecko_writer.hpp"

#include <doctest/doctest.h>

#include "sprof_test/gecko_validator.hpp"
#include "sprof_test/json_query.hpp"
#include "sprof_test/sample_profile.hpp"

using sprof::profile::gecko_json_string;
using sprof::test::JsonDoc;
using F = sprof::test::SampleProfileFacts;

namespace {

const std::string& sample_json() {
  static const std::string json = gecko_json_string(sprof::test::make_sample_profile());
  return json;
}

}  // namespace

TEST_CASE("the written sample profile passes the static format checks") {
  sprof::test::GeckoCheckOptions options;
  options.expect_idle_category = true;
  const auto problems = sprof::test::check_gecko_profile(sample_json(), options);
  INFO(sprof::test::join_problems(problems));
  CHECK(problems.empty());
}

TEST_CASE("the top level has exactly the documented keys") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  CHECK(doc.keys("") == std::vector<std::string>{"meta", "libs", "threads", "pausedRanges",
                                                 "sources", "pages", "processes"});
  CHECK(doc.size("/pausedRanges") == 0U);
  CHECK(doc.size("/pages") == 0U);
  CHECK(doc.integer("/sources/schema/sourceMapURL") == 4);
  CHECK(doc.size("/sources/data") == 0U);
}

TEST_CASE("meta is version 36 with the fixed fields and sprof's extras") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  CHECK(doc.integer("/meta/version") == 36);
  CHECK_FALSE(doc.has("/meta/preprocessedProfileVersion"));
  CHECK(doc.number("/meta/startTime") == 1700000000000.25);
  CHECK(doc.integer("/meta/startTimeAsClockMonotonicNanosecondsSinceBoot") == 5000000000000);
  CHECK(doc.number("/meta/profilingStartTime") == 0.0);
  CHECK(doc.number("/meta/profilingEndTime") == 10.0);
  CHECK(doc.number("/meta/shutdownTime") == 9.5);
  CHECK(doc.number("/meta/interval") == 1.0);
  for (const char* key :
       {"/meta/debug", "/meta/gcpoison", "/meta/asyncstack", "/meta/processType"}) {
    CHECK(doc.integer(key) == 0);
  }
  CHECK(doc.integer("/meta/stackwalk") == 1);
  CHECK(doc.string("/meta/product") == "sprof: sample");
  CHECK(doc.string("/meta/oscpu") == "Linux x86_64");
  CHECK(doc.string("/meta/platform") == "X11");
  // Without it the Share panel calls the profile a Firefox Nightly's and includes everything.
  CHECK(doc.string("/meta/updateChannel") == "release");
  CHECK(doc.string("/meta/abi") == "x86_64");
  CHECK(doc.string("/meta/CPUName") == "Example CPU");
  CHECK(doc.integer("/meta/logicalCPUs") == 8);
  CHECK(doc.integer("/meta/physicalCPUs") == 4);
  CHECK(doc.string("/meta/sampleUnits/threadCPUDelta") == "ns");
  CHECK(doc.size("/meta/categories") == 5U);
  CHECK(doc.string("/meta/categories/1/name") == "Idle");
  CHECK(doc.string("/meta/categories/1/subcategories/0") == "Other");
  CHECK(doc.string("/meta/markerSchema/0/name") == "Syscall");
  CHECK_FALSE(doc.has("/meta/markerSchema/0/fields"));
  CHECK(doc.string("/meta/markerSchema/0/tableLabel") ==
        "{marker.data.syscall}({marker.data.fd}) = {marker.data.ret}");
  CHECK(doc.string("/meta/markerSchema/0/data/3/format") == "unique-string");
  CHECK(doc.boolean("/meta/markerSchema/0/data/0/searchable") == true);
  CHECK(doc.keys("/meta/markerSchema/0/data/4") == std::vector<std::string>{"label", "value"});
  CHECK(doc.keys("/meta/markerSchema/1") ==
        std::vector<std::string>{"name", "display", "tableLabel", "data"});
  CHECK(doc.string("/meta/sprof/event") == "cpu-clock");
  CHECK(doc.integer("/meta/sprof/lost_samples") == 3);
  CHECK(doc.number("/meta/sprof/frequency_hz") == 999.5);
}

TEST_CASE("meta has no sampleUnits when the profile has no CPU deltas") {
  auto profile = sprof::test::make_sample_profile();
  profile.meta.has_cpu_deltas = false;
  JsonDoc doc(gecko_json_string(profile));
  REQUIRE(doc.ok());
  CHECK_FALSE(doc.has("/meta/sampleUnits"));
}

TEST_CASE("every other process is a flat sub-profile with a short meta") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  REQUIRE(doc.size("/processes") == F::kProcessCount - 1);
  const std::pair<int64_t, const char*> expected[] = {{F::kChildPid, "child-cmd"},
                                                      {F::kGrandchildPid, "grandchild"}};
  for (size_t i = 0; i < 2; ++i) {
    const std::string p = "/processes/" + std::to_string(i);
    CAPTURE(p);
    CHECK(doc.keys(p) == std::vector<std::string>{"meta", "libs", "threads", "pausedRanges",
                                                  "sources", "pages", "processes"});
    CHECK(doc.keys(p + "/meta") == std::vector<std::string>{"version", "startTime", "shutdownTime",
                                                            "categories", "markerSchema"});
    CHECK(doc.integer(p + "/meta/version") == 36);
    CHECK(doc.number(p + "/meta/startTime") == doc.number("/meta/startTime"));
    CHECK(doc.size(p + "/meta/markerSchema") == 0U);
    CHECK(doc.size(p + "/meta/categories") == 5U);
    CHECK(doc.size(p + "/processes") == 0U);
    CHECK(doc.size(p + "/libs") == 1U);
    CHECK(doc.integer(p + "/threads/0/pid") == expected[i].first);
    CHECK(doc.string(p + "/threads/0/processName") == expected[i].second);
    CHECK(doc.string(p + "/threads/0/processType") == "child");
  }
  CHECK(doc.number("/processes/0/meta/shutdownTime") == 5.0);
}

TEST_CASE("libs are sorted, overlaps resolved and a kernel end rounded up to 4096") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  REQUIRE(doc.size("/libs") == 4U);  // libcovered.so lies inside demo: dropped
  CHECK(doc.string("/libs/0/name") == "demo");
  CHECK(doc.unsigned_integer("/libs/0/start") == 0x555555554000U);
  CHECK(doc.unsigned_integer("/libs/0/offset") == 0x1000U);
  // libpartial.so started inside demo: trimmed to demo's end, offset moved along so every
  // address keeps its relative address.
  CHECK(doc.string("/libs/1/name") == "libpartial.so");
  CHECK(doc.unsigned_integer("/libs/1/start") == 0x555555556000U);
  CHECK(doc.unsigned_integer("/libs/1/end") == 0x555555558000U);
  CHECK(doc.unsigned_integer("/libs/1/offset") == 0x800U);
  CHECK(doc.string("/libs/2/name") == "libc.so.6");
  CHECK(doc.string("/libs/2/path") == "/usr/lib/x86_64-linux-gnu/libc.so.6");
  CHECK(doc.string("/libs/2/debugName") == "libc.so.6");
  CHECK(doc.string("/libs/2/breakpadId") == "F3D00F0CB6FB0BDD9B1E1C1A7FE2D1E30");
  CHECK(doc.string("/libs/2/codeId") == "0c0fd0f3fbb6dd0b9b1e1c1a7fe2d1e3a6b0c6d1");
  CHECK(doc.string("/libs/2/arch") == "x86_64");
  CHECK(doc.string("/libs/3/name") == "[kernel.kallsyms]");
  CHECK(doc.unsigned_integer("/libs/3/start") == F::kKernelStart);
  CHECK(doc.unsigned_integer("/libs/3/end") == F::kKernelEndRounded);
  CHECK(sample_json().find("18446744071578845184") != std::string::npos);  // exact decimal start
}

TEST_CASE("threads carry their identity and a UTF-8-sanitised name") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  CHECK(doc.keys("/threads/0") ==
        std::vector<std::string>{"name", "processName", "processType", "pid", "tid", "registerTime",
                                 "unregisterTime", "stringTable", "frameTable", "stackTable",
                                 "samples", "markers"});
  CHECK(doc.string("/threads/0/name") == "GeckoMain");
  CHECK(doc.string("/threads/0/processType") == "default");
  CHECK(doc.integer("/threads/0/tid") == F::kRootPid);
  CHECK(doc.is_null("/threads/0/unregisterTime"));
  CHECK(doc.string("/threads/1/name") == F::kWorkerWrittenName);
  // Unset on the worker: inherited from its process.
  CHECK(doc.string("/threads/1/processName") == "demo");
  CHECK(doc.string("/threads/1/processType") == "default");
  CHECK(doc.integer("/threads/1/pid") == F::kRootPid);
  CHECK(doc.integer("/threads/1/tid") == F::kWorkerTid);
  CHECK(doc.number("/threads/1/registerTime") == 0.8);
  CHECK(doc.number("/threads/1/unregisterTime") == 7.5);
}

TEST_CASE("frames are native rows with a hex location and stacks keep prefixes") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  const std::string frame = "/threads/0/frameTable/data/4";  // the kernel address
  auto location = doc.integer(frame + "/0");
  REQUIRE(location.has_value());
  CHECK(doc.string("/threads/0/stringTable/" + std::to_string(*location)) == "0xffffffff81234567");
  CHECK(doc.boolean(frame + "/1") == false);
  for (int column = 2; column <= 5; ++column)
    CHECK(doc.is_null(frame + "/" + std::to_string(column)));
  CHECK(doc.integer(frame + "/6") == 3);  // Kernel
  CHECK(doc.integer(frame + "/7") == 0);
  CHECK(doc.size("/threads/0/frameTable/schema") == 8U);
  CHECK(doc.is_null("/threads/0/stackTable/data/0/0"));
  CHECK(doc.integer("/threads/0/stackTable/data/5/0") == 4);
  CHECK(doc.integer("/threads/0/stackTable/data/5/1") == 5);
}

TEST_CASE("samples are stably sorted by time, with 6 decimals and integer CPU deltas") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  REQUIRE(doc.size("/threads/0/samples/data") == F::kRootMainSamples);
  const double times[] = {1, 2, 3, 4, 5, 6.123457, 7};
  const uint64_t deltas[] = {0, 1000000, 1000000, 1000000, 150000, 1000000, 150000};
  for (size_t i = 0; i < F::kRootMainSamples; ++i) {
    const std::string row = "/threads/0/samples/data/" + std::to_string(i);
    CAPTURE(row);
    CHECK(doc.number(row + "/1") == times[i]);
    CHECK(doc.is_null(row + "/2"));
    CHECK(doc.unsigned_integer(row + "/3") == deltas[i]);
  }
  CHECK(sample_json().find("[2,6.123457,null,1000000]") != std::string::npos);
}

TEST_CASE("markers follow the phase table and payloads keep their field types") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  const std::string m = "/threads/0/markers/data/";
  REQUIRE(doc.size("/threads/0/markers/data") == F::kRootMainMarkerRows);
  auto string_at = [&](const std::string& pointer) {
    auto index = doc.integer(pointer);
    return index ? doc.string("/threads/0/stringTable/" + std::to_string(*index)) : std::nullopt;
  };
  // Instant with a null payload.
  CHECK(string_at(m + "0/0") == "Startup");
  CHECK(doc.number(m + "0/1") == 0.5);
  CHECK(doc.is_null(m + "0/2"));
  CHECK(doc.integer(m + "0/3") == 0);
  CHECK(doc.is_null(m + "0/5"));
  // Interval with a typed payload; the unique-string field is a string index.
  CHECK(string_at(m + "1/0") == "read");
  CHECK(doc.number(m + "1/2") == 4.8);
  CHECK(doc.integer(m + "1/3") == 1);
  CHECK(doc.integer(m + "1/4") == 3);
  CHECK(doc.keys(m + "1/5") == std::vector<std::string>{"type", "syscall", "fd", "ret", "path"});
  CHECK(doc.string(m + "1/5/type") == "Syscall");
  CHECK(doc.string(m + "1/5/syscall") == "read");
  CHECK(doc.integer(m + "1/5/ret") == 4096);
  CHECK(string_at(m + "1/5/path") == "/etc/hosts");
  // IntervalStart: start only; IntervalEnd: end only.
  CHECK(doc.number(m + "2/1") == 1.0);
  CHECK(doc.is_null(m + "2/2"));
  CHECK(doc.integer(m + "2/3") == 2);
  CHECK(doc.is_null(m + "3/1"));
  CHECK(doc.number(m + "3/2") == 6.0);
  CHECK(doc.integer(m + "3/3") == 3);
  CHECK(doc.boolean(m + "4/5/done") == true);
  CHECK(doc.number(m + "4/5/ratio") == 0.25);
}

TEST_CASE("a marker missing the time its phase needs borrows the other one") {
  sprof::profile::Profile profile;
  profile.processes.emplace_back();
  auto& thread = profile.processes[0].threads.emplace_back();
  sprof::profile::Marker interval;
  interval.name = "interval without end";
  interval.start_ms = 2.0;
  interval.phase = sprof::profile::MarkerPhase::kInterval;
  thread.add_marker(interval);
  sprof::profile::Marker end;
  end.name = "end given as start";
  end.start_ms = 3.0;
  end.phase = sprof::profile::MarkerPhase::kIntervalEnd;
  thread.add_marker(end);
  JsonDoc doc(gecko_json_string(profile));
  REQUIRE(doc.ok());
  CHECK(doc.number("/threads/0/markers/data/0/2") == 2.0);
  CHECK(doc.is_null("/threads/0/markers/data/1/1"));
  CHECK(doc.number("/threads/0/markers/data/1/2") == 3.0);
  CHECK(sprof::test::check_gecko_profile(gecko_json_string(profile)).empty());
}

TEST_CASE("a profile without processes still writes a valid empty root") {
  const std::string json = gecko_json_string(sprof::profile::Profile{});
  const auto problems = sprof::test::check_gecko_profile(json);
  INFO(sprof::test::join_problems(problems));
  CHECK(problems.empty());
  JsonDoc doc(json);
  CHECK(doc.size("/threads") == 0U);
  CHECK(doc.size("/processes") == 0U);
}

TEST_CASE("the writer is deterministic") {
  CHECK(gecko_json_string(sprof::test::make_sample_profile()) == sample_json());
}

TEST_CASE("the writer streams a large profile in bounded chunks") {
  sprof::profile::Profile profile;
  auto& thread = profile.processes.emplace_back().threads.emplace_back();
  const uint32_t stack = thread.intern_stack(
      std::nullopt, thread.intern_address_frame(0x1000, sprof::profile::Category::kUser));
  for (int i = 0; i < 200000; ++i) {
    thread.add_sample({stack, i * 0.25, 1000});
  }
  std::string joined;
  size_t chunks = 0;
  size_t largest = 0;
  sprof::profile::write_gecko_json(profile, [&](std::string_view chunk) {
    ++chunks;
    largest = std::max(largest, chunk.size());
    joined.append(chunk);
  });
  CHECK(joined.size() > 4'000'000);
  CHECK(chunks > 10);
  CHECK(largest < 256 * 1024);
  CHECK(joined == gecko_json_string(profile));
}
