// Native allocations and the memory counter as the Firefox Profiler's own code reads them
// (profiler-cli), from both forms sprof writes of the hand-built allocation profile: the Gecko
// form (markers the processing turns into the native-allocations table) and the self-contained
// form (the table itself). Retained memory must come out right, including a block freed by
// another thread than the one that allocated it.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include "profiler_cli.hpp"
#include "sprof/profile/gecko_writer.hpp"
#include "sprof/profile/processed_writer.hpp"
#include "sprof_test/allocation_profile.hpp"
#include "sprof_test/json_query.hpp"

namespace fs = std::filesystem;
using sprof::test::JsonDoc;
using sprof::test::ProcessResult;
using sprof::test::ProfilerCli;
using F = sprof::test::AllocationProfileFacts;

namespace {

struct TempDir {
  fs::path path =
      fs::temp_directory_path() / ("sprof-alloc-conformance-" + std::to_string(getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

ProfilerCli loaded_standalone(const std::string& path) {
  auto cli = ProfilerCli::with_standalone(path);
  REQUIRE_MESSAGE(cli.has_value(), (cli ? "" : cli.error().message));
  return std::move(*cli);
}

struct Weight {
  int64_t self = 0;
  int64_t total = 0;
};

// `thread functions` under an allocation strategy: function name -> bytes.
std::map<std::string, Weight> functions(ProfilerCli& cli, const std::string& thread,
                                        const std::string& strategy) {
  const ProcessResult r = cli.run({"thread", "functions", "--thread", thread, "--strategy",
                                   strategy, "--json", "--limit", "0"});
  INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err);
  REQUIRE(r.exit_code == 0);
  JsonDoc doc(r.out);
  REQUIRE(doc.ok());
  CHECK(doc.string("/weightType") == "bytes");
  std::map<std::string, Weight> out;
  const size_t n = doc.size("/functions").value_or(0);
  for (size_t i = 0; i < n; ++i) {
    const std::string f = "/functions/" + std::to_string(i);
    out[std::string(doc.string(f + "/name").value_or(""))] =
        Weight{static_cast<int64_t>(doc.number(f + "/selfSamples").value_or(-1)),
               static_cast<int64_t>(doc.number(f + "/totalSamples").value_or(-1))};
  }
  return out;
}

}  // namespace

TEST_CASE("profiler-cli reads allocations and retained memory from the self-contained form") {
  TempDir dir;
  const auto profile = sprof::test::make_allocation_profile();
  const std::string path = (dir.path / "alloc.json.gz").string();
  REQUIRE(sprof::profile::write_processed_file(profile,
                                               sprof::test::make_allocation_symbols(profile), path)
              .has_value());
  ProfilerCli cli = loaded_standalone(path);

  const auto retained = functions(cli, "t-0", "native-retained-allocations");
  CHECK(retained.at("leaky").self == F::kLeakyBytes);
  CHECK(retained.at("main").total == F::kLeakyBytes);
  // churn's 6,000 B block was freed by the worker, in main's table: nothing of it is retained.
  CHECK(retained.count("churn") == 0);

  const auto allocated = functions(cli, "t-0", "native-allocations");
  CHECK(allocated.at("leaky").self == F::kLeakyBytes);
  CHECK(allocated.at("churn").self == F::kChurnBytes);
  CHECK(allocated.at("main").total == F::kLeakyBytes + F::kChurnBytes);
  const auto freed = functions(cli, "t-0", "native-deallocations-memory");
  CHECK(freed.at("churn").self == -F::kChurnBytes);
  const auto worker = functions(cli, "t-1", "native-allocations");
  CHECK(worker.at("work").self == F::kWorkBytes);
  CHECK(functions(cli, "t-1", "native-retained-allocations").empty());

  const ProcessResult counters = cli.run({"counter", "list", "--json"});
  INFO(counters.out << counters.err);
  REQUIRE(counters.exit_code == 0);
  CHECK(counters.out.find("\"malloc\"") != std::string::npos);
}

TEST_CASE("profiler-cli turns the Gecko form's allocation markers into the same tables") {
  TempDir dir;
  const std::string path = (dir.path / "alloc-gecko.json").string();
  REQUIRE(
      sprof::profile::write_gecko_file(sprof::test::make_allocation_profile(), path).has_value());
  ProfilerCli cli = loaded_standalone(path);

  // Unsymbolicated (no symbol server): a frame's function is named by its location string, the
  // return address the converter wrote.
  auto hex = [](uint64_t function) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx",
                  static_cast<unsigned long long>(F::kAppStart + function + 0x20));
    return std::string(text);
  };
  const auto retained = functions(cli, "t-0", "native-retained-allocations");
  INFO("retained:\n"
       << [&] {
            std::string s;
            for (const auto& [name, w] : retained) s += name + " " + std::to_string(w.self) + "\n";
            return s;
          }());
  CHECK(retained.at(hex(F::kLeaky)).self == F::kLeakyBytes);
  CHECK(retained.count(hex(F::kChurn)) == 0);
  const auto allocated = functions(cli, "t-0", "native-allocations");
  CHECK(allocated.at(hex(F::kChurn)).self == F::kChurnBytes);
  const auto worker = functions(cli, "t-1", "native-allocations");
  CHECK(worker.at(hex(F::kWork)).self == F::kWorkBytes);

  const ProcessResult counters = cli.run({"counter", "list", "--json"});
  REQUIRE(counters.exit_code == 0);
  CHECK(counters.out.find("\"malloc\"") != std::string::npos);
}
