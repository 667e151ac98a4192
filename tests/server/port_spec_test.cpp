#include "sprof/server/port_spec.hpp"

#include <doctest/doctest.h>

using sprof::Errc;
using sprof::server::parse_port_spec;

TEST_CASE("a plain port binds exactly that port") {
  auto range = parse_port_spec("3000");
  REQUIRE(range.has_value());
  CHECK(range->first == 3000);
  CHECK(range->last == 3000);
}

TEST_CASE("a port with a plus tries the next 99 ports, capped at 65535") {
  auto range = parse_port_spec("3000+");
  REQUIRE(range.has_value());
  CHECK(range->first == 3000);
  CHECK(range->last == 3099);
  auto top = parse_port_spec("65500+");
  REQUIRE(top.has_value());
  CHECK(top->last == 65535);
}

TEST_CASE("port zero means one ephemeral port, with or without a plus") {
  auto range = parse_port_spec("0+");
  REQUIRE(range.has_value());
  CHECK(range->first == 0);
  CHECK(range->last == 0);
}

TEST_CASE("malformed port specs are rejected as invalid arguments") {
  for (const char* spec : {"", "+", "abc", "80x", "-1", "65536", "123456", "1++", " 80"}) {
    CAPTURE(spec);
    auto range = parse_port_spec(spec);
    REQUIRE_FALSE(range.has_value());
    CHECK(range.error().code == Errc::kInvalidArgument);
  }
}
