// The API end to end over the real `Symbolicator` and a binary built by the test suite: names,
// offsets and files come from the target's own debug info.
#include <doctest/doctest.h>
#include <simdjson.h>

#include <string>

#include "sprof/api/symbolication_api.hpp"
#include "sprof/elf/elf_symbols.hpp"
#include "sprof/elf/module_identity.hpp"
#include "sprof_test/paths.hpp"

namespace {

using sprof::api::SymbolicationApi;
using sprof::api::SymbolicatorModuleSource;
using sprof::symbolicator::Symbolicator;
using sprof::symbolicator::SymbolicatorOptions;

const std::string kTarget = std::string(sprof::test::kTargetsDir) + "/api_target";

struct Fixture {
  std::string breakpad_id;
  uint64_t sum_relative = 0;
  std::unique_ptr<Symbolicator> symbolicator;
  std::unique_ptr<SymbolicatorModuleSource> source;
  std::unique_ptr<SymbolicationApi> api;

  Fixture() {
    auto identity = sprof::elf::read_module_identity(kTarget);
    REQUIRE(identity.has_value());
    breakpad_id = identity->breakpad_id();
    auto symbols = sprof::elf::read_symbols(kTarget);
    REQUIRE(symbols.has_value());
    const auto sum = sprof::elf::find_symbol(*symbols, "api_target_sum");
    REQUIRE(sum.has_value());
    sum_relative = sum->address - identity->base_vaddr;

    SymbolicatorOptions options;
    options.hints.push_back({"api_target", breakpad_id, kTarget});
    symbolicator = std::make_unique<Symbolicator>(std::move(options));
    source = std::make_unique<SymbolicatorModuleSource>(*symbolicator);
    api = std::make_unique<SymbolicationApi>(*source);
  }

  std::string module_fields() const {
    return R"("debugName": "api_target", "debugId": ")" + breakpad_id + R"(")";
  }
};

std::string hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

TEST_CASE("symbolicate v5 over the real symbolicator names a function of a test binary") {
  Fixture f;
  auto reply = f.api->handle("/symbolicate/v5", R"({"jobs": [{"memoryMap": [["api_target", ")" +
                                                    f.breakpad_id + R"("]], "stacks": [[[0, )" +
                                                    std::to_string(f.sum_relative + 4) + "]]]}]}");
  REQUIRE(reply.status == 200);
  reply.body = sprof::take_whole_body(reply);
  CAPTURE(reply.body);
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  REQUIRE(parser.parse(reply.body).get(root) == simdjson::SUCCESS);
  const auto frame = root["results"].at(0)["stacks"].at(0).at(0);
  std::string_view text;
  REQUIRE(frame["function"].get(text) == simdjson::SUCCESS);
  CHECK(text == "api_target_sum");
  REQUIRE(frame["function_offset"].get(text) == simdjson::SUCCESS);
  CHECK(text == "0x4");
  REQUIRE(frame["file"].get(text) == simdjson::SUCCESS);
  CHECK(std::string(text).ends_with("api/api_target.cpp"));
  bool found = false;
  CHECK(root["results"].at(0)["found_modules"]["api_target/" + f.breakpad_id].get(found) ==
        simdjson::SUCCESS);
  CHECK(found);
}

TEST_CASE("source v1 over the real symbolicator serves the target's source and nothing else") {
  Fixture f;
  const std::string file =
      std::string(sprof::test::kSourceDir) + "/tests/targets/api/api_target.cpp";
  const auto reply =
      f.api->handle("/source/v1", "{" + f.module_fields() + R"(, "moduleOffset": ")" +
                                      hex(f.sum_relative + 4) + R"(", "file": ")" + file + R"("})");
  CHECK(reply.status == 200);
  CHECK(reply.body.find("uint64_t api_target_sum(") != std::string::npos);

  const auto refused =
      f.api->handle("/source/v1", "{" + f.module_fields() + R"(, "moduleOffset": ")" +
                                      hex(f.sum_relative + 4) + R"(", "file": "/etc/passwd"})");
  CHECK(refused.body.starts_with(R"({"error":")"));
}

TEST_CASE("asm v1 over the real symbolicator continues to the end of the function") {
  Fixture f;
  const auto reply = f.api->handle(
      "/asm/v1", "{" + f.module_fields() + R"(, "startAddress": ")" + hex(f.sum_relative) +
                     R"(", "size": "0x1", "continueUntilFunctionEnd": true})");
  REQUIRE(reply.status == 200);
  CAPTURE(reply.body);
  CHECK(reply.body.find(R"("instructions":[[0,")") != std::string::npos);
  CHECK(reply.body.ends_with(R"(,"ret"]]})"));
}

TEST_CASE("symbolicate v5 gives every address of a function without symbols one name and offset") {
  // A copy of the symbols target stripped of .symtab and DWARF: only .eh_frame knows where
  // `hidden_function` (a static function) begins and ends; the unstripped target says it too.
  const std::string targets = sprof::test::kTargetsDir;
  const std::string stripped = targets + "/symbols/stripped/sprof_symbols_target";
  auto identity = sprof::elf::read_module_identity(stripped);
  REQUIRE(identity.has_value());
  auto symbols = sprof::elf::read_symbols(targets + "/sprof_symbols_target");
  REQUIRE(symbols.has_value());
  const auto hidden =
      sprof::elf::find_symbol(*symbols, "_ZN12sprof_target12_GLOBAL__N_115hidden_functionEi");
  REQUIRE(hidden.has_value());
  const uint64_t start = hidden->address - identity->base_vaddr;

  SymbolicatorOptions options;
  options.debug_roots.clear();
  options.hints.push_back({"sprof_symbols_target", identity->breakpad_id(), stripped});
  Symbolicator symbolicator(std::move(options));
  SymbolicatorModuleSource source(symbolicator);
  SymbolicationApi api(source);
  std::string stack;
  for (uint64_t a = start; a < start + hidden->size; ++a) {
    stack += (stack.empty() ? "" : ",") + std::string("[0,") + std::to_string(a) + "]";
  }
  auto reply = api.handle("/symbolicate/v5",
                          R"({"jobs": [{"memoryMap": [["sprof_symbols_target", ")" +
                              identity->breakpad_id() + R"("]], "stacks": [[)" + stack + "]]}]}");
  REQUIRE(reply.status == 200);
  reply.body = sprof::take_whole_body(reply);
  simdjson::dom::parser parser;
  simdjson::dom::array frames;
  REQUIRE(parser.parse(reply.body)["results"].at(0)["stacks"].at(0).get(frames) ==
          simdjson::SUCCESS);
  REQUIRE(frames.size() == hidden->size);
  uint64_t a = start;
  for (auto frame : frames) {
    std::string_view text;
    REQUIRE(frame["function"].get(text) == simdjson::SUCCESS);
    CHECK(text == "sprof_symbols_target+" + hex(start));
    REQUIRE(frame["function_offset"].get(text) == simdjson::SUCCESS);
    CHECK(text == hex(a - start));
    REQUIRE(frame["function_size"].get(text) == simdjson::SUCCESS);
    CHECK(text == hex(hidden->size));
    ++a;
  }
}
