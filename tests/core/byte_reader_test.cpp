#include "sprof/core/byte_reader.hpp"

#include <doctest/doctest.h>

#include <vector>

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

TEST_CASE("LEB128 values decode as DWARF 5 section 7.6 shows, and overlong ones fail") {
  // DWARF 5 tables 7.6 and 7.7.
  const std::vector<uint8_t> unsigned_bytes = {2, 127, 0x80, 1, 0x81, 1, 0x82, 1, 0xb9, 0x64};
  ByteReader u(unsigned_bytes);
  CHECK(u.uleb128() == 2);
  CHECK(u.uleb128() == 127);
  CHECK(u.uleb128() == 128);
  CHECK(u.uleb128() == 129);
  CHECK(u.uleb128() == 130);
  CHECK(u.uleb128() == 12857);
  CHECK(u.ok());
  const std::vector<uint8_t> signed_bytes = {2, 0x7e, 0xff, 0, 0x81, 0x7f, 0x80, 1, 0x80, 0x7f};
  ByteReader s(signed_bytes);
  CHECK(s.sleb128() == 2);
  CHECK(s.sleb128() == -2);
  CHECK(s.sleb128() == 127);
  CHECK(s.sleb128() == -127);
  CHECK(s.sleb128() == 128);
  CHECK(s.sleb128() == -128);
  CHECK(s.ok());

  const std::vector<uint8_t> max = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
  ByteReader m(max);
  CHECK(m.uleb128() == ~uint64_t{0});
  CHECK(m.ok());
  // 2^64 and a run of continuation bytes do not fit 64 bits.
  const std::vector<uint8_t> too_big = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02};
  ByteReader b(too_big);
  b.uleb128();
  CHECK_FALSE(b.ok());
  const std::vector<uint8_t> endless(32, 0x80);
  ByteReader e(endless);
  e.uleb128();
  CHECK_FALSE(e.ok());
  ByteReader cut(std::span<const uint8_t>(endless).first(3));
  cut.sleb128();
  CHECK_FALSE(cut.ok());
}
