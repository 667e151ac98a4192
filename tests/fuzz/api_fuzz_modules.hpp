// tests/fuzz/api_fuzz_modules.hpp
//
// The symbol server the API fuzz targets talk to: in-memory modules (the API tests' fakes), so
// a request that names them reaches symbolication, source reading and disassembly. The module
// "fuzz" with breakpad id "0C" (and a second, "libfuzz.so"/"00FF", without a binary) has
// functions whose files include a real file (SPROF_FUZZ_SOURCE_FILE) and whose binary is the
// small seed ELF built beside the targets (SPROF_FUZZ_BINARY_FILE).
#pragma once

#include <memory>

#include "api_fake_modules.hpp"
#include "sprof/api/symbolication_api.hpp"
#include "sprof/core/http_reply.hpp"

namespace sprof::fuzz {

class FuzzSymbolServer {
 public:
  FuzzSymbolServer() {
    using api::test::fake_function;
    auto map = std::make_shared<api::test::FakeSymbolMap>();
    map->binary_path = SPROF_FUZZ_BINARY_FILE;
    map->debug_path = SPROF_FUZZ_BINARY_FILE;
    map->functions.push_back(fake_function("main", 0x1000, 0x40, SPROF_FUZZ_SOURCE_FILE, 30));
    auto inlined = fake_function("compute", 0x1040, 0x80, "/fuzz/compute.c", 12);
    inlined.inlines.push_back({"square", SPROF_FUZZ_SOURCE_FILE, 3});
    map->functions.push_back(inlined);
    map->functions.push_back(fake_function("no_size", 0x2000, 0, "/fuzz/no_size.c", 1));
    map->source_files = {SPROF_FUZZ_SOURCE_FILE, "/fuzz/compute.c", "/fuzz/no_size.c"};
    modules_.maps["fuzz/0C"] = map;

    auto no_binary = std::make_shared<api::test::FakeSymbolMap>();
    no_binary->binary_path.clear();
    no_binary->functions.push_back(fake_function("f", 0x10, 0x10));
    modules_.maps["libfuzz.so/00FF"] = no_binary;
  }

  api::HttpReply handle(std::string_view path, const uint8_t* data, size_t size) {
    auto reply = api_.handle(path, std::string_view(reinterpret_cast<const char*>(data), size));
    // A /symbolicate/v5 reply is produced as it is read: read it, so that symbolication and
    // writing run too.
    reply.body = take_whole_body(reply);
    modules_.requests.clear();  // the fake counts requests per name; fuzzing asks for millions
    return reply;
  }

 private:
  api::test::FakeModuleSource modules_;
  api::SymbolicationApi api_{modules_};
};

}  // namespace sprof::fuzz
