// `sprof report`, `export`, `flamegraph` and `diff` on hand-made files: the self-contained form and
// the Gecko form of the report test profile (tests/report/report_profile_builder.hpp), and input
// that is no usable profile.
#include <doctest/doctest.h>
#include <zlib.h>

#include <fstream>
#include <iterator>

#include "pprof_raw.hpp"
#include "report_profile_builder.hpp"
#include "sprof/profile/gecko_writer.hpp"
#include "sprof_test/paths.hpp"
#include "subprocess.hpp"
#include "temp_dir.hpp"

using namespace sprof::test;

namespace {

ProcessResult run_sprof(std::vector<std::string> args) {
  args.insert(args.begin(), kSprofExe);
  return run_process(args);
}

std::string self_contained_file(const TempDir& dir) {
  return dir.write_file("p.json", report_profile_json());
}

}  // namespace

TEST_CASE("report --heap needs allocation rows, says how to get them, and takes no --tree") {
  TempDir dir;
  const std::string path = self_contained_file(dir);  // CPU samples only
  const ProcessResult r = run_sprof({"report", "--heap", path});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err.find("no allocations in the selected threads (record with --heap") !=
        std::string::npos);
  CHECK(run_sprof({"report", "--heap", "--tree", path}).exit_code == 1);
}

TEST_CASE("report lists the hottest functions of a self-contained file with its header") {
  TempDir dir;
  const std::string path = self_contained_file(dir);
  const ProcessResult r = run_sprof({"report", "--width", "80", path});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("# sprof report: app (" + path + ")\n") == 0);
  CHECK(r.out.find(
            "# 16 samples (3 lost), 1 idle left out (--include-idle), 1 process, 2 threads\n") !=
        std::string::npos);
  CHECK(r.out.find("\n 85.71%   14.29%         12  app     compute\n") != std::string::npos);
  CHECK(r.out.find('\x1b') == std::string::npos);  // not a terminal: no colours
}

TEST_CASE("report --tree, --callers, --thread and --json") {
  TempDir dir;
  const std::string path = self_contained_file(dir);
  const ProcessResult tree = run_sprof({"report", "--tree", "--thread", "worker", path});
  REQUIRE(tree.exit_code == 0);
  CHECK(tree.out.find("100.00%    0.00%  worker_entry [app]\n") != std::string::npos);
  CHECK(tree.out.find("100.00%  100.00%        inlined_helper [app]\n") != std::string::npos);
  CHECK(tree.out.find("main") == std::string::npos);
  const ProcessResult callers = run_sprof({"report", "--callers", "compute", path});
  REQUIRE(callers.exit_code == 0);
  CHECK(callers.out.find(" 57.14%    main [app]\n") != std::string::npos);
  const ProcessResult json =
      run_sprof({"report", "--json", "--thread", "101", "--limit", "1", path});
  REQUIRE(json.exit_code == 0);
  CHECK(json.out.find(
            R"("functions":[{"name":"inlined_helper","module":"app","self":4,"total":4,)") !=
        std::string::npos);
}

TEST_CASE("report on a Gecko file names frames through the symbolicator") {
  TempDir dir;
  const std::string path = (dir.path() / "g.json").string();
  REQUIRE(sprof::profile::write_gecko_file(make_report_profile(), path).has_value());
  const ProcessResult r = run_sprof({"report", "--json", "--no-debuginfod", path});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // /bin/app does not exist here: its frames keep the Firefox Profiler's unsymbolicated names,
  // and the whole stack (no inline frames) is still counted.
  CHECK(r.out.find(R"("weight":14)") != std::string::npos);
  CHECK(r.out.find(R"("name":"0x401010","module":"app","self":0,"total":10)") != std::string::npos);
}

TEST_CASE("report on input that is no usable profile says why and fails") {
  TempDir dir;
  const std::string good = report_profile_json();
  struct Case {
    std::string name, bytes, message;
    std::vector<std::string> extra_args;
  };
  const std::vector<Case> cases = {
      {"truncated.json", good.substr(0, good.size() / 3), "not a profile", {}},
      {"text.json", "hello", "", {}},
      {"array.json", "[1,2]", "", {}},
      {"broken-table.json",
       good.substr(0, good.find(R"("stack":[)")) + R"("stack":[9999,)" +
           good.substr(good.find(R"("stack":[)") + 9),
       "profile: threads[0].samples.stack[0] points outside its table",
       {}},
      {"gecko-like.json",
       R"({"meta":{"version":36,"interval":1},"libs":[],"threads":[]})",
       "the profile has no threads",
       {}},
      {"p.json",
       good,
       "no thread nope in the profile; threads: main (100), worker (101)",
       {"--thread", "nope"}},
      {"p2.json", good, "no function named zzz", {"--callers", "zzz"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::string path = dir.write_file(c.name, c.bytes);
    std::vector<std::string> args{"report", path};
    args.insert(args.end(), c.extra_args.begin(), c.extra_args.end());
    const ProcessResult r = run_sprof(args);
    INFO(r.out << r.err);
    CHECK(r.exit_code != 0);
    CHECK(r.exit_code < 128);  // an exit, not a signal
    CHECK(r.err.find("sprof: " + path + ": " + c.message) == 0);
    CHECK(r.out.empty());
  }
  const ProcessResult missing = run_sprof({"report", (dir.path() / "nothing.json").string()});
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("nothing.json") != std::string::npos);
}

TEST_CASE("report on a truncated gzip file fails with a message") {
  TempDir dir;
  const std::string good = report_profile_json();
  std::string gz(compressBound(good.size()) + 64, '\0');
  // A gzip stream (deflateInit2 with 16 + 15 window bits), cut in the middle.
  z_stream z{};
  REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(good.data()));
  z.avail_in = static_cast<uInt>(good.size());
  z.next_out = reinterpret_cast<Bytef*>(gz.data());
  z.avail_out = static_cast<uInt>(gz.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  gz.resize(z.total_out / 2);
  deflateEnd(&z);
  const std::string path = dir.write_file("cut.json.gz", gz);
  const ProcessResult r = run_sprof({"report", path});
  INFO(r.err);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("sprof: " + path + ": ") == 0);
  CHECK(r.out.empty());
}

TEST_CASE("export --format folded writes collapsed stacks to a file or standard output") {
  TempDir dir;
  const std::string path = self_contained_file(dir);
  const std::string expected =
      "main;compute 2\n"
      "main;compute;leaf;inlined_helper 6\n"
      "main;recurse;recurse 2\n"
      "worker_entry;compute;leaf;inlined_helper 4\n";
  const ProcessResult to_stdout = run_sprof({"export", "--format", "folded", path});
  INFO(to_stdout.err);
  REQUIRE(to_stdout.exit_code == 0);
  CHECK(to_stdout.out == expected);
  const std::string out = (dir.path() / "out.folded").string();
  const ProcessResult to_file =
      run_sprof({"export", "-f", "folded", "--thread-prefix", "--thread", "main", "-o", out, path});
  REQUIRE(to_file.exit_code == 0);
  CHECK(to_file.out.empty());
  std::ifstream in(out);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(written ==
        "app (100)/main (100);main;compute 2\n"
        "app (100)/main (100);main;compute;leaf;inlined_helper 6\n"
        "app (100)/main (100);main;recurse;recurse 2\n");
  const ProcessResult unwritable =
      run_sprof({"export", "-f", "folded", "-o", (dir.path() / "no/such/dir/x").string(), path});
  CHECK(unwritable.exit_code == 3);
  CHECK(unwritable.err.find("sprof: cannot write ") == 0);
  const ProcessResult bad_format = run_sprof({"export", "-f", "svg", path});
  CHECK(bad_format.exit_code == 1);
  CHECK(bad_format.err.find("svg") != std::string::npos);
  const ProcessResult bad_input = run_sprof({"export", "-f", "folded", dir.write_file("x", "[]")});
  CHECK(bad_input.exit_code != 0);
  CHECK(bad_input.out.empty());
}

TEST_CASE("export --format pprof: pprof reads the samples, inline chains and modules back") {
  TempDir dir;
  const std::string path = self_contained_file(dir);
  const std::string out = (dir.path() / "cpu.pb.gz").string();
  CHECK(run_sprof({"export", "-f", "pprof", path}).exit_code == 1);  // no -o: binary to stdout
  const ProcessResult r = run_sprof({"export", "-f", "pprof", "-o", out, path});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const ProcessResult raw = go_tool_pprof({"-raw", out});
  if (raw.exit_code == 127 || raw.err.find("not found") != std::string::npos) {
    MESSAGE("go tool pprof is not installed (Debian: golang-go): pprof output not checked");
    return;
  }
  INFO(raw.out << raw.err);
  REQUIRE(raw.exit_code == 0);
  const PprofRaw p = parse_pprof_raw(raw.out);
  CHECK(p.sample_types == std::vector<std::string>{"samples/count", "cpu/nanoseconds"});
  // The report's functions and weights (report_command's expectations above).
  using Weights = std::map<std::string, std::pair<int64_t, int64_t>>;
  CHECK(p.self_and_total(0) == Weights{{"compute", {2, 12}},
                                       {"inlined_helper", {10, 10}},
                                       {"leaf", {0, 10}},
                                       {"main", {0, 10}},
                                       {"recurse", {2, 2}},
                                       {"worker_entry", {0, 4}}});
  // Every sample here took 1 ms of CPU.
  for (const PprofRawSample& s : p.samples) CHECK(s.values[1] == s.values[0] * 1000000);
  // The leaf's inline chain is one location, innermost first.
  bool chain = false;
  for (const auto& [id, functions] : p.location_functions) {
    chain = chain || functions == std::vector<std::string>{"inlined_helper", "leaf"};
  }
  CHECK(chain);
  REQUIRE(p.mappings.size() == 1);
  CHECK(p.mappings[0].find("/bin/app 0123456789ABCDEF0123456789ABCDEF0") != std::string::npos);
  const ProcessResult top = go_tool_pprof({"-top", "-sample_index=samples", out});
  CHECK(top.out.find("Duration: 20ms, Total samples = 14") != std::string::npos);
  CHECK(top.out.find("        10 71.43% 71.43%         10 71.43%  inlined_helper") !=
        std::string::npos);
}

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

size_t count_of(const std::string& text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("flamegraph writes one SVG: a frame per merged stack node, titled with the recording") {
  TempDir dir;
  const std::string path = self_contained_file(dir);
  const std::string out = (dir.path() / "flame.svg").string();
  const ProcessResult r = run_sprof({"flamegraph", path, "-o", out});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.empty());
  const std::string svg = read_file(out);
  CHECK(count_of(svg, "<g class=\"f\"") == 11);
  CHECK(svg.find(">Flame Graph</text>") != std::string::npos);
  CHECK(svg.find(">app \u00b7 14 samples \u00b7 2 threads</text>") != std::string::npos);
  CHECK(svg.find("<title>compute\nmodule: app\nfile: app.cpp\n8 samples, 57.14%</title>") !=
        std::string::npos);
  // Standard output gets the same bytes: nothing of the moment goes in.
  const ProcessResult to_stdout = run_sprof({"flamegraph", path});
  REQUIRE(to_stdout.exit_code == 0);
  CHECK(to_stdout.out == svg);

  const ProcessResult icicle =
      run_sprof({"flamegraph", "--inverted", "--thread", "worker", "--min-width", "0", path});
  REQUIRE(icicle.exit_code == 0);
  CHECK(icicle.out.find(">Icicle Graph</text>") != std::string::npos);
  CHECK(count_of(icicle.out, "<g class=\"f\"") == 5);
  CHECK(icicle.out.find(">app \u00b7 4 samples \u00b7 1 thread</text>") != std::string::npos);

  const ProcessResult no_thread = run_sprof({"flamegraph", "--thread", "nope", path});
  CHECK(no_thread.exit_code == 1);
  CHECK(no_thread.err.find("nope") != std::string::npos);
  CHECK(no_thread.out.empty());
  const ProcessResult bad_input = run_sprof({"flamegraph", dir.write_file("x", "[]")});
  CHECK(bad_input.exit_code != 0);
  CHECK(bad_input.out.empty());
}

TEST_CASE("flamegraph of a Gecko file draws the frames the symbolicator names") {
  TempDir dir;
  const std::string path = (dir.path() / "gecko.json").string();
  REQUIRE(sprof::profile::write_gecko_file(make_report_profile(), path).has_value());
  const ProcessResult r = run_sprof({"flamegraph", "--no-debuginfod", path});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // Without binaries to read, frames are addresses in "app"; the graph still has every stack.
  CHECK(r.out.find("<g class=\"f\" data-s=\"0\" data-n=\"14\" data-d=\"0\"><title>all\n") !=
        std::string::npos);
  CHECK(r.out.find("<title>0x401010\nmodule: app\n10 samples, 71.43%</title>") !=
        std::string::npos);
}

TEST_CASE("diff: shares per profile, --json, --thread for both, --fail-above exits 4") {
  TempDir dir;
  const std::string base = self_contained_file(dir);
  // The same program without its worker thread: main's share grows from 10 of 14 samples to
  // 10 of 10, worker_entry's falls from 4 of 14 to none.
  sprof::profile::Profile main_only = make_report_profile();
  main_only.processes[0].threads.pop_back();
  const std::string next = dir.write_file(
      "main-only.json", sprof::profile::processed_json_string(main_only, make_report_symbols()));

  const ProcessResult text = run_sprof({"diff", "--width", "80", base, next});
  INFO(text.out << text.err);
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("# Base: " + base + " (14 samples)\n# New:  " + next + " (10 samples)\n") ==
        0);
  CHECK(text.out.find("\n  71.43%   100.00%     +28.57      +0.00   app     main\n") !=
        std::string::npos);
  CHECK(text.out.find("\n  28.57%     0.00%     -28.57      +0.00   app     worker_entry\n") !=
        std::string::npos);

  const ProcessResult json = run_sprof({"diff", "--json", "--limit", "1", base, next});
  REQUIRE(json.exit_code == 0);
  CHECK(json.out.find(R"("matchedFunctions":5,"functions":[{"name":"main","module":"app",)"
                      R"("base":{"self":0,"total":10,"selfPercent":0,"totalPercent":71.43},)"
                      R"("new":{"self":0,"total":10,"selfPercent":0,"totalPercent":100},)"
                      R"("totalDelta":28.57,"selfDelta":0}]})") != std::string::npos);

  const ProcessResult worker = run_sprof({"diff", "--json", "--thread", "main", base, next});
  REQUIRE(worker.exit_code == 0);  // the same thread of both: nothing changed
  CHECK(worker.out.find(R"("totalDelta":0,"selfDelta":0}]})") != std::string::npos);
  CHECK(worker.out.find(R"("totalDelta":-)") == std::string::npos);

  const ProcessResult over = run_sprof({"diff", "--fail-above", "20", base, next});
  CHECK(over.exit_code == 4);
  CHECK(over.err.find("sprof: diff: main (app) grew by +28.57 points of total, over 20.00\n") !=
        std::string::npos);
  CHECK(run_sprof({"diff", "--fail-above", "30", base, next}).exit_code == 0);
}

TEST_CASE("diff -o draws NEW's flame graph coloured by change") {
  TempDir dir;
  const std::string path = self_contained_file(dir);
  const std::string svg = (dir.path() / "diff.svg").string();
  const ProcessResult r = run_sprof({"diff", "-o", svg, path, path});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("# Functions: 6, in both profiles 6\n") != std::string::npos);
  std::ifstream in(svg);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(bytes.find(">Differential Flame Graph</text>") != std::string::npos);
  CHECK(bytes.find("+0.00 points since base</title>") != std::string::npos);
  // Nothing changed: every frame but the root is the neutral grey.
  CHECK(bytes.find("rgb(255,") == std::string::npos);
  CHECK(bytes.find("fill=\"rgb(235,235,235)\"") != std::string::npos);
}

TEST_CASE("diff of files that are no profile or share no function says why and fails") {
  TempDir dir;
  const std::string path = self_contained_file(dir);
  const ProcessResult missing = run_sprof({"diff", path, (dir.path() / "none.json").string()});
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("none.json") != std::string::npos);
  // The Gecko file of the same profile, without symbols here: its frames are addresses.
  const std::string gecko = (dir.path() / "g.json").string();
  REQUIRE(sprof::profile::write_gecko_file(make_report_profile(), gecko).has_value());
  const ProcessResult unrelated = run_sprof({"diff", "--no-debuginfod", path, gecko});
  CHECK(unrelated.exit_code == 1);
  CHECK(unrelated.err.find("have no function in common") != std::string::npos);
  CHECK(unrelated.out.empty());
}
