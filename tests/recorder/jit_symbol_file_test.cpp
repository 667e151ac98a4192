// The perf map and jitdump parsers (sprof/core/jit_symbol_file.hpp) and the JIT lib identity,
// from bytes.
#include "sprof/core/jit_symbol_file.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "jit_test_bytes.hpp"

using namespace sprof;

TEST_CASE("perf map lines give start, size and the rest of the line as the name") {
  const auto symbols = parse_perf_map(
      "7f0012340000 40 LazyCompile:~foo /app/x.js:1\n"
      "0x7f0012340040 0x10 py::bar:/app/y.py\r\n"
      "garbage line\n"
      "7f00 zz bad size\n"
      "7f0012340100 8    \n"  // no name
      "7f0012340200 20 last without newline");
  REQUIRE(symbols.size() == 3);
  CHECK(symbols[0].start == 0x7f0012340000);
  CHECK(symbols[0].size == 0x40);
  CHECK(symbols[0].name == "LazyCompile:~foo /app/x.js:1");
  CHECK(symbols[1].start == 0x7f0012340040);
  CHECK(symbols[1].size == 0x10);
  CHECK(symbols[1].name == "py::bar:/app/y.py");
  CHECK(symbols[2].name == "last without newline");
}

TEST_CASE("jit file kinds are recognised by basename only") {
  CHECK(jit_file_kind("/tmp/perf-123.map") == JitFileKind::kPerfMap);
  CHECK(jit_file_kind("perf-1.map") == JitFileKind::kPerfMap);
  CHECK(jit_file_kind("/home/u/.debug/jit/x/jit-42.dump") == JitFileKind::kJitDump);
  CHECK(jit_file_kind("/tmp/perf-.map") == JitFileKind::kNone);
  CHECK(jit_file_kind("/tmp/perf-12a.map") == JitFileKind::kNone);
  CHECK(jit_file_kind("/tmp/jit-42.dump.bak") == JitFileKind::kNone);
  CHECK(jit_file_kind("/tmp/perf-123.map/x") == JitFileKind::kNone);
  CHECK(jit_file_kind("/usr/lib/libc.so.6") == JitFileKind::kNone);
}

TEST_CASE("jitdump code loads become symbols, moves relocate them, other records are skipped") {
  test::JitDumpWriter dump;
  dump.code_load(0x7f0000001000, 0x30, 1, "first");
  dump.record(2, std::vector<uint8_t>(24, 0xAB));  // JIT_CODE_DEBUG_INFO cut in its entry
  dump.code_load(0x7f0000002000, 0x10, 2, "second");
  dump.code_move(0x7f0000001000, 0x7f0000005000, 0x30, 1);
  dump.record(99, {1, 2, 3, 4});  // unknown: skipped by size
  const auto symbols = parse_jitdump(dump.bytes());
  REQUIRE(symbols.has_value());
  REQUIRE(symbols->size() == 3);
  CHECK((*symbols)[0].start == 0x7f0000001000);
  CHECK((*symbols)[0].size == 0x30);
  CHECK((*symbols)[0].name == "first");
  CHECK((*symbols)[1].name == "second");
  CHECK((*symbols)[2].start == 0x7f0000005000);
  CHECK((*symbols)[2].name == "first");
  for (const auto& s : *symbols) CHECK(s.lines == nullptr);
}

TEST_CASE("jitdump debug info gives the line table of the code loaded next at its address") {
  test::JitDumpWriter dump;
  dump.debug_info(0x7f0000001000, {{0x7f0000001000, 10, "app.js"},
                                   {0x7f0000001008, 11, "\xff"},        // same file
                                   {0x7f0000001004, 12, "lib.js"},      // out of order
                                   {0x7f0000000ff0, 9, "before.js"}});  // before the code
  dump.debug_info(0x7f0000009000, {{0x7f0000009000, 1, "never_loaded.js"}});
  dump.code_load(0x7f0000001000, 0x20, 1, "hot");
  dump.code_load(0x7f0000002000, 0x10, 2, "no_lines");
  dump.code_move(0x7f0000001000, 0x7f0000005000, 0x20, 1);
  const auto symbols = parse_jitdump(dump.bytes());
  REQUIRE(symbols.has_value());
  REQUIRE(symbols->size() == 3);
  const auto& lines = (*symbols)[0].lines;
  REQUIRE(lines != nullptr);
  REQUIRE(lines->entries.size() == 3);
  const auto at = [&](uint64_t offset) {
    const auto* e = lines->find(offset);
    return e ? lines->files[e->file] + ":" + std::to_string(e->line) : std::string("none");
  };
  CHECK(at(0) == "app.js:10");
  CHECK(at(3) == "app.js:10");
  CHECK(at(4) == "lib.js:12");
  CHECK(at(8) == "app.js:11");
  CHECK(at(0x1f) == "app.js:11");   // the last entry runs to the end of the code
  CHECK(lines->files.size() == 2);  // each file once
  CHECK((*symbols)[1].lines == nullptr);
  // The moved code keeps its table (offsets are from the code's start).
  CHECK((*symbols)[2].lines == lines);
}

TEST_CASE("jitdump debug info never trusts its entry count") {
  test::JitDumpWriter dump;
  // Claims 2^60 entries but holds one, then one cut in the middle of its file name.
  dump.debug_info(0x1000, {{0x1000, 5, "a.js"}}, uint64_t{1} << 60);
  dump.code_load(0x1000, 0x10, 1, "claims_many");
  std::vector<uint8_t> cut_entry(8 + 8 + 8 + 4 + 4 + 3);
  const uint64_t code_addr = 0x2000, count = 1;
  std::memcpy(cut_entry.data(), &code_addr, 8);
  std::memcpy(cut_entry.data() + 8, &count, 8);
  std::memcpy(cut_entry.data() + 16, &code_addr, 8);
  std::memcpy(cut_entry.data() + 32, "b.j", 3);  // no NUL before the record ends
  dump.record(2, cut_entry);
  dump.code_load(0x2000, 0x10, 2, "cut_entry");
  // Claims fewer entries than it holds: the rest are not read.
  dump.debug_info(0x3000, {{0x3000, 7, "c.js"}, {0x3008, 8, "c.js"}}, 1);
  dump.code_load(0x3000, 0x10, 3, "claims_fewer");
  const auto symbols = parse_jitdump(dump.bytes());
  REQUIRE(symbols.has_value());
  REQUIRE(symbols->size() == 3);
  REQUIRE((*symbols)[0].lines != nullptr);
  CHECK((*symbols)[0].lines->entries.size() == 1);
  CHECK((*symbols)[1].lines == nullptr);
  REQUIRE((*symbols)[2].lines != nullptr);
  CHECK((*symbols)[2].lines->entries.size() == 1);
  CHECK((*symbols)[2].lines->find(0xc)->line == 7);
}

TEST_CASE("a jitdump cut in the middle of a record keeps the records before the cut") {
  test::JitDumpWriter dump;
  dump.code_load(0x1000, 0x10, 1, "whole");
  dump.code_load(0x2000, 0x10, 2, "cut");
  auto bytes = dump.bytes();
  bytes.resize(bytes.size() - 5);
  const auto symbols = parse_jitdump(bytes);
  REQUIRE(symbols.has_value());
  REQUIRE(symbols->size() == 1);
  CHECK((*symbols)[0].name == "whole");
}

TEST_CASE("a jitdump with a bad magic, version or header size is rejected") {
  test::JitDumpWriter dump;
  dump.code_load(0x1000, 0x10, 1, "f");
  SUBCASE("magic") {
    auto bytes = dump.bytes();
    bytes[0] ^= 0xFF;
    CHECK(parse_jitdump(bytes).error().code == Errc::kMalformed);
  }
  SUBCASE("version") {
    auto bytes = dump.bytes();
    bytes[4] = 7;
    CHECK(parse_jitdump(bytes).error().code == Errc::kUnsupported);
  }
  SUBCASE("header size beyond the file") {
    auto bytes = dump.bytes();
    bytes[8] = 0xFF;
    bytes[9] = 0xFF;
    CHECK_FALSE(parse_jitdump(bytes).has_value());
  }
  SUBCASE("too short for a header") {
    const std::vector<uint8_t> bytes = {0x44, 0x54, 0x69};
    CHECK_FALSE(parse_jitdump(bytes).has_value());
  }
}

TEST_CASE("a code load whose name runs to the end of its record is skipped") {
  test::JitDumpWriter dump;
  std::vector<uint8_t> body(4 + 4 + 8 + 8 + 8 + 8, 0);
  body.push_back('x');  // no NUL within the record
  dump.record(0, body);
  dump.code_load(0x3000, 0x10, 3, "fine");
  const auto symbols = parse_jitdump(dump.bytes());
  REQUIRE(symbols.has_value());
  REQUIRE(symbols->size() == 1);
  CHECK((*symbols)[0].name == "fine");
}

TEST_CASE("jit lib ids carry the base address and differ with the file content") {
  const std::string id = jit_breakpad_id(0x00007f0012340000, jit_content_hash("abc"));
  CHECK(id.size() == 33);
  CHECK(id.back() == '0');
  CHECK(jit_base_from_breakpad_id(id) == 0x00007f0012340000);
  CHECK(id != jit_breakpad_id(0x00007f0012340000, jit_content_hash("abd")));
  CHECK(jit_base_from_breakpad_id("XYZ") == std::nullopt);
  CHECK(jit_base_from_breakpad_id("G" + std::string(32, '0')) == std::nullopt);
}
