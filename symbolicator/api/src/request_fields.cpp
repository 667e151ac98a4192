#include "request_fields.hpp"

#include <charconv>
#include <string>

namespace sprof::api::detail {

namespace {

Unexpected field_error(std::string_view key, std::string_view expected) {
  return fail(Errc::kMalformed,
              "field \"" + std::string(key) + "\" must be " + std::string(expected));
}

// Parser buffers up to this capacity (bytes of JSON) are kept between requests.
constexpr size_t kKeptCapacity = 1 << 20;

// One parser per thread: its buffers grow to the request's size and are reused, so parsing
// does not allocate on every request.
simdjson::dom::parser& request_parser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

}  // namespace

Result<simdjson::dom::element> parse_request(std::string_view body) {
  simdjson::dom::parser& parser = request_parser();
  simdjson::dom::element root;
  if (const auto error = parser.parse(body.data(), body.size()).get(root)) {
    return fail(Errc::kMalformed,
                std::string("request body is not valid JSON: ") + simdjson::error_message(error));
  }
  return root;
}

void release_large_request_buffers() {
  simdjson::dom::parser& parser = request_parser();
  if (parser.capacity() > kKeptCapacity) parser = simdjson::dom::parser();
}

Result<simdjson::dom::object> request_object(simdjson::dom::element root) {
  simdjson::dom::object object;
  if (root.get(object)) return fail(Errc::kMalformed, "request body must be a JSON object");
  return object;
}

Result<std::string_view> string_field(simdjson::dom::object object, std::string_view key) {
  std::string_view value;
  if (object[key].get(value)) return field_error(key, "a string");
  return value;
}

Result<uint64_t> address_field(simdjson::dom::object object, std::string_view key) {
  simdjson::dom::element element;
  if (object[key].get(element)) return field_error(key, "present");
  uint64_t value = 0;
  std::string_view text;
  if (!element.get(text)) {
    if (!parse_hex(text, value)) return field_error(key, "a hex string like \"0x1a2b\"");
    return value;
  }
  if (element.get(value)) return field_error(key, "a hex string or a non-negative integer");
  return value;
}

Result<bool> optional_bool_field(simdjson::dom::object object, std::string_view key,
                                 bool fallback) {
  simdjson::dom::element element;
  if (object[key].get(element) || element.is_null()) return fallback;
  bool value = false;
  if (element.get(value)) return field_error(key, "a boolean");
  return value;
}

bool parse_hex(std::string_view text, uint64_t& out) {
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  if (text.empty()) return false;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), out, 16);
  return result.ec == std::errc() && result.ptr == text.data() + text.size();
}

}  // namespace sprof::api::detail
