// tests/support/read_only_bytes.hpp (#include "read_only_bytes.hpp")
//
// Bytes in memory offered only through `ByteSource::read` (no `data()`): what a perf.data file
// that could not be mapped gives, so tests and the fuzzer run the perf.data reader's chunked path
// as well as its in-place one.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "sprof/perfdata/byte_source.hpp"

namespace sprof::test {

class ReadOnlyBytes final : public perfdata::ByteSource {
 public:
  ReadOnlyBytes(std::span<const uint8_t> bytes, std::string name)
      : memory_(bytes, std::move(name)) {}
  uint64_t size() const override { return memory_.size(); }
  Result<void> read(uint64_t offset, std::span<uint8_t> out) override {
    return memory_.read(offset, out);
  }
  std::string name() const override { return memory_.name(); }

 private:
  perfdata::MemoryBytes memory_;
};

}  // namespace sprof::test
