// Paths a profile names are opened as untrusted: a JIT map or module that became a FIFO gets an
// error at once instead of blocking one of the server's two API threads forever.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include "fifo_writer.hpp"
#include "sprof/core/jit_symbol_file.hpp"
#include "sprof/symbolicator/symbolicator.hpp"
#include "symbols_test_support.hpp"

namespace sprof::symbolicator {
namespace {

TEST_CASE("a JIT map path that is a FIFO answers an error instead of blocking the request") {
  test::TempDir dir;
  const std::string fifo = dir.path() + "/perf-4242.map";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string breakpad_id = jit_breakpad_id(0x7f0000000000, 1);
  SymbolicatorOptions options;
  options.hints.push_back({"perf-4242.map", breakpad_id, fifo});
  Symbolicator symbolicator(std::move(options));
  Result<std::shared_ptr<const SymbolMap>> map = std::shared_ptr<const SymbolMap>();
  {
    test::FifoWriter writer(fifo);
    map = symbolicator.module("perf-4242.map", breakpad_id);
  }
  REQUIRE_FALSE(map.has_value());
  CHECK(map.error().message.find("not a regular file") != std::string::npos);
}

}  // namespace
}  // namespace sprof::symbolicator
