#include "protobuf_writer.hpp"

#include <doctest/doctest.h>

#include <string>

namespace sprof::report::detail {
namespace {

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// The examples of the protobuf encoding guide: field 1 = 150 is 08 96 01, a string field 2
// "testing" is 12 07 74 65 73 74 69 6e 67.
TEST_CASE("protobuf wire format: varints, negative int64, strings, packed fields, messages") {
  ProtobufWriter w;
  w.varint_field(1, 150);
  CHECK(hex(w.bytes()) == "089601");
  w.clear();
  w.bytes_field(2, "testing");
  CHECK(hex(w.bytes()) == "120774657374696e67");
  w.clear();
  w.int64_field(1, -1);  // ten bytes: two's complement as uint64
  CHECK(hex(w.bytes()) == "08ffffffffffffffffff01");
  w.clear();
  w.packed_field(4, std::vector<uint64_t>{3, 270, 86942});
  CHECK(hex(w.bytes()) == "2206038e029ea705");
  w.clear();
  ProtobufWriter inner;
  inner.varint_field(1, 150);
  w.message_field(3, inner);
  CHECK(hex(w.bytes()) == "1a03089601");
  w.clear();
  w.varint_field(16, 1);  // a field number above 15 takes a two-byte key
  CHECK(hex(w.bytes()) == "800101");
}

}  // namespace
}  // namespace sprof::report::detail
