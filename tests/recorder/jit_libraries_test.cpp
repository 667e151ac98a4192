// Libs for JIT code (recorder) and their symbolication (symbolicator), from perf maps and
// jitdumps written to temporary files.
#include "sprof/convert/jit_libraries.hpp"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include <fstream>
#include <string>

#include "jit_test_bytes.hpp"
#include "sprof/convert/profile_converter.hpp"
#include "sprof/recorder/local_files.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

using namespace sprof;
using namespace sprof::convert;

namespace {

profile::Library real_lib(uint64_t start, uint64_t end) {
  profile::Library lib;
  lib.start = start;
  lib.end = end;
  lib.name = lib.debug_name = "libreal.so";
  lib.breakpad_id = std::string(33, 'A');
  return lib;
}

struct TempDir {
  TempDir() {
    char t[] = "/tmp/sprof-jit-test-XXXXXX";
    path = mkdtemp(t) != nullptr ? t : "";
  }
  ~TempDir() {
    for (const auto& f : files) unlink(f.c_str());
    rmdir(path.c_str());
  }
  std::string write(const std::string& name, const std::string& content) {
    const std::string p = path + "/" + name;
    std::ofstream(p, std::ios::binary) << content;
    files.push_back(p);
    return p;
  }
  std::string path;
  std::vector<std::string> files;
};

// The relative address the front end computes for `avma` in `lib` (docs/firefox-profiler-format.md,
// "libs").
uint64_t relative(const profile::Library& lib, uint64_t avma) {
  return avma - (lib.start - lib.offset);
}

}  // namespace

TEST_CASE("jit code between real libs gets one lib per run, and nothing overlapping them") {
  const std::vector<JitSymbol> symbols = {
      {0x7f0000001000, 0x100, "a", {}},
      {0x7f0000001100, 0x100, "b", {}},
      {0x7f0000003000, 0x10, "c", {}},  // after a gap with no real lib: same run
      {0x7f0000010000, 0x10, "d", {}},  // beyond the real lib: new run
      {0x7f0000008100, 0x10, "inside a real lib", {}},
  };
  const auto libs = jit_libraries_for(symbols, "/tmp/perf-1.map", 0x1234,
                                      {real_lib(0x7f0000008000, 0x7f0000009000)});
  REQUIRE(libs.size() == 2);
  CHECK(libs[0].start == 0x7f0000001000);
  CHECK(libs[0].end == 0x7f0000003010);
  CHECK(libs[1].start == 0x7f0000010000);
  CHECK(libs[1].end == 0x7f0000010010);
  for (const auto& lib : libs) {
    CHECK(lib.name == "perf-1.map");
    CHECK(lib.debug_name == "perf-1.map");
    CHECK(lib.path == "/tmp/perf-1.map");
    CHECK(lib.breakpad_id.size() == 33);
  }
  // One window, one base: the same id, and relative addresses agree across the runs.
  CHECK(libs[0].breakpad_id == libs[1].breakpad_id);
  const uint64_t base = *jit_base_from_breakpad_id(libs[0].breakpad_id);
  CHECK(relative(libs[0], 0x7f0000001100) + base == 0x7f0000001100);
  CHECK(relative(libs[1], 0x7f0000010004) + base == 0x7f0000010004);
}

TEST_CASE("jit code spread over more than 4 GiB gets one base per window") {
  const std::vector<JitSymbol> symbols = {{0x100000000000, 0x10, "low", {}},
                                          {0x100200000000, 0x10, "high", {}}};
  const auto libs = jit_libraries_for(symbols, "/x/jit-5.dump", 1, {});
  REQUIRE(libs.size() == 2);
  CHECK(libs[0].breakpad_id != libs[1].breakpad_id);
  for (const auto& lib : libs) {
    // The front end keeps relative addresses in 32 bits.
    CHECK(relative(lib, lib.end - 1) < (uint64_t{1} << 32));
    CHECK(relative(lib, lib.start) + *jit_base_from_breakpad_id(lib.breakpad_id) == lib.start);
  }
}

TEST_CASE("perf maps older than the recording belong to an earlier process and are ignored") {
  recorder::LocalFiles files;  // the perf map's time comes from the disk
  TempDir dir;
  const std::string map = dir.write("perf-77.map", "7f0000001000 20 fresh\n");
  JitLibraries::Options o;
  o.perf_map_dir = dir.path;
  o.min_mtime_wall_ms = 1.0e12;  // 2001: the file is newer
  std::vector<profile::Library> libs;
  JitLibraries(o, files).add_libraries(77, libs);
  REQUIRE(libs.size() == 1);
  CHECK(libs[0].name == "perf-77.map");

  utimbuf old_times{946684800, 946684800};  // 2000-01-01
  REQUIRE(utime(map.c_str(), &old_times) == 0);
  libs.clear();
  JitLibraries(o, files).add_libraries(77, libs);
  CHECK(libs.empty());
  // An attached process started before the recording: its map is current.
  JitLibraries attached(o, files);
  attached.note_attached(77);
  attached.add_libraries(77, libs);
  CHECK(libs.size() == 1);
}

TEST_CASE("jitdumps named by mmap records become libs next to the process's real libs") {
  recorder::LocalFiles files;
  TempDir dir;
  test::JitDumpWriter dump;
  dump.code_load(0x7f0000020000, 0x40, 1, "jitted_fn");
  const std::string path = dir.write("jit-88.dump", dump.text());

  ConverterOptions options;
  options.origin_monotonic_ns = 1'000'000'000;
  options.origin_wall_ms = 1.0e12;
  options.root_pid = 88;
  ModuleCache cache(files);
  ProfileConverter c(options, cache);
  perf::CommRecord exec;
  exec.id = perf::SampleId{88, 88, 1'000'050'000, 0};
  exec.pid = exec.tid = 88;
  exec.exec = true;
  exec.comm = "jit";
  c.consume(exec);
  perf::Mmap2Record m;
  m.id = perf::SampleId{88, 88, 1'000'100'000, 0};
  m.pid = m.tid = 88;
  m.addr = 0x7f0000100000;
  m.len = 4096;
  m.executable = true;  // JITs map the dump PROT_EXEC so perf always reports it
  m.filename = path;
  c.consume(m);
  const auto p = c.finish(1'010'000'000);
  const auto& libs = p.processes.at(0).libs;
  REQUIRE(libs.size() == 1);
  CHECK(libs[0].name == "jit-88.dump");
  CHECK(libs[0].path == path);
  CHECK(libs[0].start == 0x7f0000020000);
  CHECK(libs[0].end == 0x7f0000020040);
}

TEST_CASE("the symbolicator resolves jit libs through the recorded file and the id's base") {
  recorder::LocalFiles files;  // the recorder and the symbolicator read the same files
  TempDir dir;
  const std::string map =
      dir.write("perf-99.map", "7f0000001000 20 jitted_hot_loop\n7f0000001020 10 _Z5otheri\n");
  test::JitDumpWriter dump;
  dump.debug_info(0x7f0000050000,
                  {{0x7f0000050000, 3, "/src/app.js"}, {0x7f0000050010, 4, "/src/app.js"}});
  dump.code_load(0x7f0000050000, 0x30, 1, "dumped_fn");
  const std::string dump_path = dir.write("jit-99.dump", dump.text());

  std::vector<profile::Library> libs;
  JitLibraries::Options o;
  o.perf_map_dir = dir.path;
  JitLibraries jit(o, files);
  REQUIRE(jit.note_mmap(99, dump_path));
  jit.add_libraries(99, libs);
  REQUIRE(libs.size() == 2);

  symbolicator::SymbolicatorOptions so;
  for (const auto& lib : libs) so.hints.push_back({lib.debug_name, lib.breakpad_id, lib.path});
  symbolicator::Symbolicator symbols(so);

  const auto lookup = [&](const profile::Library& lib, uint64_t avma) {
    auto module = symbols.module(lib.debug_name, lib.breakpad_id);
    REQUIRE(module.has_value());
    return (*module)->lookup(RelativeAddress{relative(lib, avma)});
  };
  const auto& map_lib = libs[0].name == "perf-99.map" ? libs[0] : libs[1];
  const auto& dump_lib = libs[0].name == "perf-99.map" ? libs[1] : libs[0];

  const auto hot = lookup(map_lib, 0x7f0000001006);
  REQUIRE(hot.has_value());
  CHECK(hot->function == "jitted_hot_loop");
  CHECK(relative(map_lib, 0x7f0000001006) - hot->function_start == 6);
  CHECK(hot->function_size == 0x20);
  const auto other = lookup(map_lib, 0x7f0000001020);
  REQUIRE(other.has_value());
  CHECK(other->function == "other(int)");  // demangled
  CHECK_FALSE(lookup(map_lib, 0x7f0000001030).has_value());

  const auto dumped = lookup(dump_lib, 0x7f0000050010);
  REQUIRE(dumped.has_value());
  CHECK(dumped->function == "dumped_fn");
  CHECK(dumped->file == "/src/app.js");  // from the jitdump's DEBUG_INFO
  CHECK(dumped->line == 4);
  const auto dumped_start = lookup(dump_lib, 0x7f000005000f);
  REQUIRE(dumped_start.has_value());
  CHECK(dumped_start->line == 3);
  CHECK(hot->file.empty());  // perf maps have no lines
  CHECK(hot->line == 0);

  // A jit lib whose file is gone is not found (and does not crash).
  CHECK_FALSE(symbols.module("perf-98.map", map_lib.breakpad_id).has_value());
}
