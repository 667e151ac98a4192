#include "sprof/core/hex.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

namespace sprof {

TEST_CASE("bytes are two hex digits each, in either case") {
  const std::vector<uint8_t> bytes = {0x00, 0x0f, 0xa5, 0xff};
  CHECK(to_hex(bytes) == "000fa5ff");
  CHECK(to_hex(bytes, HexCase::kUpper) == "000FA5FF");
  CHECK(to_hex(std::vector<uint8_t>{}).empty());
}

TEST_CASE("numbers are 0x and their digits without leading zeros") {
  CHECK(to_hex_number(0) == "0x0");
  CHECK(to_hex_number(0x2f) == "0x2f");
  CHECK(to_hex_number(0x1000) == "0x1000");
  CHECK(to_hex_number(UINT64_MAX) == "0xffffffffffffffff");
}

}  // namespace sprof
