// /symbolicate/v5: request bytes -> reply bytes against in-memory modules
// (docs/firefox-profiler-format.md, "symbolication API /symbolicate/v5").
#include <doctest/doctest.h>
#include <simdjson.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>

#include "api_fake_modules.hpp"
#include "sprof/api/symbolication_api.hpp"

namespace {

using sprof::api::HttpReply;
using sprof::api::SymbolicationApi;
using sprof::api::test::fake_function;
using sprof::api::test::FakeModuleSource;
using sprof::api::test::FakeSymbolMap;

constexpr const char* kDemoKey = "demo/A4C3B2D1F6E51807293A4B5C6D7E8F900";

// The module of the example in docs/firefox-profiler-format.md, "symbolication API
// /symbolicate/v5".
std::shared_ptr<FakeSymbolMap> demo_module() {
  auto map = std::make_shared<FakeSymbolMap>();
  map->functions.push_back(fake_function("main", 0x11f0, 0x60, "/home/user/demo.c", 30));
  auto compute = fake_function("compute", 0x1100, 0x80, "/home/user/demo.c", 12);
  compute.inlines.push_back({"square", "/home/user/demo.h", 3});
  map->functions.push_back(compute);
  return map;
}

struct Fixture {
  FakeModuleSource modules;
  SymbolicationApi api{modules};
  Fixture() { modules.maps[kDemoKey] = demo_module(); }
  // The reply with its body made whole; `parts` and `largest_part` say how it was produced.
  size_t parts = 0;
  size_t largest_part = 0;
  HttpReply post(const std::string& body, std::string_view path = "/symbolicate/v5") {
    HttpReply reply = api.handle(path, body);
    parts = 0;
    largest_part = 0;
    if (!reply.body_producer) return reply;
    std::string part;
    for (bool more = true; more;) {
      part.clear();
      more = reply.body_producer(part);
      ++parts;
      largest_part = std::max(largest_part, part.size());
      reply.body += part;
    }
    reply.body_producer = nullptr;
    return reply;
  }
};

simdjson::dom::element parse(simdjson::dom::parser& parser, const std::string& json) {
  simdjson::dom::element root;
  REQUIRE(parser.parse(json).get(root) == simdjson::SUCCESS);
  return root;
}

}  // namespace

TEST_CASE("symbolicate v5 answers the documented example request with the documented reply") {
  Fixture f;
  const auto reply =
      f.post(R"({"jobs": [{"memoryMap": [["demo", "A4C3B2D1F6E51807293A4B5C6D7E8F900"]],
      "stacks": [[[0, 4607], [0, 4387], [0, 7936]]]}]})");
  CHECK(reply.status == 200);
  CHECK(reply.content_type == "application/json");
  CHECK(reply.body ==
        R"({"results":[{"stacks":[[)"
        R"({"frame":0,"module":"demo","module_offset":"0x11ff","function":"main",)"
        R"("function_offset":"0xf","function_size":"0x60","file":"/home/user/demo.c","line":30},)"
        R"({"frame":1,"module":"demo","module_offset":"0x1123","function":"compute",)"
        R"("function_offset":"0x23","function_size":"0x80","file":"/home/user/demo.c","line":12,)"
        R"("inlines":[{"function":"square","file":"/home/user/demo.h","line":3}]},)"
        R"({"frame":2,"module":"demo","module_offset":"0x1f00"}]],)"
        R"("found_modules":{"demo/A4C3B2D1F6E51807293A4B5C6D7E8F900":true}}]})");
}

TEST_CASE("symbolicate v5 answers an unknown module with found false and bare frames") {
  Fixture f;
  const auto reply = f.post(R"({"jobs": [{"memoryMap": [["libx.so", "00FF"]],
      "stacks": [[[0, 16], [0, 17]]]}]})");
  CHECK(reply.status == 200);
  CHECK(reply.body ==
        R"({"results":[{"stacks":[[{"frame":0,"module":"libx.so","module_offset":"0x10"},)"
        R"({"frame":1,"module":"libx.so","module_offset":"0x11"}]],)"
        R"("found_modules":{"libx.so/00FF":false}}]})");
}

TEST_CASE("symbolicate v5 mixes found and unknown modules within a job and across jobs") {
  Fixture f;
  const auto reply = f.post(R"({"jobs": [
      {"memoryMap": [["libx.so", "00FF"], ["demo", "A4C3B2D1F6E51807293A4B5C6D7E8F900"]],
       "stacks": [[[1, 4607], [0, 4607], [1, 4387]]]},
      {"memoryMap": [["demo", "A4C3B2D1F6E51807293A4B5C6D7E8F900"]], "stacks": [[[0, 4608]]]}]})");
  REQUIRE(reply.status == 200);
  simdjson::dom::parser parser;
  const auto root = parse(parser, reply.body);
  simdjson::dom::array results;
  REQUIRE(root["results"].get(results) == simdjson::SUCCESS);
  REQUIRE(results.size() == 2);

  const auto first = results.at(0).value_unsafe();
  std::string_view name;
  CHECK(first["stacks"].at(0).at(0)["function"].get(name) == simdjson::SUCCESS);
  CHECK(name == "main");
  CHECK(first["stacks"].at(0).at(1)["function"].error() == simdjson::NO_SUCH_FIELD);
  CHECK(first["stacks"].at(0).at(1)["module"].get(name) == simdjson::SUCCESS);
  CHECK(name == "libx.so");
  CHECK(first["stacks"].at(0).at(2)["function"].get(name) == simdjson::SUCCESS);
  CHECK(name == "compute");
  bool found = true;
  CHECK(first["found_modules"]["libx.so/00FF"].get(found) == simdjson::SUCCESS);
  CHECK_FALSE(found);
  CHECK(first["found_modules"][kDemoKey].get(found) == simdjson::SUCCESS);
  CHECK(found);

  std::string_view offset;
  const auto second = results.at(1).value_unsafe();
  CHECK(second["stacks"].at(0).at(0)["function_offset"].get(offset) == simdjson::SUCCESS);
  CHECK(offset == "0x10");
}

TEST_CASE("symbolicate v5 answers every stack of a job, each with frames numbered from zero") {
  Fixture f;
  const auto reply =
      f.post(R"({"jobs": [{"memoryMap": [["demo", "A4C3B2D1F6E51807293A4B5C6D7E8F900"]],
      "stacks": [[[0, 4607]], [], [[0, 4387], [0, 4608]]]}]})");
  REQUIRE(reply.status == 200);
  CHECK(reply.body.find(R"("stacks":[[{"frame":0,"module":"demo","module_offset":"0x11ff")") !=
        std::string::npos);
  CHECK(reply.body.find(R"(],[],[{"frame":0,"module":"demo","module_offset":"0x1123")") !=
        std::string::npos);
  CHECK(reply.body.find(R"({"frame":1,"module":"demo","module_offset":"0x1200")") !=
        std::string::npos);
}

TEST_CASE("symbolicate v5 answers a frame whose module index names no module with an empty one") {
  Fixture f;
  const auto reply =
      f.post(R"({"jobs": [{"memoryMap": [["demo", "A4C3B2D1F6E51807293A4B5C6D7E8F900"]],
      "stacks": [[[-1, 16], [1, 17], [18446744073709551615, 18], [0, 4607]]]}]})");
  REQUIRE(reply.status == 200);
  CHECK(
      reply.body.find(R"([[{"frame":0,"module":"","module_offset":"0x10"},)"
                      R"({"frame":1,"module":"","module_offset":"0x11"},)"
                      R"({"frame":2,"module":"","module_offset":"0x12"},)"
                      R"({"frame":3,"module":"demo","module_offset":"0x11ff","function":"main")") !=
      std::string::npos);
}

TEST_CASE("symbolicate v5 leaves out a function size of zero and an unknown file and line") {
  Fixture f;
  auto map = std::make_shared<FakeSymbolMap>();
  map->functions.push_back(fake_function("bare", 0x40, 0));
  f.modules.maps["bare/01"] = map;
  const auto reply =
      f.post(R"({"jobs": [{"memoryMap": [["bare", "01"]], "stacks": [[[0, 64]]]}]})");
  CHECK(reply.body ==
        R"({"results":[{"stacks":[[{"frame":0,"module":"bare","module_offset":"0x40",)"
        R"("function":"bare","function_offset":"0x0"}]],"found_modules":{"bare/01":true}}]})");
}

TEST_CASE("symbolicate v5 writes the largest offsets in hex and finds nothing there") {
  Fixture f;
  const auto reply =
      f.post(R"({"jobs": [{"memoryMap": [["demo", "A4C3B2D1F6E51807293A4B5C6D7E8F900"]],
      "stacks": [[[0, 18446744073709551615], [0, 0]]]}]})");
  REQUIRE(reply.status == 200);
  CHECK(reply.body.find(R"({"frame":0,"module":"demo","module_offset":"0xffffffffffffffff"},)"
                        R"({"frame":1,"module":"demo","module_offset":"0x0"}]])") !=
        std::string::npos);
}

TEST_CASE("symbolicate v5 accepts a single job without the jobs array, as Tecken does") {
  Fixture f;
  const auto reply = f.post(R"({"memoryMap": [["demo", "A4C3B2D1F6E51807293A4B5C6D7E8F900"]],
      "stacks": [[[0, 4607]]]})");
  CHECK(reply.status == 200);
  CHECK(reply.body.find(R"({"results":[{"stacks":[[{"frame":0,"module":"demo",)") == 0);
  CHECK(reply.body.find(R"("function":"main")") != std::string::npos);
}

TEST_CASE("symbolicate v5 resolves each module once per request and reports a repeated one once") {
  Fixture f;
  const auto reply =
      f.post(R"({"jobs": [{"memoryMap": [["demo", "A4C3B2D1F6E51807293A4B5C6D7E8F900"],
      ["demo", "A4C3B2D1F6E51807293A4B5C6D7E8F900"]],
      "stacks": [[[0, 4607], [0, 4608], [1, 4387], [1, 4388], [0, 4609]]]},
      {"memoryMap": [["demo", "A4C3B2D1F6E51807293A4B5C6D7E8F900"]], "stacks": [[[0, 4607]]]}]})");
  REQUIRE(reply.status == 200);
  CHECK(f.modules.requests[kDemoKey] == 1);  // not per memoryMap entry, job or frame
  CHECK(reply.body.find(
            R"("found_modules":{"demo/A4C3B2D1F6E51807293A4B5C6D7E8F900":true}},{"stacks")") !=
        std::string::npos);
  CHECK(reply.body.ends_with(
      R"("found_modules":{"demo/A4C3B2D1F6E51807293A4B5C6D7E8F900":true}}]})"));
}

TEST_CASE("symbolicate v5 keeps request order over a hundred thousand addresses") {
  Fixture f;
  constexpr uint64_t kCount = 100000;
  std::string request = R"({"jobs": [{"memoryMap": [["demo", "A4C3B2D1F6E51807293A4B5C6D7E8F900"]],
      "stacks": [[)";
  for (uint64_t i = 0; i < kCount; ++i) {
    // Descending and spread, so sorting anywhere would show.
    request += (i ? ",[0," : "[0,") + std::to_string(0x1100 + (kCount - i) * 7 % 0x1000) + "]";
  }
  request += "]]}]}";
  const auto reply = f.post(request);
  REQUIRE(reply.status == 200);
  CHECK(reply.body.find("null") == std::string::npos);
  // Produced in parts, none of them a large share of the whole (the server holds one at a time).
  CHECK(f.parts > 8);
  CHECK(f.largest_part * 8 < reply.body.size());

  simdjson::dom::parser parser;
  const auto root = parse(parser, reply.body);
  simdjson::dom::array frames;
  REQUIRE(root["results"].at(0)["stacks"].at(0).get(frames) == simdjson::SUCCESS);
  REQUIRE(frames.size() == kCount);
  uint64_t i = 0;
  size_t mismatches = 0;
  for (auto frame : frames) {
    uint64_t index = 0;
    std::string_view offset;
    std::string_view module;
    const bool ok = frame["frame"].get(index) == simdjson::SUCCESS &&
                    frame["module"].get(module) == simdjson::SUCCESS && module == "demo" &&
                    frame["module_offset"].get(offset) == simdjson::SUCCESS;
    char expected[32];
    std::snprintf(expected, sizeof expected, "0x%llx",
                  static_cast<unsigned long long>(0x1100 + (kCount - i) * 7 % 0x1000));
    if (!ok || index != i || offset != expected) ++mismatches;
    ++i;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("symbolicate v5 rejects malformed requests with 400 and an error naming the problem") {
  Fixture f;
  struct Case {
    const char* body;
    const char* message_part;
  };
  const Case cases[] = {
      {R"({"jobs": [)", "not valid JSON"},
      {"", "not valid JSON"},
      {"[1, 2]", "request body must be a JSON object"},
      {R"({"jobs": {}})", "jobs must be an array"},
      {R"({"jobs": [1]})", "jobs[0] must be an object"},
      {R"({"jobs": [{"stacks": []}]})", "jobs[0].memoryMap must be present"},
      {R"({"jobs": [{"memoryMap": []}]})", "jobs[0].stacks must be present"},
      {R"({"jobs": [{"memoryMap": [["a"]], "stacks": []}]})", "jobs[0].memoryMap[0] must be"},
      {R"({"jobs": [{"memoryMap": [["a", 1]], "stacks": []}]})", "jobs[0].memoryMap[0] must be"},
      {R"({"jobs": [{"memoryMap": [], "stacks": {}}]})", "jobs[0].stacks must be an array"},
      {R"({"jobs": [{"memoryMap": [], "stacks": [[[0, 1]], 5]}]})", "jobs[0].stacks[1] must be"},
      {R"({"jobs": [{"memoryMap": [], "stacks": [[[0, 1, 2]]]}]})",
       "jobs[0].stacks[0][0] must be a [moduleIndex, offset] pair"},
      {R"({"jobs": [{"memoryMap": [], "stacks": [[[0, 1], 7]]}]})", "jobs[0].stacks[0][1] must be"},
      {R"({"jobs": [{"memoryMap": [], "stacks": [[[0, "0x10"]]]}]})",
       "jobs[0].stacks[0][0][1] must be a non-negative integer offset"},
      {R"({"jobs": [{"memoryMap": [], "stacks": [[[0, -5]]]}]})",
       "jobs[0].stacks[0][0][1] must be a non-negative integer offset"},
      {R"({"jobs": [{"memoryMap": [], "stacks": [[[0, 1.5]]]}]})",
       "jobs[0].stacks[0][0][1] must be a non-negative integer offset"},
      {R"({"jobs": [{"memoryMap": [], "stacks": [[["0", 1]]]}]})",
       "jobs[0].stacks[0][0][0] must be an integer module index"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.body);
    const auto reply = f.post(c.body);
    CHECK(reply.status == 400);
    CHECK(reply.content_type == "application/json");
    CHECK(reply.body.starts_with(R"({"error":")"));
    CHECK(reply.body.find(c.message_part) != std::string::npos);
  }
}

TEST_CASE("the API answers unknown paths with 404 and tolerates repeated slashes") {
  Fixture f;
  const std::string body = R"({"jobs": []})";
  CHECK(f.api.handle("/symbolicate/v4", body).status == 404);
  CHECK(f.api.handle("/profile.json", body).status == 404);
  CHECK(f.api.handle("/symbolicate/v4", body).body.starts_with(R"({"error":")"));
  const auto reply = f.post(body, "//symbolicate/v5/");
  CHECK(reply.status == 200);
  CHECK(reply.body == R"({"results":[]})");
}
