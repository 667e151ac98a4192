// Checks that both profile formats share: the top-level meta values, categories, marker schemas
// (processed profiles before version 55 keep the Gecko shape) and the fields that name a lib.
#include <cmath>

#include "sprof/core/build_id.hpp"
#include "validator_context.hpp"

namespace sprof::test::detail {

namespace {

bool is_upper_hex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'))) return false;
  }
  return true;
}

bool is_lower_hex(std::string_view s) {
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::optional<element> parse_document(std::string_view json, simdjson::dom::parser& parser,
                                      Problems& problems) {
  element root;
  if (auto err = parser.parse(simdjson::padded_string(json)).get(root)) {
    problems.add("document", std::string("is not valid JSON: ") + simdjson::error_message(err));
    return std::nullopt;
  }
  if (root.type() != simdjson::dom::element_type::OBJECT) {
    problems.add("document", "is not an object");
    return std::nullopt;
  }
  return root;
}

void check_categories(element meta, const std::string& where, const GeckoCheckOptions& options,
                      ProfileFacts& facts, Problems& problems) {
  array categories;
  if (!array_member(meta, "categories", categories)) {
    problems.add(where, "categories is not an array");
    return;
  }
  size_t grey = 0;
  size_t idle = 0;
  for (element c : categories) {
    auto name = member(c, "name");
    auto color = member(c, "color");
    array subcategories;
    const bool has_subs = array_member(c, "subcategories", subcategories);
    if (!name || !as_string(*name) || !color || !as_string(*color)) {
      problems.add(where + ".categories", "entry without name or color");
    }
    if (color && as_string(*color) == "grey") ++grey;
    if (name && as_string(*name) == "Idle") ++idle;
    const size_t count = has_subs ? subcategories.size() : 0;
    if (count == 0) problems.add(where + ".categories", "entry without subcategories");
    facts.subcategory_counts.push_back(count);
  }
  if (grey == 0) problems.add(where + ".categories", "has no grey category");
  if (facts.subcategory_counts.size() > 256) problems.add(where, "more than 256 categories");
  if (idle > 1 || (options.expect_idle_category && idle != 1)) {
    problems.add(where + ".categories", "has " + std::to_string(idle) + " categories named Idle");
  }
}

void check_marker_schema(element meta, const std::string& where, ProfileFacts& facts,
                         Problems& problems) {
  array schemas;
  if (!array_member(meta, "markerSchema", schemas)) {
    problems.add(where, "markerSchema is not an array");
    return;
  }
  for (element schema : schemas) {
    auto name = member(schema, "name");
    // Assigned rather than chosen by ?: which makes GCC 12 warn, wrongly, that it may be read
    // uninitialised (-Wmaybe-uninitialized) where the function is inlined into a unity batch.
    std::optional<std::string_view> schema_name;
    if (name) schema_name = as_string(*name);
    const std::string at = where + ".markerSchema[" + std::string(schema_name.value_or("?")) + "]";
    array fields;
    if (!schema_name) problems.add(at, "has no name");
    if (!array_member(schema, "data", fields)) {
      problems.add(at, "has no data array (the Gecko name; `fields` fails the load)");
      continue;
    }
    std::vector<std::string> string_keys;
    for (element f : fields) {
      auto key = member(f, "key");
      auto format = member(f, "format");
      const bool dynamic = key && as_string(*key) && format;
      const bool fixed = member(f, "label") && member(f, "value");
      if (!dynamic && !fixed) problems.add(at, "field is neither {key, format} nor {label, value}");
      auto format_name = format ? as_string(*format) : std::nullopt;
      if (dynamic && (format_name == "unique-string" || format_name == "flow-id" ||
                      format_name == "terminating-flow-id")) {
        string_keys.emplace_back(*as_string(*key));
      }
    }
    // The front end merges schemas across (sub)profiles, first one wins by name.
    if (schema_name) facts.string_index_fields.emplace(std::string(*schema_name), string_keys);
  }
}

void check_top_meta(element meta, const GeckoCheckOptions& options, Problems& problems) {
  auto start = member(meta, "startTime");
  auto start_ms = start ? as_number(*start) : std::nullopt;
  if (!start_ms || !std::isfinite(*start_ms)) problems.add("meta", "startTime is not a number");
  auto interval = member(meta, "interval");
  auto interval_ms = interval ? as_number(*interval) : std::nullopt;
  if (!interval_ms || !(*interval_ms > 0)) problems.add("meta", "interval is not > 0");
  auto ps = member(meta, "profilingStartTime");
  auto pe = member(meta, "profilingEndTime");
  if (ps || pe) {
    auto s = ps ? as_number(*ps) : std::nullopt;
    auto e = pe ? as_number(*pe) : std::nullopt;
    if (!s || !e || !(0 <= *s && *s < *e)) {
      problems.add("meta", "profilingStartTime/EndTime are not 0 <= start < end");
    }
  }
  if (options.expect_cpu_deltas) {
    object units;
    std::string_view time, delay, cpu;
    const bool ok = object_member(meta, "sampleUnits", units) && units.size() == 3 &&
                    units["time"].get(time) == simdjson::SUCCESS && time == "ms" &&
                    units["eventDelay"].get(delay) == simdjson::SUCCESS && delay == "ms" &&
                    units["threadCPUDelta"].get(cpu) == simdjson::SUCCESS && cpu == "ns";
    if (!ok)
      problems.add("meta", "sampleUnits is not {time: ms, eventDelay: ms, threadCPUDelta: ns}");
  }
}

void check_lib(element lib, const std::string& at, Problems& problems) {
  auto debug_name = member(lib, "debugName");
  auto dn = debug_name ? as_string(*debug_name) : std::nullopt;
  if (!dn || dn->empty() || dn->find('/') != std::string_view::npos) {
    problems.add(at, "debugName is empty or contains '/'");
  }
  auto breakpad = member(lib, "breakpadId");
  auto id = breakpad ? as_string(*breakpad) : std::nullopt;
  if (!id || id->size() < 33 || !is_upper_hex(*id)) {
    problems.add(at, "breakpadId is not ^[0-9A-F]{32}[0-9A-F]+$");
  }
  auto code = member(lib, "codeId");
  if (code && !code->is_null()) {
    auto code_id = as_string(*code);
    if (!code_id || !is_lower_hex(*code_id)) {
      problems.add(at, "codeId is not lowercase hex");
    } else if (auto build_id = BuildId::from_hex(*code_id);
               id && build_id && build_id->breakpad_id() != *id) {
      problems.add(at, "breakpadId " + std::string(*id) + " does not derive from codeId " +
                           std::string(*code_id));
    }
  }
}

}  // namespace sprof::test::detail
