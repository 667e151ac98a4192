// Native allocations and memory counters in both writers and the Gecko reader, on the hand-built
// allocation profile: the Gecko form of docs/firefox-profiler-format.md, "native allocations"
// ("Native allocation" markers with a marker stack, memoryAddress and threadId; `counters`), read
// back unchanged; the processed (self-contained) form with the balanced native-allocations table of
// version 42, its stacks mapped into the processed stack table as return-address walks, and
// counters with their thread.
#include <doctest/doctest.h>

#include <set>

#include "sprof/profile/gecko_writer.hpp"
#include "sprof/profile/native_symbols.hpp"
#include "sprof/profile/processed_writer.hpp"
#include "sprof/profile/profile_reader.hpp"
#include "sprof_test/allocation_profile.hpp"
#include "sprof_test/gecko_validator.hpp"
#include "sprof_test/json_query.hpp"
#include "sprof_test/processed_validator.hpp"

using sprof::test::JsonDoc;
using F = sprof::test::AllocationProfileFacts;

namespace {

std::string at(const std::string& prefix, size_t i) { return prefix + "/" + std::to_string(i); }

// The function name of a processed stack's frame, through frameTable.func and funcTable.name.
std::string processed_stack_name(const JsonDoc& doc, const std::string& thread, int64_t stack) {
  const auto frame = doc.integer(at(thread + "/stackTable/frame", static_cast<size_t>(stack)));
  const auto func =
      doc.integer(at(thread + "/frameTable/func", static_cast<size_t>(frame.value_or(0))));
  const auto name =
      doc.integer(at(thread + "/funcTable/name", static_cast<size_t>(func.value_or(0))));
  return std::string(
      doc.string(at(thread + "/stringArray", static_cast<size_t>(name.value_or(0)))).value_or("?"));
}

// Names of a processed stack, leaf first.
std::vector<std::string> processed_stack_names(const JsonDoc& doc, const std::string& thread,
                                               std::optional<int64_t> stack) {
  std::vector<std::string> names;
  while (stack && names.size() < 16) {
    names.push_back(processed_stack_name(doc, thread, *stack));
    stack = doc.integer(at(thread + "/stackTable/prefix", static_cast<size_t>(*stack)));
  }
  return names;
}

}  // namespace

TEST_CASE("the Gecko writer writes allocations as Native allocation markers and the counter") {
  const auto profile = sprof::test::make_allocation_profile();
  const std::string json = sprof::profile::gecko_json_string(profile);
  const auto problems = sprof::test::check_gecko_profile(json);
  INFO(sprof::test::join_problems(problems));
  CHECK(problems.empty());
  JsonDoc doc(json);
  REQUIRE(doc.ok());

  const std::string main = "/threads/0/markers/data";
  REQUIRE(doc.size(main) == F::kMainRows);
  // The first row: the leak, an instant marker whose payload carries a one-sample stack.
  const std::string row = main + "/0";
  const auto name = doc.integer(row + "/0");
  CHECK(doc.string(at("/threads/0/stringTable", static_cast<size_t>(name.value_or(0)))) ==
        "Native allocation");
  CHECK(doc.number(row + "/1") == 2.0);
  CHECK(doc.is_null(row + "/2"));
  CHECK(doc.integer(row + "/3") == 0);
  CHECK(doc.string(row + "/5/type") == "Native allocation");
  CHECK(doc.integer(row + "/5/size") == 6000);
  CHECK(doc.integer(row + "/5/memoryAddress") == 0x10000);
  CHECK(doc.integer(row + "/5/threadId") == F::kPid);
  // Only the samples table the front end reads (docs/firefox-profiler-format.md).
  CHECK_FALSE(doc.has(row + "/5/stack/name"));
  CHECK(doc.integer(row + "/5/stack/samples/schema/stack") == 0);
  CHECK(doc.integer(row + "/5/stack/samples/schema/time") == 1);
  CHECK(doc.number(row + "/5/stack/samples/data/0/1") == 2.0);
  const auto stack = doc.integer(row + "/5/stack/samples/data/0/0");
  REQUIRE(stack.has_value());
  CHECK(*stack ==
        static_cast<int64_t>(*profile.processes[0].threads[0].native_allocations()[0].stack));
  // The worker's free of main's block: in main's table, with the worker's id and no stack.
  const std::string free_row = main + "/2";
  CHECK(doc.integer(free_row + "/5/size") == -6000);
  CHECK(doc.integer(free_row + "/5/threadId") == F::kWorkerTid);
  CHECK_FALSE(doc.has(free_row + "/5/stack"));

  CHECK(doc.string("/counters/0/category") == "Memory");
  CHECK(doc.integer("/counters/0/samples/schema/count") == 1);
  int64_t live = 0;
  const size_t samples = doc.size("/counters/0/samples/data").value_or(0);
  for (size_t i = 0; i < samples; ++i)
    live += doc.integer(at("/counters/0/samples/data", i) + "/1").value_or(0);
  CHECK(live == F::kFinalLiveBytes);
}

TEST_CASE("reading the Gecko form back keeps allocations and counters") {
  const auto profile = sprof::test::make_allocation_profile();
  const std::string json = sprof::profile::gecko_json_string(profile);
  auto read = sprof::profile::read_gecko_json(json);
  REQUIRE_MESSAGE(read.has_value(), (read ? "" : read.error().message));
  const auto& thread = read->processes[0].threads[0];
  REQUIRE(thread.native_allocations().size() == F::kMainRows);
  CHECK(thread.markers().empty());  // allocations are not kept as generic markers
  CHECK(read->processes[0].counters.size() == 1);
  CHECK(sprof::profile::gecko_json_string(*read) == json);
}

TEST_CASE("allocation stacks are looked up as return addresses") {
  const auto profile = sprof::test::make_allocation_profile();
  std::set<uint64_t> addresses;
  for (const auto& m : sprof::profile::native_addresses(profile)) {
    addresses.insert(m.addresses.begin(), m.addresses.end());
  }
  // The leaf of every allocation stack holds a return address: looked up one byte earlier.
  CHECK(addresses.count(F::kLeaky + 0x1f) == 1);
  CHECK(addresses.count(F::kLeaky + 0x20) == 0);
  CHECK(addresses.count(F::kWork + 0x1f) == 1);
  // The sample's leaf (main) is an instruction pointer; main is a caller too.
  CHECK(addresses.count(F::kMain + 0x20) == 1);
  CHECK(addresses.count(F::kMain + 0x1f) == 1);

  const auto& main = profile.processes[0].threads[0];
  const auto lookups = sprof::profile::allocation_stack_lookups(
      profile.processes[0], main, *main.native_allocations()[0].stack);
  REQUIRE(lookups.size() == 2);
  CHECK(lookups[0].module->debug_name == "allocapp");
  CHECK(lookups[0].address == F::kLeaky + 0x1f);
  CHECK(lookups[1].address == F::kMain + 0x1f);
}

TEST_CASE("the processed writer writes the balanced allocation table and the counter") {
  const auto profile = sprof::test::make_allocation_profile();
  const std::string json =
      sprof::profile::processed_json_string(profile, sprof::test::make_allocation_symbols(profile));
  const auto problems = sprof::test::check_processed_profile(json);
  INFO(sprof::test::join_problems(problems));
  CHECK(problems.empty());
  JsonDoc doc(json);
  REQUIRE(doc.ok());

  const std::string main = "/threads/0";
  const std::string table = main + "/nativeAllocations";
  CHECK(doc.integer(table + "/length") == F::kMainRows);
  CHECK(doc.string(table + "/weightType") == "bytes");
  CHECK(doc.integer(table + "/weight/0") == 6000);
  CHECK(doc.integer(table + "/weight/2") == -6000);
  CHECK(doc.integer(table + "/memoryAddress/2") == 0x20000);
  CHECK(doc.integer(table + "/threadId/2") == F::kWorkerTid);
  CHECK(doc.is_null(table + "/stack/2"));
  CHECK(processed_stack_names(doc, main, doc.integer(table + "/stack/0")) ==
        std::vector<std::string>{"leaky", "main"});
  CHECK(processed_stack_names(doc, main, doc.integer(table + "/stack/1")) ==
        std::vector<std::string>{"churn", "main"});
  CHECK(processed_stack_names(doc, "/threads/1",
                              doc.integer("/threads/1/nativeAllocations/stack/0")) ==
        std::vector<std::string>{"work", "thread_start"});

  CHECK(doc.string("/counters/0/category") == "Memory");
  CHECK(doc.integer("/counters/0/pid") == F::kPid);
  CHECK(doc.integer("/counters/0/mainThreadIndex") == 0);
  const std::string samples = "/counters/0/sampleGroups/0/samples";
  int64_t live = 0;
  const auto length = static_cast<size_t>(doc.integer(samples + "/length").value_or(0));
  for (size_t i = 0; i < length; ++i) {
    live += doc.integer(at(samples + "/count", i)).value_or(0);
  }
  CHECK(live == F::kFinalLiveBytes);
}

TEST_CASE("the validators catch an allocation whose stack is outside the stack table") {
  auto profile = sprof::test::make_allocation_profile();
  auto& worker = profile.processes[0].threads[1];
  worker.add_native_allocation({10.0, 100, 999, 0x50000, F::kWorkerTid});
  const auto problems =
      sprof::test::check_gecko_profile(sprof::profile::gecko_json_string(profile));
  INFO(sprof::test::join_problems(problems));
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].find("allocation stack is not a valid stack index") != std::string::npos);
  // The self-contained writer cannot map such a stack and writes none.
  const std::string json =
      sprof::profile::processed_json_string(profile, sprof::test::make_allocation_symbols(profile));
  CHECK(sprof::test::check_processed_profile(json).empty());
  JsonDoc doc(json);
  CHECK(doc.is_null("/threads/1/nativeAllocations/stack/2"));
}
