#include "sprof/server/token.hpp"

#include <doctest/doctest.h>

#include <array>
#include <string>

using sprof::server::base32_lower;
using sprof::server::generate_token;

namespace {
std::string encode(std::string_view text) {
  return base32_lower({reinterpret_cast<const unsigned char*>(text.data()), text.size()});
}
}  // namespace

TEST_CASE("base32 matches the RFC 4648 test vectors in lower case without padding") {
  CHECK(encode("") == "");
  CHECK(encode("f") == "my");
  CHECK(encode("fo") == "mzxq");
  CHECK(encode("foo") == "mzxw6");
  CHECK(encode("foob") == "mzxw6yq");
  CHECK(encode("fooba") == "mzxw6ytb");
  CHECK(encode("foobar") == "mzxw6ytboi");
}

TEST_CASE("generated tokens are 39 url-safe characters and differ between calls") {
  auto first = generate_token();
  auto second = generate_token();
  REQUIRE(first.has_value());
  REQUIRE(second.has_value());
  CHECK(first->size() == 39);  // ceil(24 * 8 / 5)
  CHECK(first->find_first_not_of("abcdefghijklmnopqrstuvwxyz234567") == std::string::npos);
  CHECK(*first != *second);
}
