// Self-contained profiles end to end: `sprof record` a program built by the suite (presym_target:
// a forced inline chain, vdso calls, short sleeps), then open the saved file the ways a user
// shares it: in the Firefox Profiler's own code (profiler-cli) with no symbol server and
// symbolication off; served by `sprof load` after the program's binary was deleted; made from an
// older file by `sprof symbolicate`; and the same names from the symbol cache. Checks are on
// names, never on exit codes alone.
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

#include "loaded_file.hpp"
#include "profiler_cli.hpp"
#include "profiler_cli_queries.hpp"
#include "recorded_profile.hpp"
#include "sprof/profile/profile_file.hpp"
#include "sprof/profile/profile_overview.hpp"
#include "sprof/profile/profile_reader.hpp"
#include "sprof_test/json_query.hpp"
#include "sprof_test/paths.hpp"
#include "sprof_test/processed_validator.hpp"

using namespace sprof::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

constexpr const char* kTarget = "presym_target";
// The outer function of the inline chain, as the symbolicator demangles it.
constexpr const char* kOuter = "presym_target!sprof_target::inline_chain_outer(int)";

// The 1-based line of "MARKER:<marker>" in the inline chain's source.
uint32_t marker_line(const std::string& marker) {
  std::ifstream in(std::string(kSourceDir) + "/tests/targets/symbols/inline_chain.cpp");
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    if (line.find("MARKER:" + marker) != std::string::npos) return n;
  }
  FAIL("marker " << marker << " not found");
  return 0;
}

// A copy of the target in `dir`, so a test can delete it after recording.
std::string copy_target(const std::string& dir) {
  const std::string copy = dir + "/" + kTarget;
  fs::copy_file(target_path(kTarget), copy, fs::copy_options::overwrite_existing);
  return copy;
}

// `sprof record -s [extra] -o <dir>/p.json.gz -- <dir>/presym_target <cpu_seconds>`; returns the
// profile path, and sprof's messages in `log` when given.
std::string record_target(const std::string& dir, const std::vector<std::string>& extra = {},
                          const std::string& cpu_seconds = "1", std::string* log = nullptr) {
  const std::string out = dir + "/p.json.gz";
  std::vector<std::string> argv{kSprofExe, "record", "-s", "-o", out};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), {"--", copy_target(dir), cpu_seconds});
  const ProcessResult r = run_process(argv);
  INFO("sprof:\n" << r.out << r.err);
  REQUIRE(r.exit_code == 0);
  if (log != nullptr) *log = r.err;
  return out;
}

std::string profile_text(const std::string& path) {
  auto bytes = sprof::profile::read_profile_json(path);
  REQUIRE_MESSAGE(bytes.has_value(), path);
  return *bytes;
}

void require_self_contained(const std::string& path) {
  const std::string text = profile_text(path);
  REQUIRE(sprof::profile::detect_profile_format(text) == sprof::profile::ProfileFormat::kProcessed);
  const auto problems = check_processed_profile(text);
  INFO(join_problems(problems));
  CHECK(problems.empty());
}

ProfilerCli locate_cli() {
  auto cli = ProfilerCli::locate();
  REQUIRE_MESSAGE(cli.has_value(), (cli ? "" : cli.error().message));
  return std::move(*cli);
}

void require_loaded(const ProcessResult& r, const ProfilerCli& cli) {
  INFO("load:\n" << r.out << r.err << "\n" << cli.session_log());
  REQUIRE(r.exit_code == 0);
}

// The main thread of the recorded program (its only process) in a loaded session.
std::string main_thread(ProfilerCli& cli) {
  const std::string info = cli.profile_info().out;
  const auto pids = process_pids(info);
  REQUIRE(pids.size() == 1);
  const int index = thread_index_of(info, pids[0]);
  REQUIRE(index >= 0);
  return "t-" + std::to_string(index);
}

struct CallNode {
  std::string name;  // with library
  std::string inline_status;
  std::string handle;
  int64_t total = 0;
  int64_t self = 0;
  std::vector<CallNode> children;
};

CallNode read_node(const JsonDoc& doc, const std::string& at) {
  CallNode node{std::string(doc.string(at + "/nameWithLibrary").value_or("")),
                std::string(doc.string(at + "/inlineStatus").value_or("")),
                std::string(doc.string(at + "/functionHandle").value_or("")),
                doc.integer(at + "/totalSamples").value_or(0),
                doc.integer(at + "/selfSamples").value_or(0),
                {}};
  for (size_t i = 0; i < doc.size(at + "/children").value_or(0); ++i) {
    node.children.push_back(read_node(doc, at + "/children/" + std::to_string(i)));
  }
  // The front end lists siblings by weight, and siblings of equal weight in the order their
  // functions were made: in a live session, the order in which the symbol server's answers
  // arrived. So compare them in an order of their own (CI's failure of 2026-11-28: two samples
  // under `seconds_of`, `clock_gettime@plt` and a timer interrupt, listed either way round).
  std::sort(node.children.begin(), node.children.end(), [](const CallNode& a, const CallNode& b) {
    return std::tie(b.total, a.name, a.inline_status, a.self) <
           std::tie(a.total, b.name, b.inline_status, b.self);
  });
  return node;
}

// The whole top-down call tree of the main thread, idle samples included.
CallNode call_tree(ProfilerCli& cli) {
  const ProcessResult r = cli.run(
      {"thread", "samples-top-down", "--thread", main_thread(cli), "--include-idle", "--json"});
  REQUIRE(r.exit_code == 0);
  const JsonDoc doc(r.out);
  REQUIRE(doc.ok());
  return read_node(doc, "/regularCallTree");
}

void visit(const CallNode& node, const std::function<void(const CallNode&)>& f) {
  f(node);
  for (const CallNode& c : node.children) visit(c, f);
}

std::set<std::string> names_in(const CallNode& tree) {
  std::set<std::string> names;
  visit(tree, [&](const CallNode& n) { names.insert(n.name); });
  names.erase("<root>");
  return names;
}

// Where two call trees first differ ("" when they do not): the path of names down to it.
std::string first_difference(const CallNode& a, const CallNode& b, const std::string& path = "") {
  const std::string here = path + "/" + a.name;
  if (a.name != b.name || a.inline_status != b.inline_status || a.total != b.total ||
      a.self != b.self || a.children.size() != b.children.size()) {
    std::string children_a, children_b;
    for (const CallNode& c : a.children) children_a += " " + c.name + "=" + std::to_string(c.total);
    for (const CallNode& c : b.children) children_b += " " + c.name + "=" + std::to_string(c.total);
    return here + ": " + a.inline_status + " total " + std::to_string(a.total) + " self " +
           std::to_string(a.self) + " children" + children_a + "\n  vs " + b.name + ": " +
           b.inline_status + " total " + std::to_string(b.total) + " self " +
           std::to_string(b.self) + " children" + children_b;
  }
  for (size_t i = 0; i < a.children.size(); ++i) {
    const std::string d = first_difference(a.children[i], b.children[i], here);
    if (!d.empty()) return d;
  }
  return "";
}

bool same_tree(const CallNode& a, const CallNode& b) {
  if (a.name != b.name || a.inline_status != b.inline_status || a.total != b.total ||
      a.self != b.self || a.children.size() != b.children.size()) {
    return false;
  }
  for (size_t i = 0; i < a.children.size(); ++i) {
    if (!same_tree(a.children[i], b.children[i])) return false;
  }
  return true;
}

// `"debugName": ..., "debugId": ...` of the target's module, for source/v1 and asm/v1 requests.
std::string module_fields(const std::string& id) {
  return R"("debugName":")" + std::string(kTarget) + R"(","debugId":")" + id + R"(")";
}

// The module `debug_name` of a profile's libs: its breakpadId.
std::string breakpad_id_of(const std::string& text, const std::string& debug_name) {
  auto overview = sprof::profile::read_profile_overview(text);
  REQUIRE(overview.has_value());
  for (const auto& lib : overview->libraries) {
    if (lib.debug_name == debug_name) return lib.breakpad_id;
  }
  FAIL("no lib " << debug_name);
  return "";
}

// The target's module in a self-contained file: its breakpadId and the symbols the file carries.
struct EmbeddedTarget {
  std::string id;
  sprof::profile::ModuleSymbols symbols;
};

EmbeddedTarget embedded_target(const std::string& file) {
  const std::string text = profile_text(file);
  auto embedded = sprof::profile::read_embedded_symbols(text);
  REQUIRE(embedded.has_value());
  EmbeddedTarget target{breakpad_id_of(text, kTarget), {}};
  const auto* module = embedded->find_module({kTarget, target.id});
  REQUIRE(module != nullptr);
  target.symbols = *module;
  return target;
}

}  // namespace

// Opens `file` in profiler-cli with no symbol server and checks the names, inline frames and lines
// of presym_target's profile: `record -s` exited, so they can only come from the file.
void check_names_from_file(const std::string& file) {
  ProfilerCli cli = locate_cli();
  require_loaded(cli.load_standalone(file), cli);
  const CallNode tree = call_tree(cli);
  const auto names = names_in(tree);
  std::string all;
  for (const auto& n : names) all += n + "\n";
  INFO("functions:\n" << all);
  CHECK(names.count(kOuter) == 1);  // demangled, with its namespace and parameters
  CHECK(names.count(std::string(kTarget) + "!main") == 1);
  std::optional<CallNode> inlined;
  visit(tree, [&](const CallNode& n) {
    if (n.name.find("!sprof_target::chain_c") != std::string::npos) inlined = n;
  });
  REQUIRE(inlined.has_value());
  CHECK(inlined->inline_status == "inlined");
  bool kernel = false;
  bool vdso = false;
  for (const auto& n : names) {
    kernel |= n.starts_with("[kernel.kallsyms]!");
    vdso |= n.starts_with("[vdso]!");
    // The program, the kernel and the vdso are named everywhere (system libraries may have
    // addresses their symbols do not cover, and show them as the front end does).
    if (n.starts_with(std::string(kTarget) + "!") || n.starts_with("[")) {
      CHECK_MESSAGE(n.find("!0x") == std::string::npos, n);
      CHECK_MESSAGE(n.find("<unknown") == std::string::npos, n);
    }
  }
  CHECK(kernel);
  CHECK(vdso);

  // The source positions of the inlined function: its file and the sampled line.
  const ProcessResult annotated =
      cli.run({"function", "annotate", inlined->handle, "--mode", "src", "--json"});
  REQUIRE(annotated.exit_code == 0);
  const JsonDoc annotation(annotated.out);
  CHECK(std::string(annotation.string("/srcAnnotation/filename").value_or(""))
            .ends_with("/inline_chain.cpp"));
  const uint32_t body_c = marker_line("body_c");
  int64_t samples_at_body = 0;
  for (size_t i = 0; i < annotation.size("/srcAnnotation/lines").value_or(0); ++i) {
    const std::string line = "/srcAnnotation/lines/" + std::to_string(i);
    const auto number = annotation.integer(line + "/lineNumber").value_or(0);
    if (number == body_c || number == body_c + 1) {
      samples_at_body += annotation.integer(line + "/totalSamples").value_or(0);
    }
  }
  CHECK(samples_at_body > 0);
}

TEST_CASE("a saved profile opens with no server and shows names, inline frames and lines") {
  skip_without_perf();
  const auto dir = make_temp_dir("sc-standalone");
  const std::string file = record_target(dir);
  require_self_contained(file);
  check_names_from_file(file);
}

TEST_CASE("a recording's symbols are read while it runs, and the file names the same") {
  // Previews of the profile so far (1 s in, then 3 s, ...) are presymbolicated while the program
  // runs (cli/symbol_prefetch.hpp); the save after the exit reads only what ran since.
  skip_without_perf();
  const auto dir = make_temp_dir("sc-prefetch");
  std::string log;
  const std::string file = record_target(dir, {"-v"}, "2.5", &log);
  INFO("sprof:\n" << log);
  // The preview was cut while recording, before the Gecko file was written; its symbols were
  // read then or, on a machine too busy to finish before the program did, before the save.
  const auto cut = log.find("preview: the recording thread paused");
  REQUIRE(cut != std::string::npos);
  CHECK(cut < log.find("written"));
  const auto read = log.find("preview: symbols read in");
  REQUIRE(read != std::string::npos);
  CHECK(read < log.find("is self-contained"));
  require_self_contained(file);
  check_names_from_file(file);
}

TEST_CASE("with the binary deleted, sprof load answers symbolicate/v5 from the file") {
  skip_without_perf();
  const auto dir = make_temp_dir("sc-deleted");
  const std::string file = record_target(dir);
  fs::remove(dir + "/" + kTarget);
  const auto [id, module] = embedded_target(file);
  // Every address of the target the profile holds, and one that sits in chain_c's inlined code,
  // with chain_c's place in its inline frames. Which addresses the samples hit varies from run to
  // run: chain_c as the innermost frame needs a sample on one of its three instructions (a run
  // of the sanitizer stage under load found no such address once), chain_c among the frames a
  // sample anywhere in chain_b's or chain_c's code.
  std::string frames;
  std::optional<std::pair<size_t, size_t>> inline_index;  // (address, inline frame)
  std::vector<std::string> expected;
  std::string listed;  // each address with its function and inline frames, for a failure
  for (const auto& [address, symbol] : module.entries()) {
    listed += std::to_string(address) + " " + symbol.function;
    for (const auto& call : symbol.inlines) listed += " < " + call.function;
    listed += "\n";
    if (!frames.empty()) frames += ",";
    frames += "[0," + std::to_string(address) + "]";
    for (size_t k = 0; k < symbol.inlines.size() && !inline_index; ++k) {
      if (symbol.inlines[k].function.find("chain_c") != std::string::npos) {
        inline_index = std::pair{expected.size(), k};
      }
    }
    expected.push_back(symbol.function);
  }
  INFO("the target's addresses in the file:\n" << listed);
  REQUIRE(inline_index.has_value());

  LoadedFile loaded(file, dir);
  const HttpResult reply =
      loaded.post("/symbolicate/v5", R"({"jobs":[{"memoryMap":[[")" + std::string(kTarget) +
                                         R"(",")" + id + R"("]],"stacks":[[)" + frames + "]]}]}");
  REQUIRE(reply.status == 200);
  const JsonDoc v5(reply.body);
  REQUIRE(v5.ok());
  CHECK(v5.boolean("/results/0/found_modules/" + std::string(kTarget) + "~1" + id) == true);
  REQUIRE(v5.size("/results/0/stacks/0") == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    CHECK(v5.string("/results/0/stacks/0/" + std::to_string(i) + "/function") == expected[i]);
  }
  const std::string inline_frame = "/results/0/stacks/0/" + std::to_string(inline_index->first);
  const std::string chain_c = inline_frame + "/inlines/" + std::to_string(inline_index->second);
  CHECK(std::string(v5.string(chain_c + "/function").value_or("")).find("chain_c") !=
        std::string::npos);

  // The file's word is not enough to read a source file, and there is no binary to disassemble.
  const std::string file_name(v5.string(inline_frame + "/inlines/0/file").value_or(""));
  const std::string offset(v5.string(inline_frame + "/module_offset").value_or(""));
  const HttpResult source =
      loaded.post("/source/v1", "{" + module_fields(id) + R"(,"moduleOffset":")" + offset +
                                    R"(","file":")" + file_name + R"("})");
  CHECK(JsonDoc(source.body).has("/error"));
  CHECK_FALSE(JsonDoc(source.body).has("/source"));
  const HttpResult assembly = loaded.post(
      "/asm/v1", "{" + module_fields(id) + R"(,"startAddress":")" + offset + R"(","size":"0x10"})");
  CHECK(std::string(JsonDoc(assembly.body).string("/error").value_or("")).find("no binary") !=
        std::string::npos);
  CHECK(loaded.stop() == 0);
}

TEST_CASE("with the binary present, a self-contained file still gets source and assembly") {
  skip_without_perf();
  const auto dir = make_temp_dir("sc-present");
  const std::string file = record_target(dir);
  const auto [id, module] = embedded_target(file);
  std::optional<std::pair<uint64_t, sprof::profile::AddressSymbol>> inlined;
  for (const auto& entry : module.entries()) {
    if (!entry.second.inlines.empty() && entry.second.function_size) inlined = entry;
  }
  REQUIRE(inlined.has_value());

  LoadedFile loaded(file, dir);
  char offset[32];
  std::snprintf(offset, sizeof offset, "0x%llx", static_cast<unsigned long long>(inlined->first));
  const HttpResult source = loaded.post(
      "/source/v1", "{" + module_fields(id) + R"(,"moduleOffset":")" + offset + R"(","file":")" +
                        inlined->second.inlines.front().file + R"("})");
  const JsonDoc source_reply(source.body);
  INFO("source/v1: " << source.body.substr(0, 300));
  CHECK(std::string(source_reply.string("/source").value_or("")).find("MARKER:body_c") !=
        std::string::npos);
  char start[32];
  char size[32];
  std::snprintf(start, sizeof start, "0x%llx",
                static_cast<unsigned long long>(inlined->second.function_start));
  std::snprintf(size, sizeof size, "0x%llx",
                static_cast<unsigned long long>(*inlined->second.function_size));
  const HttpResult assembly =
      loaded.post("/asm/v1", "{" + module_fields(id) + R"(,"startAddress":")" + start +
                                 R"(","size":")" + size + R"("})");
  const JsonDoc asm_reply(assembly.body);
  INFO("asm/v1: " << assembly.body.substr(0, 300));
  CHECK(asm_reply.size("/instructions").value_or(0) > 0);
  CHECK(loaded.stop() == 0);
}

TEST_CASE("sprof symbolicate gives an older file the names sprof's server gives it") {
  skip_without_perf();
  const auto dir = make_temp_dir("sc-symbolicate");
  const std::string gecko = record_target(dir, {"--no-presymbolicate"});
  REQUIRE(sprof::profile::detect_profile_format(profile_text(gecko)) ==
          sprof::profile::ProfileFormat::kGecko);

  // Live: the Gecko file served by `sprof load`, symbolicated through its server.
  CallNode live;
  {
    BackgroundProcess loader({kSprofExe, "load", "--no-open", "-P", "0", gecko}, dir + "/load.log");
    const std::string log = loader.wait_for_log("sprof: open ", 30s);
    INFO("sprof load:\n" << loader.log());
    REQUIRE_FALSE(log.empty());
    ProfilerCli cli = locate_cli();
    require_loaded(cli.load(log_value_after(log, "sprof: open ")), cli);
    live = call_tree(cli);
    CHECK(loader.stop(SIGTERM, 10s) == 0);
  }
  CHECK(names_in(live).count(kOuter) == 1);

  const std::string out = dir + "/self-contained.json.gz";
  const ProcessResult r = run_process({kSprofExe, "symbolicate", gecko, "-o", out});
  INFO("sprof symbolicate:\n" << r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("is self-contained") != std::string::npos);
  require_self_contained(out);

  ProfilerCli cli = locate_cli();
  require_loaded(cli.load_standalone(out), cli);
  const CallNode standalone = call_tree(cli);
  // The same call tree, node for node: names, inline frames and sample counts.
  const auto live_names = names_in(live);
  const auto standalone_names = names_in(standalone);
  std::set<std::string> only_live, only_standalone;
  std::set_difference(live_names.begin(), live_names.end(), standalone_names.begin(),
                      standalone_names.end(), std::inserter(only_live, only_live.end()));
  std::set_difference(standalone_names.begin(), standalone_names.end(), live_names.begin(),
                      live_names.end(), std::inserter(only_standalone, only_standalone.end()));
  INFO("names only the server gave:\n"
       << join_lines(only_live) << "names only the file has:\n"
       << join_lines(only_standalone) << "first difference (server vs file):\n"
       << first_difference(live, standalone));
  CHECK(same_tree(live, standalone));
}

TEST_CASE("record prints the URL at once and makes the served file self-contained after") {
  skip_without_perf();
  const auto dir = make_temp_dir("sc-record");
  const std::string out = dir + "/p.json.gz";
  BackgroundProcess sprof(
      {kSprofExe, "record", "--no-open", "-P", "0", "-o", out, "--", copy_target(dir), "1"},
      dir + "/sprof.log");
  const std::string opened = sprof.wait_for_log("sprof: open ", 60s);
  INFO("sprof log:\n" << sprof.log());
  REQUIRE_FALSE(opened.empty());
  ProfilerCli live = locate_cli();
  require_loaded(live.load(log_value_after(opened, "sprof: open ")), live);
  const auto live_names = names_in(call_tree(live));
  CHECK(live_names.count(kOuter) == 1);

  const std::string done = sprof.wait_for_log("is self-contained", 120s);
  REQUIRE_FALSE(done.empty());
  // The first page view did not wait for the symbols.
  CHECK(done.find("sprof: open ") < done.find("is self-contained"));
  CHECK(sprof.stop(SIGINT, 30s) == 0);
  require_self_contained(out);
  ProfilerCli standalone = locate_cli();
  require_loaded(standalone.load_standalone(out), standalone);
  CHECK(names_in(call_tree(standalone)) == live_names);
}

namespace {

// "in 6 of 7 modules": the modules a save found symbols for (each then has a cache file).
size_t modules_named(const std::string& log) {
  const size_t at = log.find("addresses named in ");
  REQUIRE(at != std::string::npos);
  return std::stoul(log.substr(at + std::string("addresses named in ").size()));
}

// `sprof cache` for `cache`: its listing, and the number of modules it states.
std::pair<std::string, size_t> cache_listing(const std::string& cache) {
  const ProcessResult r = run_process({kSprofExe, "cache", "--symbol-cache", cache});
  INFO("sprof cache:\n" << r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string head = "symbol cache " + cache + ": ";
  REQUIRE(r.out.starts_with(head));
  return {r.out, std::stoul(r.out.substr(head.size()))};
}

}  // namespace

TEST_CASE("symbols come from the symbol cache the second time, and name the same frames") {
  skip_without_perf();
  const auto dir = make_temp_dir("sc-cache");
  // The default place, under XDG_CACHE_HOME, as a user's runs find it.
  const std::string cache = dir + "/xdg/sprof";
  const std::string gecko = record_target(dir, {"--no-presymbolicate"});
  const auto symbolicate = [&](const std::string& name, const std::vector<std::string>& extra) {
    const std::string out = dir + "/" + name;
    std::vector<std::string> argv{kSprofExe, "symbolicate", gecko, "-o", out};
    argv.insert(argv.end(), extra.begin(), extra.end());
    RunOptions options;
    options.env = {{"XDG_CACHE_HOME", dir + "/xdg"}};
    const ProcessResult r = run_process(argv, options);
    INFO("sprof symbolicate:\n" << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    return std::pair{out, r.err};
  };
  const auto [without, without_log] = symbolicate("without.json.gz", {"--no-symbol-cache"});
  CHECK_FALSE(std::filesystem::exists(cache));  // neither read nor written
  const auto [first, first_log] = symbolicate("first.json.gz", {});
  CHECK(first_log.find("from the symbol cache") == std::string::npos);  // it was empty
  const size_t named = modules_named(first_log);
  REQUIRE(named >= 4);  // the program, libc, libstdc++, the kernel, ...

  // Whatever the first run could not save before it ended is saved by `sprof cache fill` in the
  // background; wait for it (generously: the machine may be loaded).
  std::pair<std::string, size_t> listing;
  for (int i = 0; i < 1200 && (listing = cache_listing(cache)).second < named; ++i) {
    std::this_thread::sleep_for(100ms);
  }
  INFO("sprof cache:\n" << listing.first);
  REQUIRE(listing.second == named);
  const std::string target_id = breakpad_id_of(profile_text(gecko), kTarget);
  CHECK(listing.first.find("kernel build-id ") != std::string::npos);
  // The listing names the program by its build-id (the breakpad id is its first 16 bytes,
  // byte-swapped in the first three fields, so look for the unswapped tail).
  std::string tail = target_id.substr(16, 16);
  std::transform(tail.begin(), tail.end(), tail.begin(), ::tolower);
  CHECK(listing.first.find(tail) != std::string::npos);

  const auto [second, second_log] = symbolicate("second.json.gz", {});
  CHECK(second_log.find("(" + std::to_string(named) + " from the symbol cache)") !=
        std::string::npos);
  require_self_contained(second);
  // The Firefox Profiler's own code sees the same call tree, node for node (names, inline
  // frames, counts), from the cache as from the debug files.
  ProfilerCli from_files = locate_cli();
  require_loaded(from_files.load_standalone(without), from_files);
  ProfilerCli from_cache = locate_cli();
  require_loaded(from_cache.load_standalone(second), from_cache);
  const CallNode expected = call_tree(from_files);
  CHECK(names_in(expected).count(kOuter) == 1);
  CHECK(same_tree(call_tree(from_cache), expected));

  const ProcessResult cleared = run_process({kSprofExe, "cache", "clear", "--symbol-cache", cache});
  CHECK(cleared.out.find("removed " + std::to_string(named) + " modules") != std::string::npos);
  CHECK(cache_listing(cache).second == 0);
}
