#include "sprof/core/json_writer.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using sprof::JsonWriter;

TEST_CASE("json writer places commas and nests containers") {
  JsonWriter w;
  w.begin_object().field("a", 1).key("b").begin_array().value(1).value("x").null().end_array();
  w.field("c", true).end_object();
  CHECK(w.take() == R"({"a":1,"b":[1,"x",null],"c":true})");
}

TEST_CASE("json writer escapes control characters, quotes and backslashes") {
  JsonWriter w;
  w.value(std::string_view("a\"b\\c\nd\x01\x7f", 9));
  CHECK(w.take() == R"("a\"b\\c\nd\u0001\u007f")");
}

TEST_CASE("invalid UTF-8 bytes become U+FFFD, valid multi-byte sequences pass through") {
  JsonWriter w;
  // "é" valid; 0xff invalid; truncated 3-byte sequence; overlong "/"; surrogate.
  w.value(std::string_view("\xc3\xa9|\xff|\xe2\x82|\xc0\xaf|\xed\xa0\x80", 14));
  CHECK(w.take() ==
        "\"\xc3\xa9|\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|"
        "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
}

TEST_CASE("doubles are trimmed to 6 decimals and non-finite values become null") {
  JsonWriter w;
  w.begin_array().value(1.5).value(2.0).value(0.1234567).value(-0.0000001);
  w.value(std::numeric_limits<double>::quiet_NaN()).value(INFINITY).end_array();
  CHECK(w.take() == "[1.5,2,0.123457,0,null,null]");
}

TEST_CASE("64-bit integers are written exactly") {
  JsonWriter w;
  w.begin_array().value(uint64_t{18446744073709551615ULL}).value(int64_t{-5}).end_array();
  CHECK(w.take() == "[18446744073709551615,-5]");
}

TEST_CASE("json writer streams to its flush callback in chunks") {
  std::string out;
  int flushes = 0;
  JsonWriter w(
      [&](std::string_view chunk) {
        out.append(chunk);
        ++flushes;
      },
      16);
  w.begin_array();
  for (int i = 0; i < 100; ++i) w.value("abcdef");
  w.end_array();
  w.flush();
  CHECK(flushes > 5);
  CHECK(out.size() == 2 + 100 * 8 + 99);
  CHECK(w.buffer().empty());
}

TEST_CASE("optional values are written as their value or null") {
  JsonWriter w;
  w.begin_array().value(std::optional<double>(1.5)).value(std::optional<uint32_t>());
  w.value(std::optional<uint64_t>(7)).end_array();
  CHECK(w.take() == "[1.5,null,7]");
}
