// /asm/v1 on a real binary built by the test suite (docs/firefox-profiler-format.md, "/asm/v1").
// Function ranges come from the target's symbol table (looked up by name), served through an
// in-memory module, so these tests exercise the ELF segment mapping and the disassembler, not the
// symbolicator.
#include <doctest/doctest.h>
#include <simdjson.h>

#include <cstdio>
#include <string>
#include <vector>

#include "api_fake_modules.hpp"
#include "sprof/api/symbolication_api.hpp"
#include "sprof/elf/elf_symbols.hpp"
#include "sprof/elf/module_identity.hpp"
#include "sprof/symbolicator/demangle.hpp"
#include "sprof_test/paths.hpp"

namespace {

using sprof::api::SymbolicationApi;
using sprof::api::test::fake_function;
using sprof::api::test::FakeModuleSource;
using sprof::api::test::FakeSymbolMap;

const std::string kTarget = std::string(sprof::test::kTargetsDir) + "/api_target";

struct TargetFunction {
  // SVMA - v0 (docs/firefox-profiler-format.md, "Relative addresses").
  uint64_t relative = 0;
  uint64_t size = 0;
};

TargetFunction find_function(const char* name) {
  auto identity = sprof::elf::read_module_identity(kTarget);
  REQUIRE(identity.has_value());
  auto symbols = sprof::elf::read_symbols(kTarget);
  REQUIRE(symbols.has_value());
  const auto symbol = sprof::elf::find_symbol(*symbols, name);
  REQUIRE(symbol.has_value());
  REQUIRE(symbol->size > 0);
  return {symbol->address - identity->base_vaddr, symbol->size};
}

struct Fixture {
  FakeModuleSource modules;
  SymbolicationApi api{modules};
  TargetFunction sum = find_function("api_target_sum");
  Fixture() {
    auto map = std::make_shared<FakeSymbolMap>();
    map->binary_path = kTarget;
    map->functions.push_back(fake_function("api_target_sum", sum.relative, sum.size));
    modules.maps["api_target/0C"] = map;
  }
};

std::string asm_request(uint64_t start, uint64_t size, bool until_end,
                        const char* debug_name = "api_target") {
  char body[256];
  std::snprintf(body, sizeof body,
                R"({"debugName": "%s", "debugId": "0C", "name": "%s",)"
                R"( "codeId": null, "startAddress": "0x%llx", "size": "0x%llx",)"
                R"( "continueUntilFunctionEnd": %s})",
                debug_name, debug_name, static_cast<unsigned long long>(start),
                static_cast<unsigned long long>(size), until_end ? "true" : "false");
  return body;
}

struct Disassembly {
  std::string start_address;
  std::string arch;
  std::vector<std::pair<uint64_t, std::string>> instructions;
};

Disassembly parse_reply(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  REQUIRE(parser.parse(json).get(root) == simdjson::SUCCESS);
  Disassembly result;
  std::string_view text;
  REQUIRE(root["startAddress"].get(text) == simdjson::SUCCESS);
  result.start_address = text;
  REQUIRE(root["arch"].get(text) == simdjson::SUCCESS);
  result.arch = text;
  simdjson::dom::array syntax;
  REQUIRE(root["syntax"].get(syntax) == simdjson::SUCCESS);
  CHECK(syntax.size() == 1);
  simdjson::dom::array instructions;
  REQUIRE(root["instructions"].get(instructions) == simdjson::SUCCESS);
  for (auto instruction : instructions) {
    uint64_t offset = 0;
    REQUIRE(instruction.at(0).get(offset) == simdjson::SUCCESS);
    REQUIRE(instruction.at(1).get(text) == simdjson::SUCCESS);
    result.instructions.emplace_back(offset, std::string(text));
  }
  return result;
}

// Instruction offsets as binutils' objdump decodes the same range; empty if objdump is missing.
std::vector<uint64_t> objdump_offsets(const TargetFunction& function, uint64_t base_vaddr,
                                      const std::string& path = kTarget) {
  const uint64_t start = function.relative + base_vaddr;
  char command[512];
  std::snprintf(command, sizeof command,
                "objdump -d --no-show-raw-insn --start-address=0x%llx --stop-address=0x%llx %s "
                "2>/dev/null",
                static_cast<unsigned long long>(start),
                static_cast<unsigned long long>(start + function.size), path.c_str());
  std::vector<uint64_t> offsets;
  FILE* pipe = ::popen(command, "r");
  if (pipe == nullptr) return offsets;
  char line[512];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    unsigned long long address = 0;
    char colon = 0;
    // Instruction lines look like "    1139:\tadd    rax,rdx".
    if (std::sscanf(line, " %llx%c", &address, &colon) == 2 && colon == ':' && line[0] == ' ') {
      offsets.push_back(address - start);
    }
  }
  ::pclose(pipe);
  return offsets;
}

}  // namespace

TEST_CASE("asm v1 disassembles a function of a real binary on its instruction boundaries") {
  Fixture f;
  const auto reply = f.api.handle("/asm/v1", asm_request(f.sum.relative, f.sum.size, false));
  REQUIRE(reply.status == 200);
  const auto disassembly = parse_reply(reply.body);
  char expected_start[32];
  std::snprintf(expected_start, sizeof expected_start, "0x%llx",
                static_cast<unsigned long long>(f.sum.relative));
  CHECK(disassembly.start_address == expected_start);
  CHECK(disassembly.arch == "x86_64");
  REQUIRE(disassembly.instructions.size() > 3);
  CHECK(disassembly.instructions.front().first == 0);
  CHECK(disassembly.instructions.back().second == "ret");
  for (size_t i = 1; i < disassembly.instructions.size(); ++i) {
    CHECK(disassembly.instructions[i].first > disassembly.instructions[i - 1].first);
    CHECK(disassembly.instructions[i].first < f.sum.size);
    CHECK(disassembly.instructions[i].second != "(bad)");
  }

  auto identity = sprof::elf::read_module_identity(kTarget);
  REQUIRE(identity.has_value());
  const auto reference = objdump_offsets(f.sum, identity->base_vaddr);
  if (reference.empty()) {
    MESSAGE("objdump not available; instruction boundaries not cross-checked");
  } else {
    std::vector<uint64_t> offsets;
    for (const auto& instruction : disassembly.instructions) offsets.push_back(instruction.first);
    CHECK(offsets == reference);
  }
}

// LLD (clang++ -fuse-ld=lld, and rustc's rust-lld) places the executable LOAD segment at
// p_vaddr != p_offset, so code read at file offset == SVMA would be other bytes: /asm/v1 must go
// through the segment. The programs of tests/targets/toolchains.cmake.
TEST_CASE("asm v1 reads the code of LLD-linked programs through their LOAD segment") {
#ifndef SPROF_TOOLCHAIN_TARGETS
  MESSAGE("skipped: configured with -DSPROF_TOOLCHAIN_TARGETS=OFF");
#else
  const std::pair<const char*, const char*> functions[] = {
      {"tc_clang_lld", "tc::mix_leaf(unsigned long)"},
      {"tc_rust", "tc_rust::mix_leaf"},
      {"tc_rust_v0", "tc_rust::mix_leaf"},
  };
  for (const auto& [name, function] : functions) {
    const std::string path = std::string(sprof::test::kTargetsDir) + "/toolchains/" + name;
    CAPTURE(path);
    auto identity = sprof::elf::read_module_identity(path);
    REQUIRE(identity.has_value());
    bool shifted = false;  // the premise: the executable LOAD segment has p_vaddr != p_offset
    for (const auto& load : identity->loads) {
      shifted |= load.executable && load.vaddr != load.offset;
    }
    REQUIRE(shifted);
    auto symbols = sprof::elf::read_symbols(path);
    REQUIRE(symbols.has_value());
    TargetFunction leaf;
    for (const auto& symbol : *symbols) {
      if (symbol.size > 0 && sprof::symbolicator::demangle(symbol.name) == function) {
        leaf = {symbol.address - identity->base_vaddr, symbol.size};
      }
    }
    REQUIRE(leaf.size > 0);

    FakeModuleSource modules;
    auto map = std::make_shared<FakeSymbolMap>();
    map->binary_path = path;
    map->functions.push_back(fake_function(function, leaf.relative, leaf.size));
    modules.maps[std::string(name) + "/0C"] = map;
    SymbolicationApi api{modules};
    const auto reply = api.handle("/asm/v1", asm_request(leaf.relative, leaf.size, false, name));
    REQUIRE(reply.status == 200);
    const auto disassembly = parse_reply(reply.body);
    REQUIRE(disassembly.instructions.size() > 3);
    CHECK(disassembly.instructions.back().second == "ret");
    std::vector<uint64_t> offsets;
    for (const auto& instruction : disassembly.instructions) {
      CHECK(instruction.second != "(bad)");
      offsets.push_back(instruction.first);
    }
    const auto reference = objdump_offsets(leaf, identity->base_vaddr, path);
    if (reference.empty()) {
      MESSAGE("objdump not available; instruction boundaries not cross-checked");
    } else {
      CHECK(offsets == reference);
    }
  }
#endif
}

TEST_CASE("asm v1 continues to the function's end when the profiler sent only a lower bound") {
  Fixture f;
  const auto full =
      parse_reply(f.api.handle("/asm/v1", asm_request(f.sum.relative, f.sum.size, false)).body);
  const auto extended =
      parse_reply(f.api.handle("/asm/v1", asm_request(f.sum.relative, 2, true)).body);
  CHECK(extended.instructions == full.instructions);
  const auto truncated =
      parse_reply(f.api.handle("/asm/v1", asm_request(f.sum.relative, 2, false)).body);
  CHECK(truncated.instructions.size() < full.instructions.size());
}

TEST_CASE("asm v1 answers an unknown module or an address outside the file with an error") {
  Fixture f;
  SUBCASE("unknown module") {
    const auto reply = f.api.handle(
        "/asm/v1",
        R"({"debugName": "nope", "debugId": "0D", "startAddress": "0x10", "size": "0x4"})");
    CHECK(reply.status == 200);
    CHECK(reply.body.starts_with(R"({"error":")"));
  }
  SUBCASE("address in no PT_LOAD") {
    const auto reply = f.api.handle("/asm/v1", asm_request(0x7fffffff0000, 16, false));
    CHECK(reply.status == 200);
    CHECK(reply.body.starts_with(R"({"error":")"));
  }
}

TEST_CASE("asm v1 rejects requests with missing or mistyped fields with 400") {
  Fixture f;
  const char* bodies[] = {
      R"({"debugName": "api_target", "debugId": "0C", "size": "0x4"})",
      R"({"debugName": "api_target", "debugId": "0C", "startAddress": "0x10"})",
      R"({"debugName": "api_target", "debugId": "0C", "startAddress": "x", "size": "0x4"})",
      R"({"debugName": "api_target", "debugId": "0C", "startAddress": "0x10", "size": "0x4",
          "continueUntilFunctionEnd": "yes"})",
      R"({"debugId": "0C", "startAddress": "0x10", "size": "0x4"})",
  };
  for (const char* body : bodies) {
    CAPTURE(body);
    const auto reply = f.api.handle("/asm/v1", body);
    CHECK(reply.status == 400);
    CHECK(reply.body.starts_with(R"({"error":")"));
  }
}
