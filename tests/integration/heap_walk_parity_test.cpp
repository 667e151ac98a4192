// Allocation stacks walked inside the recorded program (the default, `--heap-stacks=walk`) against
// the same program's stacks copied and unwound by sprof's own CFI unwinder (`--heap-stacks=copy`),
// on binaries built the ways users build them: g++/clang with GNU ld, gold, lld and mold,
// non-PIE, split and compressed DWARF, Rust (both manglings), and programs whose allocator is
// jemalloc or mimalloc or whose allocations go through wrappers. Every call path and its bytes must
// be the same (`sprof export -f folded --heap allocated`), and every record but the one ld.so's
// constructors make before main must have been walked.
#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <string>

#include "recorded_profile.hpp"
#include "sprof/profile/profile_file.hpp"
#include "sprof_test/paths.hpp"

using namespace sprof::test;

namespace {

std::map<std::string, int64_t> folded_paths(const std::string& file) {
  const ProcessResult r =
      run_process({kSprofExe, "export", "-f", "folded", "--heap", "allocated", file});
  INFO("sprof export: " << r.err);
  REQUIRE(r.exit_code == 0);
  std::map<std::string, int64_t> paths;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const size_t space = line.rfind(' ');
    REQUIRE(space != std::string::npos);
    paths[line.substr(0, space)] += std::stoll(line.substr(space + 1));
  }
  return paths;
}

int64_t meta_number(const std::string& json, const std::string& key) {
  const std::string quoted = "\"" + key + "\":";
  const size_t at = json.find(quoted);
  REQUIRE_MESSAGE(at != std::string::npos, key << " missing from meta.sprof");
  return std::stoll(json.substr(at + quoted.size()));
}

void check_walk_matches_copy(const std::string& program, const std::vector<std::string>& args) {
  skip_without_perf();
  const auto dir = make_temp_dir("heap-walk");
  std::vector<std::string> command{program};
  command.insert(command.end(), args.begin(), args.end());
  std::map<std::string, std::map<std::string, int64_t>> paths;
  for (const std::string how : {"walk", "copy"}) {
    CAPTURE(how);
    const std::string file = dir + "/" + how + ".json.gz";
    const ProcessResult r =
        sprof_record(file, {"--heap=all", "--no-cpu", "--heap-stacks=" + how}, command);
    INFO("sprof record: " << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    // (Not read_profile: its checks are a CPU profile's, and --no-cpu has no CPU columns.)
    const auto json = sprof::profile::read_profile_json(file);
    REQUIRE(json.has_value());
    const int64_t walked = meta_number(*json, "heapWalkedStacks");
    const int64_t fallbacks = meta_number(*json, "heapWalkFallbacks");
    MESSAGE(program << " " << how << ": " << walked << " stacks walked, " << fallbacks
                    << " copied after a walk gave up");
    if (how == "walk") {
      // At most one record is copied: in C++ programs, libstdc++'s emergency exception pool,
      // allocated by ld.so's _dl_init before main, under a frame (_dl_start_user) whose CFI does
      // not mark the end of the stack.
      CHECK(walked > 0);
      CHECK(fallbacks <= 1);
    } else {
      CHECK(walked == 0);
      CHECK(fallbacks == 0);
    }
    paths[how] = folded_paths(file);
  }
  REQUIRE_FALSE(paths["copy"].empty());
  for (const auto& [path, bytes] : paths["copy"]) {
    CAPTURE(path);
    CHECK(paths["walk"][path] == bytes);
  }
  for (const auto& [path, bytes] : paths["walk"]) {
    CAPTURE(path);
    CHECK(paths["copy"].count(path) == 1);
  }
}

std::string built(const std::string& name, const char* package) {
  return toolchain_target(name, std::string("the Debian package ") + package);
}

}  // namespace

TEST_CASE("heap stacks walked in the process equal unwound copies: it_unwind, g++ and GNU ld") {
  check_walk_matches_copy(built("it_unwind", "g++"), {"2", "0", "20"});
}
TEST_CASE("heap stacks walked in the process equal unwound copies: it_unwind, gold and mold") {
  check_walk_matches_copy(built("it_unwind_gold", "binutils"), {"2", "0", "20"});
  check_walk_matches_copy(built("it_unwind_mold", "mold"), {"2", "0", "20"});
}
TEST_CASE(
    "heap stacks walked in the process equal unwound copies: it_unwind, clang with lld, mold") {
  check_walk_matches_copy(built("it_unwind_clang_lld", "clang and lld"), {"2", "0", "20"});
  check_walk_matches_copy(built("it_unwind_clang_lld_nopie", "clang and lld"), {"2", "0", "20"});
  check_walk_matches_copy(built("it_unwind_clang_mold", "clang and mold"), {"2", "0", "20"});
}
TEST_CASE("heap stacks walked in the process equal unwound copies: non-PIE, split, compressed") {
  check_walk_matches_copy(built("it_unwind_nopie", "g++"), {"2", "0", "20"});
  check_walk_matches_copy(built("it_unwind_split_dwarf", "g++"), {"2", "0", "20"});
  check_walk_matches_copy(built("it_unwind_compressed", "g++"), {"2", "0", "20"});
}
TEST_CASE("heap stacks walked in the process equal unwound copies: Rust, both manglings") {
  for (const std::string target : {"tc_rust_alloc", "tc_rust_alloc_v0"}) {
    check_walk_matches_copy(
        toolchain_target("toolchains/" + target,
                         "rustc (the machine's Rust toolchain, or the Debian package rustc)"),
        {});
  }
}
TEST_CASE("heap stacks walked in the process equal unwound copies: wrappers, jemalloc, mimalloc") {
  check_walk_matches_copy(target_path("hp_wrappers"), {});
  check_walk_matches_copy(target_path("hp_realloc_aligned"), {});
  check_walk_matches_copy(target_path("hp_alloc_jemalloc"), {});
  check_walk_matches_copy(target_path("hp_alloc_mimalloc"), {});
}
