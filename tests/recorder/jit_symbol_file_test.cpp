// The perf map and jitdump parsers (sprof/core/jit_symbol_file.hpp) and the JIT lib identity,
// from bytes.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "jit_test_bytes.hpp"
#include "sprof/core/jit_symbol_file.hpp"

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
  dump.record(2, std::vector<uint8_t>(24, 0xAB));  // JIT_CODE_DEBUG_INFO: skipped
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
