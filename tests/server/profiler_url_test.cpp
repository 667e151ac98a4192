#include "sprof/server/profiler_url.hpp"

#include <doctest/doctest.h>

using sprof::server::encode_uri_component;
using sprof::server::profiler_url;

TEST_CASE("profiler url matches the contract's verified example") {
  // Contract §8.1, verified with the profiler CLI's URL parser.
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
