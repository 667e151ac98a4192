// Request framing (server/src/request_framing.hpp): which Transfer-Encoding / Content-Length
// combinations the session refuses before reading a body.
#include "request_framing.hpp"

#include <doctest/doctest.h>

namespace sprof::server::detail {
namespace {

Request with_headers(std::vector<HttpHeader> headers) {
  Request request;
  request.method = "POST";
  request.target = "/t/symbolicate/v5";
  request.headers = std::move(headers);
  return request;
}

TEST_CASE("chunked alone and content-length alone are usable framings") {
  CHECK_FALSE(unusable_framing(with_headers({{"Content-Length", "5"}}), 11));
  CHECK_FALSE(unusable_framing(with_headers({{"Transfer-Encoding", "chunked"}}), 11));
  CHECK_FALSE(unusable_framing(with_headers({{"transfer-encoding", " Chunked "}}), 11));
  CHECK_FALSE(unusable_framing(with_headers({}), 10));
}

TEST_CASE("transfer codings other than a final lone chunked are refused") {
  for (const char* value :
       {"xchunked", "chunked, gzip", "gzip, chunked", "chunked, chunked", "", "identity"}) {
    const std::string label = value;
    CAPTURE(label);
    CHECK(unusable_framing(with_headers({{"Transfer-Encoding", value}}), 11));
  }
  // Two fields are one list: "chunked" then "gzip".
  CHECK(unusable_framing(
      with_headers({{"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "gzip"}}), 11));
}

TEST_CASE("transfer-encoding with content-length, or in HTTP/1.0, is refused") {
  const auto both = unusable_framing(
      with_headers({{"Transfer-Encoding", "chunked"}, {"Content-Length", "5"}}), 11);
  REQUIRE(both);
  CHECK(both->find("Content-Length") != std::string::npos);
  CHECK(unusable_framing(with_headers({{"Transfer-Encoding", "chunked"}}), 10));
}

}  // namespace
}  // namespace sprof::server::detail
