// Typed access to the fields of a parsed JSON request (simdjson DOM, error-code API only: sprof
// throws no exceptions). Every failure is a kMalformed error whose message names the field and
// what was expected, so a 400 reply tells the caller exactly what is wrong.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string_view>

#include "sprof/core/result.hpp"

namespace sprof::api::detail {

// Parses `body` with a per-thread parser that keeps its buffers between requests. The returned
// element is valid until the next call on the same thread, or release_large_request_buffers.
Result<simdjson::dom::element> parse_request(std::string_view body);

// Frees the calling thread's parser buffers when a large request grew them (a 200 k-address
// /symbolicate/v5 request takes ~30 MB of them); small ones are kept for the next request.
void release_large_request_buffers();

// The root of a request must be an object.
Result<simdjson::dom::object> request_object(simdjson::dom::element root);

Result<std::string_view> string_field(simdjson::dom::object object, std::string_view key);

// An address or size: a hex string ("0x11ff", as the profiler sends them to source/asm) or a
// non-negative JSON integer.
Result<uint64_t> address_field(simdjson::dom::object object, std::string_view key);

// `fallback` when the key is absent or null; otherwise it must be a boolean.
Result<bool> optional_bool_field(simdjson::dom::object object, std::string_view key, bool fallback);

// Parses "0x..." (or bare hex digits) into a 64-bit value; false on anything else or overflow.
bool parse_hex(std::string_view text, uint64_t& out);

}  // namespace sprof::api::detail
