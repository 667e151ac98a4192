// Shared pieces of the Gecko validator: JSON accessors over simdjson's DOM (error-code API, no
// exceptions) and the per-profile facts that thread checks need.
#pragma once

#include <simdjson.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sprof_test/gecko_validator.hpp"

namespace sprof::test::detail {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

class Problems {
 public:
  void add(const std::string& where, const std::string& what) {
    list_.push_back(where + ": " + what);
  }
  std::vector<std::string> take() { return std::move(list_); }

 private:
  std::vector<std::string> list_;
};

// What the thread checks need to know about the (sub)profile that holds the thread.
struct ProfileFacts {
  const GeckoCheckOptions* options = nullptr;
  std::vector<size_t> subcategory_counts;  // one per meta.categories entry
  // Marker payload type -> field keys that hold string-table indexes (unique-string, flow ids).
  std::map<std::string, std::vector<std::string>, std::less<>> string_index_fields;
};

inline std::optional<element> member(element e, std::string_view key) {
  element v;
  if (e.at_key(key).get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}
inline bool object_member(element e, std::string_view key, object& out) {
  return e.at_key(key).get_object().get(out) == simdjson::SUCCESS;
}
inline bool array_member(element e, std::string_view key, array& out) {
  return e.at_key(key).get_array().get(out) == simdjson::SUCCESS;
}
inline bool is_integer(element e) {
  return e.type() == simdjson::dom::element_type::INT64 ||
         e.type() == simdjson::dom::element_type::UINT64;
}
inline bool is_number(element e) {
  return is_integer(e) || e.type() == simdjson::dom::element_type::DOUBLE;
}
inline std::optional<double> as_number(element e) {
  double d = 0;
  if (!is_number(e) || e.get_double().get(d) != simdjson::SUCCESS) return std::nullopt;
  return d;
}
// A non-negative integer (index, count, address).
inline std::optional<uint64_t> as_index(element e) {
  uint64_t v = 0;
  if (!is_integer(e) || e.get_uint64().get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}
inline std::optional<std::string_view> as_string(element e) {
  std::string_view s;
  if (e.get_string().get(s) != simdjson::SUCCESS) return std::nullopt;
  return s;
}

// Shared by both formats (meta_checks.cpp), docs/firefox-profiler-format.md, "what the UI
// requires", items 2-4. Parses the document into `parser`; reports invalid JSON (simdjson also
// rejects invalid UTF-8, NaN and Infinity, item 7) and a root that is not an object.
std::optional<element> parse_document(std::string_view json, simdjson::dom::parser& parser,
                                      Problems& problems);
// Fills `facts.subcategory_counts`; checks the category rules.
void check_categories(element meta, const std::string& where, const GeckoCheckOptions& options,
                      ProfileFacts& facts, Problems& problems);
// Checks the Gecko-shaped schema rules; records which payload fields hold string indexes.
void check_marker_schema(element meta, const std::string& where, ProfileFacts& facts,
                         Problems& problems);
// startTime, interval, profilingStart/EndTime and sampleUnits of the top-level meta.
void check_top_meta(element meta, const GeckoCheckOptions& options, Problems& problems);
// debugName, breakpadId and codeId of one lib.
void check_lib(element lib, const std::string& at, Problems& problems);
// Payload fields that hold string indexes (per the schemas in `facts`) index `string_count`.
void check_payload_strings(element payload, const std::string& at, const ProfileFacts& facts,
                           size_t string_count, Problems& problems);

// Checks one entry of a (sub)profile's `threads`.
void check_thread(element thread, const std::string& where, const ProfileFacts& facts,
                  Problems& problems);

}  // namespace sprof::test::detail
