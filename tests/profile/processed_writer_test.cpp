// The self-contained (processed, version 42) writer, on the hand-built sample profile with
// hand-made symbols: the static checks, and the frames, funcs, stacks and names the Firefox
// Profiler would have built itself from the Gecko form and the same symbol answers.
#include "sprof/profile/processed_writer.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>

#include "sprof/profile/profile_reader.hpp"
#include "sprof_test/json_query.hpp"
#include "sprof_test/processed_validator.hpp"
#include "sprof_test/sample_profile.hpp"

using sprof::test::JsonDoc;
using F = sprof::test::SampleProfileFacts;
using S = sprof::test::SampleSymbolFacts;

namespace {

const std::string& sample_json() {
  static const std::string json = [] {
    const auto profile = sprof::test::make_sample_profile();
    return sprof::profile::processed_json_string(profile,
                                                 sprof::test::make_sample_symbols(profile));
  }();
  return json;
}

std::string at(const std::string& prefix, size_t i) { return prefix + "/" + std::to_string(i); }

// One thread's tables, read through JSON pointers.
class ThreadView {
 public:
  ThreadView(const JsonDoc& doc, size_t thread)
      : doc_(doc), t_("/threads/" + std::to_string(thread)) {}

  size_t frames() const { return doc_.integer(t_ + "/frameTable/length").value_or(0); }
  int64_t address(size_t frame) const {
    return *doc_.integer(at(t_ + "/frameTable/address", frame));
  }
  int64_t depth(size_t frame) const {
    return *doc_.integer(at(t_ + "/frameTable/inlineDepth", frame));
  }
  int64_t func(size_t frame) const { return *doc_.integer(at(t_ + "/frameTable/func", frame)); }
  std::optional<int64_t> line(size_t frame) const {
    return doc_.integer(at(t_ + "/frameTable/line", frame));
  }
  std::optional<int64_t> native_symbol(size_t frame) const {
    return doc_.integer(at(t_ + "/frameTable/nativeSymbol", frame));
  }
  std::string string(int64_t index) const {
    return std::string(
        doc_.string(at(t_ + "/stringArray", static_cast<size_t>(index))).value_or("?"));
  }
  std::string name(size_t frame) const {
    return string(*doc_.integer(at(t_ + "/funcTable/name", static_cast<size_t>(func(frame)))));
  }
  std::string file(size_t frame) const {
    auto index = doc_.integer(at(t_ + "/funcTable/fileName", static_cast<size_t>(func(frame))));
    return index ? string(*index) : "";
  }
  int64_t resource(size_t frame) const {
    return *doc_.integer(at(t_ + "/funcTable/resource", static_cast<size_t>(func(frame))));
  }
  std::string resource_name(int64_t resource) const {
    return string(*doc_.integer(at(t_ + "/resourceTable/name", static_cast<size_t>(resource))));
  }
  bool resource_has_lib(int64_t resource) const {
    return doc_.integer(at(t_ + "/resourceTable/lib", static_cast<size_t>(resource))).has_value();
  }
  int64_t symbol_address(int64_t symbol) const {
    return *doc_.integer(at(t_ + "/nativeSymbols/address", static_cast<size_t>(symbol)));
  }
  std::optional<int64_t> symbol_size(int64_t symbol) const {
    return doc_.integer(at(t_ + "/nativeSymbols/functionSize", static_cast<size_t>(symbol)));
  }
  // Frames at `address`, in table order.
  std::vector<size_t> frames_at(int64_t address) const {
    std::vector<size_t> out;
    for (size_t f = 0; f < frames(); ++f) {
      if (this->address(f) == address) out.push_back(f);
    }
    return out;
  }
  // Function names of a sample's stack, root first.
  std::vector<std::string> stack_names(size_t sample) const {
    std::vector<std::string> names;
    auto stack = doc_.integer(at(t_ + "/samples/stack", sample));
    while (stack) {
      const auto frame = *doc_.integer(at(t_ + "/stackTable/frame", static_cast<size_t>(*stack)));
      names.insert(names.begin(), name(static_cast<size_t>(frame)));
      stack = doc_.integer(at(t_ + "/stackTable/prefix", static_cast<size_t>(*stack)));
    }
    return names;
  }

 private:
  const JsonDoc& doc_;
  std::string t_;
};

}  // namespace

TEST_CASE("the self-contained sample profile passes the processed static checks") {
  sprof::test::GeckoCheckOptions options;
  options.expect_idle_category = true;
  const auto problems = sprof::test::check_processed_profile(sample_json(), options);
  INFO(sprof::test::join_problems(problems));
  CHECK(problems.empty());
}

TEST_CASE("meta marks a symbolicated processed profile and keeps the recording's facts") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  CHECK(doc.integer("/meta/preprocessedProfileVersion") ==
        sprof::profile::kProcessedProfileVersion);
  CHECK(doc.boolean("/meta/symbolicated") == true);
  CHECK(doc.number("/meta/startTime") == 1700000000000.25);
  CHECK(doc.number("/meta/profilingEndTime") == 10.0);
  CHECK(doc.string("/meta/product") == "sprof: sample");
  CHECK(doc.string("/meta/updateChannel") == "release");  // the Share panel's default
  CHECK(doc.string("/meta/sampleUnits/threadCPUDelta") == "ns");
  CHECK(doc.string("/meta/sprof/event") == "cpu-clock");
  // Marker schemas keep the Gecko shape until version 55.
  CHECK(doc.string("/meta/markerSchema/0/data/0/key") == "syscall");
  CHECK_FALSE(doc.has("/processes"));
}

TEST_CASE("libs are listed once per module at the profile level, without address ranges") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  std::vector<std::string> names;
  for (size_t i = 0; i < doc.size("/libs").value_or(0); ++i) {
    names.emplace_back(*doc.string(at("/libs", i) + "/debugName"));
    CHECK_FALSE(doc.has(at("/libs", i) + "/start"));
  }
  // libcovered.so lies inside demo's mapping: the Gecko normalisation drops it here too.
  CHECK(names == std::vector<std::string>{"demo", "libpartial.so", "libc.so.6", "[kernel.kallsyms]",
                                          "child-cmd", "grandchild"});
}

TEST_CASE("every process's threads are in one list, each with its pid and process") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  REQUIRE(doc.size("/threads") == 4U);
  CHECK(doc.integer("/threads/0/pid") == F::kRootPid);
  CHECK(doc.integer("/threads/1/tid") == F::kWorkerTid);
  CHECK(doc.string("/threads/1/name") == F::kWorkerWrittenName);
  CHECK(doc.integer("/threads/2/pid") == F::kChildPid);
  CHECK(doc.string("/threads/2/processType") == "child");
  CHECK(doc.number("/threads/2/processShutdownTime") == 5.0);
  CHECK(doc.integer("/threads/3/pid") == F::kGrandchildPid);
  CHECK(doc.integer("/threads/0/samples/length") == static_cast<int64_t>(F::kRootMainSamples));
}

TEST_CASE("an address with inlined calls becomes one frame per depth, outermost first") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  const ThreadView t(doc, 0);
  const auto frames = t.frames_at(F::kDemoLeaf);
  REQUIRE(frames.size() == 3);
  CHECK(t.depth(frames[0]) == 0);
  CHECK(t.depth(frames[1]) == 1);
  CHECK(t.depth(frames[2]) == 2);
  CHECK(t.name(frames[0]) == S::kDemoLeafFunction);
  CHECK(t.name(frames[1]) == S::kInlineOuter);
  CHECK(t.name(frames[2]) == S::kInlineInner);
  CHECK(t.file(frames[0]) == S::kDemoFile);
  CHECK(t.file(frames[2]) == S::kInlineFile);
  CHECK(t.line(frames[0]) == S::kDemoLeafLine);
  CHECK(t.line(frames[1]) == S::kInlineOuterLine);
  CHECK(t.line(frames[2]) == S::kInlineInnerLine);
  // One native symbol for the address: the outer function's start and size.
  const auto symbol = t.native_symbol(frames[0]);
  REQUIRE(symbol.has_value());
  CHECK(t.native_symbol(frames[2]) == symbol);
  CHECK(t.symbol_address(*symbol) == static_cast<int64_t>(S::kDemoLeafFunctionStart));
  CHECK(t.symbol_size(*symbol) == static_cast<int64_t>(S::kDemoLeafFunctionSize));
  CHECK(t.resource_name(t.resource(frames[0])) == "demo");
}

TEST_CASE("a sample's stack runs from the root through the inline chain to the inner call") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  const ThreadView t(doc, 0);
  // The first sample is at the demo leaf, called from main, called from libc.
  CHECK(t.stack_names(0) == std::vector<std::string>{S::kLibcFunction, S::kDemoOtherFunction,
                                                     S::kDemoLeafFunction, S::kInlineOuter,
                                                     S::kInlineInner});
}

TEST_CASE("a frame seen as a leaf and as a caller is split, the caller one byte earlier") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  const ThreadView t(doc, 0);
  // The kernel frame ends one sample and calls the idle leaf in others. The kernel module has
  // no symbols: both frames keep their recorded location as the name, and no native symbol.
  const auto leaf = t.frames_at(F::kKernelFrame);
  const auto caller = t.frames_at(F::kKernelFrame - 1);
  REQUIRE(leaf.size() == 1);
  REQUIRE(caller.size() == 1);
  CHECK(t.name(leaf[0]) == "0xffffffff81234567");
  CHECK(t.func(leaf[0]) == t.func(caller[0]));
  CHECK_FALSE(t.native_symbol(leaf[0]).has_value());
  CHECK(t.resource_name(t.resource(leaf[0])) == "[kernel.kallsyms]");
  CHECK(t.resource_has_lib(t.resource(leaf[0])));
}

TEST_CASE("an address the module has no function for is named as the front end names it") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  const ThreadView child(doc, 2);
  const auto leaf = child.frames_at(F::kChildLeaf);
  REQUIRE(leaf.size() == 1);
  CHECK(child.name(leaf[0]) == "<unknown at 0x2020>");
  REQUIRE(child.native_symbol(leaf[0]).has_value());
  CHECK(child.symbol_address(*child.native_symbol(leaf[0])) == static_cast<int64_t>(F::kChildLeaf));
  CHECK_FALSE(child.symbol_size(*child.native_symbol(leaf[0])).has_value());
  CHECK(child.stack_names(0) == std::vector<std::string>{S::kChildFunction, "<unknown at 0x2020>"});
  // The grandchild's module was not found at all.
  const ThreadView grandchild(doc, 3);
  CHECK(grandchild.stack_names(0) == std::vector<std::string>{"0x555555555010", "0x555555555020"});
}

TEST_CASE("a frame its producer named keeps the name and library, without a lib object") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  const ThreadView t(doc, 0);
  bool found = false;
  for (size_t f = 0; f < t.frames(); ++f) {
    if (t.name(f) != "schedule") continue;
    found = true;
    CHECK(t.address(f) == -1);
    CHECK(t.resource_name(t.resource(f)) == "[kernel.kallsyms]");
    CHECK_FALSE(t.resource_has_lib(t.resource(f)));
  }
  CHECK(found);
}

TEST_CASE("markers are sorted by time and their string fields index the thread's strings") {
  JsonDoc doc(sample_json());
  REQUIRE(doc.ok());
  const ThreadView t(doc, 0);
  REQUIRE(doc.integer("/threads/0/markers/length") == static_cast<int64_t>(F::kRootMainMarkerRows));
  std::vector<std::string> names;
  for (size_t i = 0; i < F::kRootMainMarkerRows; ++i) {
    names.push_back(t.string(*doc.integer(at("/threads/0/markers/name", i))));
  }
  // Sorted by end time, else start time: Startup 0.5, phase start 1.0, read ends 4.8,
  // checkpoint 5.5, phase end 6.0.
  CHECK(names == std::vector<std::string>{"Startup", "phase", "read", "checkpoint", "phase"});
  CHECK(doc.string("/threads/0/markers/data/2/type") == "Syscall");
  CHECK(t.string(*doc.integer("/threads/0/markers/data/2/path")) == "/etc/hosts");
  CHECK(doc.is_null("/threads/0/markers/endTime/0"));
  CHECK(doc.number("/threads/0/markers/endTime/2") == 4.8);
}

TEST_CASE("the embedded symbols read back are the symbols the file was written with") {
  const auto profile = sprof::test::make_sample_profile();
  const auto written = sprof::test::make_sample_symbols(profile);
  auto read = sprof::profile::read_embedded_symbols(sample_json());
  REQUIRE_MESSAGE(read.has_value(), read.error().message);
  CHECK(read->modules().size() == written.modules().size());
  for (const auto& [key, module] : written.modules()) {
    const auto* back = read->find_module(key);
    REQUIRE_MESSAGE(back != nullptr, key.debug_name);
    CHECK(back->entries() == module.entries());
  }
}

TEST_CASE("embedded symbols whose nativeSymbols columns differ in length are rejected") {
  // A symbol index checked against libIndex must be valid for address and functionSize too
  // (a fuzzer-found read past the end of a shorter functionSize column).
  std::string json = sample_json();
  const std::string key = "\"functionSize\":[";
  const size_t at = json.find(key);
  REQUIRE(at != std::string::npos);
  const size_t end = json.find(']', at);
  json.replace(at + key.size(), end - at - key.size(), "");
  auto read = sprof::profile::read_embedded_symbols(json);
  REQUIRE_FALSE(read.has_value());
  CHECK(read.error().code == sprof::Errc::kMalformed);
  CHECK(read.error().message.find("nativeSymbols has columns of different lengths") !=
        std::string::npos);
}

TEST_CASE("a self-contained .json.gz file is written whole") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("sprof-processed-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto profile = sprof::test::make_sample_profile();
  const std::string path = (dir / "p.json.gz").string();
  auto bytes = sprof::profile::write_processed_file(
      profile, sprof::test::make_sample_symbols(profile), path);
  REQUIRE(bytes.has_value());
  CHECK(*bytes == std::filesystem::file_size(path));
  auto text = sprof::test::read_profile_text(path);
  REQUIRE(text.has_value());
  CHECK(*text == sample_json());
  std::filesystem::remove_all(dir);
}
