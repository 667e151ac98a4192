// PLT stubs get the "name@plt" names perf and objdump give them (sprof/elf/plt_stubs.hpp), in
// the unstripped symbols target and in its copy stripped down to .dynsym and .eh_frame. objdump,
// which names stubs with its own decoder, is the reference.
#include "sprof/elf/plt_stubs.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <string_view>

#include "sprof/symbolicator/demangle.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbols_test_support.hpp"

namespace sprof::symbolicator {
namespace {

const std::string kModule = "sprof_symbols_target";

// Stub address -> called symbol, from `objdump -d` of the stub sections ("1040 <printf@plt>:").
// Empty when objdump cannot be run.
std::map<uint64_t, std::string> objdump_stubs(const std::string& path) {
  std::map<uint64_t, std::string> stubs;
  const std::string command =
      "objdump -d -j .plt -j .plt.sec -j .plt.got '" + path + "' 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return stubs;
  char line[512];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    // A stub's label line: "<hex address> <name@plt>:".
    const std::string_view text = std::string_view(line).substr(0, std::strcspn(line, "\n"));
    const size_t space = text.find(" <");
    if (space == 0 || space == std::string_view::npos || !text.ends_with("@plt>:") ||
        text.find_first_not_of("0123456789abcdef") != space) {
      continue;
    }
    const std::string_view name = text.substr(space + 2, text.size() - space - 2 - 6);
    stubs[std::stoull(std::string(text.substr(0, space)), nullptr, 16)] = std::string(name);
  }
  ::pclose(pipe);
  return stubs;
}

// objdump's stubs of the symbols target; empty (and the test skipped) without objdump.
std::map<uint64_t, std::string> reference_stubs() {
  auto stubs = objdump_stubs(test::target_path(kModule));
  if (stubs.empty()) MESSAGE("objdump gave no stubs; skipped");
  return stubs;
}

TEST_CASE("PLT stubs are read with the symbol each one calls, as objdump names them") {
  const auto expected = reference_stubs();
  if (expected.empty()) return;
  const std::string path = test::target_path(kModule);
  const auto stubs = elf::read_plt_stubs(path);
  REQUIRE(stubs.has_value());
  std::map<uint64_t, std::string> read;
  for (const elf::PltStub& stub : *stubs) {
    CHECK((stub.size == 8 || stub.size == 16));
    read[stub.address] = stub.symbol;
  }
  CHECK(read == expected);
  // The target calls printf and the shared library through .plt, and __cxa_finalize through
  // .plt.got.
  bool printf_seen = false;
  for (const auto& [address, name] : read) printf_seen |= name == "printf";
  CHECK(printf_seen);
}

TEST_CASE("an address in a stub is named name@plt, also where only .dynsym is left") {
  const auto expected = reference_stubs();
  if (expected.empty()) return;
  for (const std::string& relative : {kModule, "symbols/stripped/" + kModule}) {
    CAPTURE(relative);
    const std::string path = test::target_path(relative);
    const auto identity = test::identity_of(path);
    SymbolicatorOptions options;
    options.debug_roots.clear();
    Symbolicator symbolicator(std::move(options));
    symbolicator.add_hint(ModuleHint{kModule, identity.breakpad_id(), path});
    auto map = symbolicator.module(kModule, identity.breakpad_id());
    REQUIRE(map.has_value());
    for (const auto& [address, name] : expected) {
      const uint64_t relative_address = address - identity.base_vaddr;
      for (const uint64_t offset : {0, 5}) {
        auto info = (*map)->lookup(RelativeAddress{relative_address + offset});
        REQUIRE(info.has_value());
        CHECK(info->function == name + "@plt");
        CHECK(info->function_start == relative_address);
      }
    }
  }
}

// LLD lays .plt out its own way (a 16-byte header, then 16-byte stubs, and the executable LOAD
// segment with p_vaddr != p_offset): the clang/lld and Rust (rust-lld) programs of
// tests/targets/toolchains.cmake.
TEST_CASE("PLT stubs of LLD-linked programs are named as objdump names them") {
#ifndef SPROF_TOOLCHAIN_TARGETS
  MESSAGE("skipped: configured with -DSPROF_TOOLCHAIN_TARGETS=OFF");
#else
  for (const std::string name : {"tc_clang_lld", "tc_rust", "tc_rust_v0"}) {
    CAPTURE(name);
    const std::string path = test::target_path("toolchains/" + name);
    const auto expected = objdump_stubs(path);
    if (expected.empty()) {
      MESSAGE("objdump gave no stubs; skipped");
      return;
    }
    const auto stubs = elf::read_plt_stubs(path);
    REQUIRE(stubs.has_value());
    std::map<uint64_t, std::string> read;
    for (const elf::PltStub& stub : *stubs) read[stub.address] = stub.symbol;
    CHECK(read == expected);

    const auto identity = test::identity_of(path);
    SymbolicatorOptions options;
    options.debug_roots.clear();
    Symbolicator symbolicator(std::move(options));
    symbolicator.add_hint(ModuleHint{name, identity.breakpad_id(), path});
    auto map = symbolicator.module(name, identity.breakpad_id());
    REQUIRE(map.has_value());
    for (const auto& [address, stub] : expected) {
      auto info = (*map)->lookup(RelativeAddress{address - identity.base_vaddr + 5});
      REQUIRE(info.has_value());
      CHECK(info->function == demangle(stub) + "@plt");
    }
  }
#endif
}

}  // namespace
}  // namespace sprof::symbolicator
