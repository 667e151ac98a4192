// `sprof record --heap` of programs that use other allocators than glibc's malloc
// (tests/targets/heap/hp_allocators.cpp built against glibc, jemalloc, tcmalloc and mimalloc;
// hp_own_malloc defines malloc itself). What the interposer records, exactly, per site, from
// `sprof report --heap --json`, and what the summary and meta.sprof say about the calls it cannot
// see (docs/heap.md, "Other allocators").
#include <doctest/doctest.h>
#include <simdjson.h>

#include <map>

#include "recorded_profile.hpp"
#include "sprof_test/gecko_validator.hpp"
#include "sprof_test/json_query.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

struct Recorded {
  ProcessResult run;
  std::map<std::string, int64_t> bytes_by_function;   // report --heap's sites, by leaf function
  std::map<std::string, uint64_t> freed_by_function;  // blocks of theirs freed
  std::string profile_text;
};

// `record -s --heap=all --no-cpu` of a target, then `report --heap --json` of the profile.
Recorded record_all(const std::string& target) {
  const auto dir = make_temp_dir("heap-alloc");
  const std::string file = dir + "/p.json.gz";
  Recorded r;
  r.run = run_process(
      {kSprofExe, "record", "-s", "--heap=all", "--no-cpu", "-o", file, "--", target_path(target)});
  auto text = read_profile_text(file);
  REQUIRE(text.has_value());
  r.profile_text = *text;
  const ProcessResult report = run_process({kSprofExe, "report", "--heap", "--json", file});
  if (report.exit_code != 0) {
    // A profile without a single allocation (hp_own_malloc's): no sites.
    CHECK_MESSAGE(report.err.find("no allocations") != std::string::npos, report.err);
    return r;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(report.out).get(doc) == simdjson::SUCCESS);
  for (simdjson::dom::element s : simdjson::dom::array(doc["heap"]["sites"])) {
    const std::string function{std::string_view(s["function"])};
    r.bytes_by_function[function] += int64_t(s["bytes"]);
    r.freed_by_function[function] += uint64_t(s["freed"]);
  }
  return r;
}

int64_t bytes_of(const Recorded& r, const std::string& function) {
  auto it = r.bytes_by_function.find(function);
  return it == r.bytes_by_function.end() ? 0 : it->second;
}

constexpr int64_t kMallocSiteBytes = 3 * 100003;  // hp_allocators.cpp
constexpr int64_t kNewSiteBytes = 2 * 200003;
constexpr int64_t kMiSiteBytes = 4 * 50003 + 7003 + 9003 + 3 * 1001;
// mi_api_site: 19 blocks, the re* chain's 11 and the sized-aligned one, 31 frees in all.
constexpr int64_t kMiApiSiteBytes =
    3039 + 96 + 112 + 2029 + 2039 + 2053 + 2063 + 4076 + 17 + 6 + 2069 + 2081 + 5105 + 6186 + 104 +
    2087 + 2089 + 10 + 4 +                                                        // the blocks
    1033 + 2078 + 3001 + 3011 + 2098 + 3023 + 3037 + 2102 + 3041 + 3043 + 3049 +  // re* chain
    1061;
constexpr uint64_t kMiApiSiteBlocks = 19 + 11 + 1;
constexpr const char* kForeignNew = "links an allocator whose operator new does not call malloc";

}  // namespace

TEST_CASE("record --heap=all under glibc's malloc: malloc and new, exactly, and no warning") {
  skip_without_perf();
  const Recorded r = record_all("hp_alloc_glibc");
  INFO("sprof:\n" << r.run.out << r.run.err);
  REQUIRE(r.run.exit_code == 0);
  CHECK(bytes_of(r, "malloc_site") == kMallocSiteBytes);
  CHECK(bytes_of(r, "new_site") == kNewSiteBytes);
  CHECK(r.run.err.find(kForeignNew) == std::string::npos);
  CHECK(r.profile_text.find("heapOperatorNewBypassed") == std::string::npos);
  CHECK(r.profile_text.find("heapMallocBypassed") == std::string::npos);
}

// A malloc replacement linked dynamically comes after the interposer, whose malloc the program's
// calls reach (recorded); tcmalloc and mimalloc also define glibc's __libc_malloc & co., which
// the interposer calls, so the blocks are still theirs. Their operator new allocates without
// calling malloc: not recorded, and said so.
TEST_CASE(
    "record --heap=all with tcmalloc and mimalloc: malloc and mi_malloc recorded, new named as "
    "missing") {
  skip_without_perf();
  for (const char* target : {"hp_alloc_tcmalloc", "hp_alloc_mimalloc"}) {
    CAPTURE(target);
    const Recorded r = record_all(target);
    INFO("sprof:\n" << r.run.out << r.run.err);
    REQUIRE(r.run.exit_code == 0);
    CHECK(r.run.out.find("done") != std::string::npos);
    CHECK(bytes_of(r, "malloc_site") == kMallocSiteBytes);
    CHECK(bytes_of(r, "new_site") == 0);
    CHECK(r.run.err.find(std::string(target) + " " + kForeignNew) != std::string::npos);
    JsonDoc doc(r.profile_text);
    const auto names = doc.string("/meta/sprof/heapOperatorNewBypassed");
    REQUIRE(names.has_value());
    CHECK(names->find(target) != std::string::npos);
    if (std::string(target) == "hp_alloc_mimalloc") {
      // mimalloc's own API is hooked: mi_malloc, mi_zalloc, mi_malloc_aligned, mi_calloc, and
      // every block's mi_free.
      CHECK(bytes_of(r, "mi_site") == kMiSiteBytes);
      CHECK(r.freed_by_function.at("mi_site") == 7);
      // The rest of its API, each call counted once although libmimalloc calls several of
      // these functions from others (mimalloc_entry_points.cpp).
      CHECK(bytes_of(r, "mi_api_site") == kMiApiSiteBytes);
      CHECK(r.freed_by_function.at("mi_api_site") == kMiApiSiteBlocks);
    }
  }
}

// jemalloc has no __libc_* names: the interposer forwards to the next malloc, jemalloc's, so
// every block is jemalloc's, including those of its operator new, which its operator delete frees
// through free, the interposer's. (Before, the interposer handed malloc's calls to glibc and
// glibc aborted in that free: "free(): invalid pointer".) jemalloc's operator new allocates
// without calling malloc: not recorded, and said so. (docs/heap.md, "Other allocators".)
TEST_CASE("record --heap=all with jemalloc: the program runs, malloc recorded, new named") {
  skip_without_perf();
  const Recorded r = record_all("hp_alloc_jemalloc");
  INFO("sprof:\n" << r.run.out << r.run.err);
  REQUIRE(r.run.exit_code == 0);
  CHECK(r.run.out.find("done") != std::string::npos);
  CHECK(r.run.err.find("free(): invalid pointer") == std::string::npos);
  CHECK(bytes_of(r, "malloc_site") == kMallocSiteBytes);
  CHECK(r.freed_by_function.at("malloc_site") == 3);
  CHECK(bytes_of(r, "new_site") == 0);
  CHECK(r.run.err.find(std::string("hp_alloc_jemalloc ") + kForeignNew) != std::string::npos);
}

TEST_CASE("an executable that defines malloc itself is named: nothing of it is recorded") {
  skip_without_perf();
  const Recorded r = record_all("hp_own_malloc");
  INFO("sprof:\n" << r.run.out << r.run.err);
  REQUIRE(r.run.exit_code == 0);
  CHECK(r.run.out.find("done") != std::string::npos);
  CHECK(bytes_of(r, "own_site") == 0);
  CHECK(r.run.err.find("hp_own_malloc defines its own malloc: its allocations are not recorded") !=
        std::string::npos);
  JsonDoc doc(r.profile_text);
  const auto names = doc.string("/meta/sprof/heapMallocBypassed");
  REQUIRE(names.has_value());
  CHECK(names->find("hp_own_malloc") != std::string::npos);
}
