// Reading profiles back (the Gecko reader behind `sprof symbolicate`, format detection), the
// lookup addresses a profile needs, and the symbol lookups a self-contained file answers with.
#include "sprof/profile/profile_reader.hpp"

#include <doctest/doctest.h>

#include "sprof/profile/gecko_writer.hpp"
#include "sprof/profile/native_symbols.hpp"
#include "sprof/profile/processed_writer.hpp"
#include "sprof_test/sample_profile.hpp"

using namespace sprof::profile;
using F = sprof::test::SampleProfileFacts;

namespace {

// One process with one lib at [0x1000, 0x3000), file offset 0: relative = address - 0x1000.
Profile small_profile() {
  Profile p;
  Process process;
  process.pid = 7;
  Library lib;
  lib.start = 0x1000;
  lib.end = 0x3000;
  lib.name = lib.debug_name = lib.path = "small";
  lib.breakpad_id = "0123456789ABCDEF0123456789ABCDEF0";
  process.libs.push_back(lib);
  Thread t;
  t.tid = 7;
  const uint32_t root =
      t.intern_stack(std::nullopt, t.intern_address_frame(0x1100, Category::kUser));
  const uint32_t middle = t.intern_stack(root, t.intern_address_frame(0x1200, Category::kUser));
  const uint32_t leaf = t.intern_stack(middle, t.intern_address_frame(0x1300, Category::kUser));
  t.intern_stack(std::nullopt, t.intern_address_frame(0x9000, Category::kUser));  // in no lib
  t.intern_address_frame(0x1400, Category::kUser);                                // in no stack
  t.add_sample(Sample{leaf, 1.0, 0});
  t.add_sample(Sample{middle, 2.0, 0});
  process.threads.push_back(std::move(t));
  p.processes.push_back(std::move(process));
  return p;
}

}  // namespace

TEST_CASE("a profile needs its callers one byte earlier and its sample leaves as they are") {
  const auto modules = native_addresses(small_profile());
  REQUIRE(modules.size() == 1);
  CHECK(modules[0].module.debug_name == "small");
  CHECK(modules[0].paths == std::vector<std::string>{"small"});
  // root: caller; middle: caller and the leaf of the second sample; leaf: a leaf only.
  CHECK(modules[0].addresses == std::vector<uint64_t>{0xff, 0x1ff, 0x200, 0x300});
}

TEST_CASE("a symbol lookup answers sampled addresses fully and others by their function") {
  AddressSymbol named{"work(int)", 0x100, 0x80, "/src/w.cpp", 7, {{"inner", "/src/w.h", 2}}};
  AddressSymbol unsized{"tail", 0x200, std::nullopt, "", 0, {}};
  const ModuleSymbols symbols({{0x110, named}, {0x210, unsized}, {0x300, AddressSymbol{}}});
  REQUIRE(symbols.find(0x110) != nullptr);
  CHECK(*symbols.find(0x110) == named);
  CHECK(symbols.find(0x111) == nullptr);
  // Inside work's 0x80 bytes: the function, without the sampled address's line or inlines.
  const auto inside = symbols.lookup(0x17f);
  REQUIRE(inside.has_value());
  CHECK(inside->function == "work(int)");
  CHECK(inside->function_start == 0x100);
  CHECK(inside->line == 0);
  CHECK(inside->inlines.empty());
  CHECK_FALSE(symbols.lookup(0x180).has_value());  // past its end
  CHECK_FALSE(symbols.lookup(0x220).has_value());  // a function of unknown size proves nothing
  CHECK_FALSE(symbols.lookup(0x50).has_value());
}

TEST_CASE("a Gecko profile read back writes the same document again") {
  const std::string json = gecko_json_string(sprof::test::make_sample_profile());
  auto profile = read_gecko_json(json);
  REQUIRE_MESSAGE(profile.has_value(), profile.error().message);
  CHECK(profile->processes.size() == F::kProcessCount);
  CHECK(gecko_json_string(*profile) == json);
}

TEST_CASE("formats are told apart by meta.preprocessedProfileVersion") {
  const auto profile = sprof::test::make_sample_profile();
  CHECK(detect_profile_format(gecko_json_string(profile)) == ProfileFormat::kGecko);
  const std::string processed = processed_json_string(profile, ProfileSymbols{});
  CHECK(detect_profile_format(processed) == ProfileFormat::kProcessed);
  CHECK(detect_profile_format("{\"meta\": {}}") == ProfileFormat::kUnknown);
  CHECK(detect_profile_format("not json") == ProfileFormat::kUnknown);

  auto gecko = read_gecko_json(processed);
  REQUIRE_FALSE(gecko.has_value());
  CHECK(gecko.error().code == sprof::Errc::kUnsupported);
  auto symbols = read_embedded_symbols(gecko_json_string(profile));
  REQUIRE_FALSE(symbols.has_value());
  CHECK(symbols.error().code == sprof::Errc::kUnsupported);
}

TEST_CASE("a processed profile of another version is not read as sprof's") {
  std::string json = processed_json_string(sprof::test::make_sample_profile(), ProfileSymbols{});
  const std::string version =
      "\"preprocessedProfileVersion\":" + std::to_string(kProcessedProfileVersion);
  const size_t at = json.find(version);
  REQUIRE(at != std::string::npos);
  json.replace(at, version.size(), "\"preprocessedProfileVersion\":57");
  auto symbols = read_embedded_symbols(json);
  REQUIRE_FALSE(symbols.has_value());
  CHECK(symbols.error().code == sprof::Errc::kUnsupported);
}

TEST_CASE("Gecko tables that point past themselves are rejected, naming the place") {
  std::string json = gecko_json_string(small_profile());
  // The second stack row is [0, 1]; make its prefix point at itself.
  const size_t at = json.find("[0,1]");
  REQUIRE(at != std::string::npos);
  json.replace(at, 5, "[1,1]");
  auto profile = read_gecko_json(json);
  REQUIRE_FALSE(profile.has_value());
  CHECK(profile.error().code == sprof::Errc::kMalformed);
  CHECK(profile.error().message.find("stackTable.data[1]") != std::string::npos);
}

TEST_CASE("a lib path longer than any path is refused, naming the lib") {
  std::string json = gecko_json_string(small_profile());
  const size_t at = json.find("\"path\":\"");
  REQUIRE(at != std::string::npos);
  json.insert(at + 8, std::string(10 << 20, 'a'));
  auto profile = read_gecko_json(json);
  REQUIRE_FALSE(profile.has_value());
  CHECK(profile.error().code == sprof::Errc::kMalformed);
  CHECK(profile.error().message.find("top.libs[0] path is 10485765 bytes") != std::string::npos);
  CHECK(profile.error().message.find("longer than a file path can be (4096)") != std::string::npos);
}
