#include "sprof/core/build_id.hpp"

#include <doctest/doctest.h>

using sprof::BuildId;

TEST_CASE("breakpad id swaps the first three fields and appends age 0 (the documented example)") {
  auto id = BuildId::from_hex("d1b2c3a4e5f60718293a4b5c6d7e8f9012345678");
  REQUIRE(id.has_value());
  CHECK(id->breakpad_id() == "A4C3B2D1F6E51807293A4B5C6D7E8F900");
  CHECK(id->code_id() == "d1b2c3a4e5f60718293a4b5c6d7e8f9012345678");
}

TEST_CASE("breakpad id of a big-endian file keeps byte order") {
  auto id = BuildId::from_hex("d1b2c3a4e5f60718293a4b5c6d7e8f90");
  REQUIRE(id.has_value());
  CHECK(id->breakpad_id(/*little_endian=*/false) == "D1B2C3A4E5F60718293A4B5C6D7E8F900");
}

TEST_CASE("short build ids are zero-padded to 16 bytes") {
  auto id = BuildId::from_hex("01020304");
  REQUIRE(id.has_value());
  CHECK(id->breakpad_id() ==
        "04030201000000000000000000000000"
        "0");
}

TEST_CASE("text fold xors the first 4096 bytes into 16") {
  std::vector<uint8_t> text(5000, 0);
  text[0] = 0x01;
  text[16] = 0x03;    // same slot as byte 0
  text[4097] = 0xff;  // beyond 4096: ignored
  auto id = BuildId::from_text_fold(text);
  REQUIRE(id.bytes().size() == 16);
  CHECK(id.bytes()[0] == 0x02);
  CHECK(id.bytes()[1] == 0x00);
}

TEST_CASE("from_hex rejects odd lengths and non-hex characters") {
  CHECK_FALSE(BuildId::from_hex("abc").has_value());
  CHECK_FALSE(BuildId::from_hex("zz").has_value());
}
