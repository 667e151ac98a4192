#include "sprof/server/profiler_url.hpp"

#include <doctest/doctest.h>

using sprof::server::encode_uri_component;
using sprof::server::profiler_url;

TEST_CASE("profiler url matches the documented, verified example") {
  // docs/firefox-profiler-format.md, "from-url and symbolServer URLs"; verified with the profiler
  // CLI's URL parser.
  CHECK(profiler_url("https://profiler.firefox.com", "http://127.0.0.1:38123/tok123/profile.json",
                     "http://127.0.0.1:38123/tok123") ==
        "https://profiler.firefox.com/from-url/"
        "http%3A%2F%2F127.0.0.1%3A38123%2Ftok123%2Fprofile.json/"
        "?symbolServer=http%3A%2F%2F127.0.0.1%3A38123%2Ftok123");
}

TEST_CASE("profiler url drops trailing slashes of the profiler base") {
  CHECK(profiler_url("http://localhost:4242//", "p", "s") ==
        "http://localhost:4242/from-url/p/?symbolServer=s");
}

TEST_CASE("encodeURIComponent keeps only the unreserved set") {
  CHECK(encode_uri_component("AZaz09-_.!~*'()") == "AZaz09-_.!~*'()");
  CHECK(encode_uri_component("/?#&=+ :@$,;") == "%2F%3F%23%26%3D%2B%20%3A%40%24%2C%3B");
  // UTF-8 bytes are encoded one by one with upper-case hex, as in JavaScript.
  CHECK(encode_uri_component("\xc3\xa9") == "%C3%A9");
  CHECK(encode_uri_component(std::string_view("\0x", 2)) == "%00x");
}

TEST_CASE("a server URL given for port forwarding keeps its origin and names its host") {
  using sprof::server::parse_public_url;
  auto local = parse_public_url("http://localhost:3000/");
  REQUIRE(local.has_value());
  CHECK(local->base == "http://localhost:3000");
  CHECK(local->host == "localhost");
  auto v6 = parse_public_url("https://[::1]:8443");
  REQUIRE(v6.has_value());
  CHECK(v6->host == "::1");
  auto proxied = parse_public_url("https://box.example/sprof");
  REQUIRE(proxied.has_value());
  CHECK(proxied->base == "https://box.example/sprof");
  CHECK(proxied->host == "box.example");
  for (const char* bad : {"localhost:3000", "ftp://x", "http://", "http://:3000",
                          "http://user@host:3000", "http://host:3000/?q"}) {
    CAPTURE(bad);
    const auto parsed = parse_public_url(bad);
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.error().message.find("server URL") != std::string::npos);
  }
}
