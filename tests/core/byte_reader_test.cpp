#include <doctest/doctest.h>

#include <vector>

#include "sprof/core/byte_reader.hpp"

using sprof::ByteReader;

TEST_CASE("byte reader reads fields and fails past the end without reading") {
  std::vector<uint8_t> bytes = {1, 0, 0, 0, 2, 0};
  ByteReader r(bytes);
  CHECK(r.u32() == 1);
  CHECK(r.u16() == 2);
  CHECK(r.ok());
  CHECK(r.u32() == 0);
  CHECK_FALSE(r.ok());
  CHECK(r.remaining() == 0);
}

TEST_CASE("byte reader stays failed after the first short read") {
  std::vector<uint8_t> bytes = {1, 2, 3};
  ByteReader r(bytes);
  CHECK_FALSE(r.skip(4));
  CHECK(r.u16() == 0);
  CHECK_FALSE(r.ok());
}

TEST_CASE("padded and aligned strings") {
  std::vector<uint8_t> bytes = {'a', 'b', 0, 0, 0, 0, 0, 0, 'c', 0, 0, 0, 0, 0, 0, 0, 9};
  ByteReader r(bytes);
  CHECK(r.c_string_aligned(8) == "ab");
  CHECK(r.position() == 8);
  CHECK(r.padded_string(8) == "c");
  CHECK(r.remaining() == 1);
}

TEST_CASE("an unterminated string fails") {
  std::vector<uint8_t> bytes = {'a', 'b'};
  ByteReader r(bytes);
  CHECK(r.c_string_aligned(8).empty());
  CHECK_FALSE(r.ok());
}
