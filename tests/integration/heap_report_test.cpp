// `sprof report --heap` on a recorded program whose allocation sites have known numbers
// (tests/targets/heap/hp_lifetimes.cpp): calls, temporary allocations, what each site held at the
// peak and leaked at exit, exactly, from `record --heap=all`, in the self-contained file and in
// the Gecko one (named by the symbolicator); the recording's totals in meta agree with the rows.
// And `record --heap -p` attached to a running program (tests/targets/heap/hp_attach_loop.cpp).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <string>

#include "recorded_profile.hpp"
#include "sprof_test/gecko_validator.hpp"
#include "sprof_test/json_query.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

struct ReportedSite {
  uint64_t calls = 0, temporary = 0, leaked_blocks = 0, short_lived = 0, freed = 0;
  int64_t bytes = 0, peak_bytes = 0, leaked_bytes = 0;
  double min_lifetime_ms = 1e300;  // the smallest mean lifetime of the function's sites
};

struct HeapReported {
  std::map<std::string, ReportedSite> by_function;  // sites of one function added up
  std::string totals_from;
  int64_t peak_bytes = 0, sites_peak_bytes = 0, leaked_bytes = 0;
  uint64_t calls = 0, temporary = 0, folded_rows = 0;
  std::map<uint64_t, uint64_t> sizes;  // from -> calls
};

HeapReported heap_report_json(const std::string& file) {
  const ProcessResult r = run_process({kSprofExe, "report", "--heap", "--json", file});
  INFO("sprof report:\n" << r.out << r.err);
  REQUIRE(r.exit_code == 0);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(r.out).get(doc) == simdjson::SUCCESS);
  REQUIRE(std::string_view(doc["view"]) == "heap");
  simdjson::dom::element heap = doc["heap"];
  HeapReported out;
  out.totals_from = std::string(std::string_view(heap["totalsFrom"]));
  out.peak_bytes = int64_t(heap["totals"]["peakBytes"]);
  out.leaked_bytes = int64_t(heap["totals"]["leakedBytes"]);
  out.calls = uint64_t(heap["totals"]["calls"]);
  out.temporary = uint64_t(heap["totals"]["temporary"]);
  out.folded_rows = uint64_t(heap["foldedRows"]);
  for (simdjson::dom::element b : simdjson::dom::array(heap["sizes"])) {
    out.sizes[uint64_t(b["from"])] = uint64_t(b["calls"]);
  }
  for (simdjson::dom::element s : simdjson::dom::array(heap["sites"])) {
    ReportedSite& site = out.by_function[std::string(std::string_view(s["function"]))];
    site.calls += uint64_t(s["calls"]);
    site.temporary += uint64_t(s["temporary"]);
    site.bytes += int64_t(s["bytes"]);
    site.peak_bytes += int64_t(s["peakBytes"]);
    site.leaked_bytes += int64_t(s["leakedBytes"]);
    site.leaked_blocks += uint64_t(s["leakedBlocks"]);
    site.short_lived += uint64_t(s["shortLived"]);
    site.freed += uint64_t(s["freed"]);
    double lifetime = 0;
    if (s["meanLifetimeMs"].get_double().get(lifetime) == simdjson::SUCCESS) {
      site.min_lifetime_ms = std::min(site.min_lifetime_ms, lifetime);
    }
    out.sites_peak_bytes += int64_t(s["peakBytes"]);
  }
  return out;
}

void check_sites(const HeapReported& h) {
  const ReportedSite& temp = h.by_function.at("temp_site");
  CHECK(temp.calls == 100);
  CHECK(temp.bytes == 4000);
  CHECK(temp.temporary == 100);
  CHECK(temp.freed == 100);
  CHECK(temp.peak_bytes == 0);
  CHECK(temp.leaked_bytes == 0);

  const ReportedSite& keep = h.by_function.at("keep_site");
  CHECK(keep.calls == 10);
  CHECK(keep.bytes == 10'000);
  CHECK(keep.temporary == 0);
  CHECK(keep.peak_bytes == 10'000);
  CHECK(keep.leaked_bytes == 0);
  // Held across a 20 ms sleep: never short-lived, whatever the machine's load.
  CHECK(keep.short_lived == 0);
  CHECK(keep.min_lifetime_ms >= 20);

  const ReportedSite& peak = h.by_function.at("peak_site");
  CHECK(peak.calls == 3);
  CHECK(peak.temporary == 0);
  CHECK(peak.peak_bytes == 3 << 20);
  CHECK(peak.short_lived == 0);

  const ReportedSite& leak = h.by_function.at("leak_site");
  CHECK(leak.calls == 5);
  CHECK(leak.temporary == 0);
  CHECK(leak.peak_bytes == 0);
  CHECK(leak.leaked_bytes == 1665);
  CHECK(leak.leaked_blocks == 5);

  // The program's own blocks are all of the sizes of 1 MiB and more; 40-byte blocks are 32-63.
  CHECK(h.sizes.at(1 << 20) == 3);
  CHECK(h.sizes.at(32) >= 100);
  CHECK(h.folded_rows == 0);
  // The recording's totals (every record, in the converter) and the rows' agree.
  CHECK(h.totals_from == "recording");
  CHECK(h.peak_bytes == h.sites_peak_bytes);
  CHECK(h.peak_bytes >= (3 << 20) + 10'000);
  CHECK(h.temporary >= 100);
  CHECK(h.leaked_bytes >= 1665);
}

}  // namespace

TEST_CASE("report --heap: calls, temporaries, peak holders and leaks of known sites, exactly") {
  skip_without_perf();
  const std::string dir = make_temp_dir("heap-report");
  const std::string self_contained = dir + "/p.json.gz";
  const ProcessResult run = run_process({kSprofExe, "record", "-s", "--heap=all", "--no-cpu", "-o",
                                         self_contained, "--", target_path("hp_lifetimes")});
  INFO("sprof record:\n" << run.out << run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.err.find("temporary allocations (") != std::string::npos);

  SUBCASE("the self-contained file") { check_sites(heap_report_json(self_contained)); }
  SUBCASE("the Gecko file, named by the symbolicator") {
    const std::string gecko = dir + "/g.json.gz";
    const ProcessResult g =
        run_process({kSprofExe, "record", "-s", "--heap=all", "--no-cpu", "--no-presymbolicate",
                     "-o", gecko, "--", target_path("hp_lifetimes")});
    INFO("sprof record:\n" << g.out << g.err);
    REQUIRE(g.exit_code == 0);
    check_sites(heap_report_json(gecko));
  }
  SUBCASE("as text: the sites and the histogram") {
    const ProcessResult r =
        run_process({kSprofExe, "report", "--heap", "--width", "200", self_contained});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("temp_site < main") != std::string::npos);
    CHECK(r.out.find("1.0 MiB - 2.0 MiB") != std::string::npos);
  }
}

namespace {

struct AttachedRun {
  ProcessResult sprof;
  int target_exit = -1;
  uint64_t target_calls = 0;  // attach_site's calls in the program's whole run
  std::string profile;
};

// Starts hp_attach_loop, records it with `sprof record -s <heap_args> -d 2 -p PID`, then tells it
// to stop (it blocks in open() of a FIFO until then) and waits for it to exit by itself.
AttachedRun record_attached(const std::vector<std::string>& heap_args, const std::string& tag) {
  const std::string dir = make_temp_dir(tag);
  const std::string fifo = dir + "/stop";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  BackgroundProcess target({target_path("hp_attach_loop"), fifo}, dir + "/target.log");
  REQUIRE(target.wait_for_log("ready\n", std::chrono::seconds(30)).find("ready\n") !=
          std::string::npos);
  AttachedRun r;
  r.profile = dir + "/p.json.gz";
  std::vector<std::string> argv{kSprofExe, "record", "-s"};
  argv.insert(argv.end(), heap_args.begin(), heap_args.end());
  argv.insert(argv.end(), {"-d", "2", "-o", r.profile, "-p", std::to_string(target.pid())});
  r.sprof = run_process(argv);
  // sprof is gone: the program goes on allocating until told to stop.
  const int fd = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, "\n", 1) == 1);
  ::close(fd);
  r.target_exit = target.stop(0, std::chrono::seconds(60));
  const std::string log = target.log();
  INFO("target:\n" << log);
  const size_t at = log.find("attach_site calls=");
  REQUIRE(at != std::string::npos);
  r.target_calls = std::stoull(log.substr(at + 18));
  return r;
}

}  // namespace

TEST_CASE(
    "record --heap=all -p: attached to a running program, its allocations from then on by "
    "name, and the program ends normally after sprof detaches") {
  skip_without_perf();
  const AttachedRun r = record_attached({"--heap=all", "--no-cpu"}, "heap-attach");
  INFO("sprof record:\n" << r.sprof.out << r.sprof.err);
  REQUIRE(r.sprof.exit_code == 0);
  CHECK(r.sprof.err.find("attached to 1 running program: allocations before the attach are "
                         "unknown") != std::string::npos);
  CHECK(r.target_exit == 0);

  const HeapReported h = heap_report_json(r.profile);
  REQUIRE(h.by_function.count("attach_site") == 1);
  const ReportedSite& site = h.by_function.at("attach_site");
  MESSAGE("attach_site: " << site.calls << " calls recorded in 2 s, of " << r.target_calls
                          << " in the program's whole run");
  // A 2-second window of a loop of a few thousand calls a second (fewer on a loaded machine).
  CHECK(site.calls > 0);
  CHECK(site.calls <= r.target_calls);
  CHECK(site.bytes == static_cast<int64_t>(site.calls) * 3000);
  // The block early_site allocated before the attach is not in the profile.
  CHECK(h.by_function.count("early_site") == 0);
  const auto text = read_profile_text(r.profile);
  REQUIRE(text.has_value());
  CHECK(JsonDoc(*text).integer("/meta/sprof/heapAttachedRunning") == 1);
}

TEST_CASE("record --heap -p with CPU samples: sampled allocations of the running program by name") {
  skip_without_perf();
  // One sample per 4 KiB on average: about three in four of attach_site's 3000-byte blocks.
  const AttachedRun r = record_attached({"--heap", "--heap-interval", "4K"}, "heap-attach-sampled");
  INFO("sprof record:\n" << r.sprof.out << r.sprof.err);
  REQUIRE(r.sprof.exit_code == 0);
  CHECK(r.sprof.err.find("allocations before the attach are unknown; their frees are not "
                         "recorded") != std::string::npos);
  CHECK(r.target_exit == 0);
  const HeapReported h = heap_report_json(r.profile);
  REQUIRE(h.by_function.count("attach_site") == 1);
  CHECK(h.by_function.at("attach_site").calls > 0);
  CHECK(h.by_function.count("early_site") == 0);
}
