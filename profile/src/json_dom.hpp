// Typed access to a parsed profile document (simdjson DOM, error-code API only: sprof throws no
// exceptions), for the readers. Missing members and wrong types come back as nullopt; the
// readers decide which are errors and name the place in their messages.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace sprof::profile::detail {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

inline std::optional<element> member(element e, std::string_view key) {
  element v;
  if (e.at_key(key).get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}

inline std::optional<array> array_member(element e, std::string_view key) {
  array a;
  if (e.at_key(key).get_array().get(a) != simdjson::SUCCESS) return std::nullopt;
  return a;
}

inline std::optional<double> as_double(std::optional<element> e) {
  double d = 0;
  if (!e || e->get_double().get(d) != simdjson::SUCCESS) return std::nullopt;
  return d;
}

inline std::optional<int64_t> as_int(std::optional<element> e) {
  int64_t v = 0;
  if (!e || e->get_int64().get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}

inline std::optional<uint64_t> as_uint(std::optional<element> e) {
  uint64_t v = 0;
  if (!e || e->get_uint64().get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}

inline std::optional<std::string_view> as_string(std::optional<element> e) {
  std::string_view s;
  if (!e || e->get_string().get(s) != simdjson::SUCCESS) return std::nullopt;
  return s;
}

inline std::optional<bool> as_bool(std::optional<element> e) {
  bool b = false;
  if (!e || e->get_bool().get(b) != simdjson::SUCCESS) return std::nullopt;
  return b;
}

inline bool is_integer(element e) {
  return e.type() == simdjson::dom::element_type::INT64 ||
         e.type() == simdjson::dom::element_type::UINT64;
}

// Element `i` of an array, or nullopt past its end.
inline std::optional<element> at(array a, size_t i) {
  element v;
  if (a.at(i).get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}

}  // namespace sprof::profile::detail
