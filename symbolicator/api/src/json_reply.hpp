// Reply building shared by the endpoints: JSON error bodies, the Errc -> status mapping, and hex
// formatting of addresses without heap allocation.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "sprof/api/http_reply.hpp"
#include "sprof/core/result.hpp"

namespace sprof::api::detail {

// "0x" + lowercase hex, as the Firefox Profiler's APIs write every address and size
// (docs/firefox-profiler-format.md, "symbolication API /symbolicate/v5").
class Hex {
 public:
  explicit Hex(uint64_t value);
  std::string_view view() const { return {chars_.data(), size_}; }

 private:
  std::array<char, 2 + 16> chars_{};
  size_t size_ = 0;
};

// {"error": message} with `status`.
HttpReply error_reply(unsigned status, std::string_view message);

// Requests that are malformed (kMalformed, kInvalidArgument, kTooLarge) get 400; anything else
// the profiler may legitimately ask but we cannot answer gets 200, because the front end treats
// a truthy "error" key as the API error either way (docs/firefox-profiler-format.md, "/source/v1").
HttpReply reply_for_error(const Error& error);

}  // namespace sprof::api::detail
