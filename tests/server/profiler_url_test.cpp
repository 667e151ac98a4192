#include "sprof/server/profiler_url.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

using sprof::server::compare_url;
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

TEST_CASE("compare url: two single-thread views, encoded once, with the symbol server outside") {
  // The form the issue records as checked with a local build of the front end: each view is a
  // from-url URL selecting one thread, and only the outer symbolServer is read.
  const std::string url = compare_url(
      "https://profiler.firefox.com/", {"http://127.0.0.1:3000/tok/profile.json", 2},
      {"http://127.0.0.1:3000/tok/compared-profile.json", 0}, "http://127.0.0.1:3000/tok");
  const std::string base_view =
      "https://profiler.firefox.com/from-url/"
      "http%3A%2F%2F127.0.0.1%3A3000%2Ftok%2Fprofile.json/calltree/?thread=2&v=10";
  const std::string compared_view =
      "https://profiler.firefox.com/from-url/"
      "http%3A%2F%2F127.0.0.1%3A3000%2Ftok%2Fcompared-profile.json/calltree/?thread=0&v=10";
  CHECK(url == "https://profiler.firefox.com/compare/calltree/?profiles[]=" +
                   encode_uri_component(base_view) +
                   "&profiles[]=" + encode_uri_component(compared_view) +
                   "&symbolServer=http%3A%2F%2F127.0.0.1%3A3000%2Ftok");
  // The outer query has exactly three parameters: '&' and '=' of the views are encoded.
  const std::string query = url.substr(url.find('?') + 1);
  CHECK(std::count(query.begin(), query.end(), '&') == 2);
  CHECK(std::count(query.begin(), query.end(), '=') == 3);
}
