// docs/firefox-profiler-format.md, "what the UI requires", items 5-7: per-thread fields, table
// schemas, indexes and values.
#include <cmath>

#include "validator_context.hpp"

namespace sprof::test::detail {

namespace {

// A Gecko table: `{schema: {column: index}, data: [[...], ...]}`. Columns are found through the
// schema, as the front end reads them; a row shorter than the schema reads as null.
struct Table {
  std::map<std::string, size_t, std::less<>> columns;
  array rows;

  std::optional<element> cell(array row, std::string_view column) const {
    auto it = columns.find(column);
    if (it == columns.end()) return std::nullopt;
    element v;
    if (row.at(it->second).get(v) != simdjson::SUCCESS || v.is_null()) return std::nullopt;
    return v;
  }
};

std::optional<Table> read_table(element thread, std::string_view name,
                                const std::vector<std::string_view>& required,
                                const std::string& where, Problems& problems) {
  const std::string at = where + "." + std::string(name);
  auto table = member(thread, name);
  object schema;
  Table t;
  if (!table || !object_member(*table, "schema", schema) || !array_member(*table, "data", t.rows)) {
    problems.add(at, "missing, or without a schema object and a data array");
    return std::nullopt;
  }
  for (auto [key, value] : schema) {
    if (auto index = as_index(value)) t.columns.emplace(std::string(key), *index);
  }
  for (std::string_view key : required) {
    if (!t.columns.contains(key)) problems.add(at + ".schema", "lacks key " + std::string(key));
  }
  return t;
}

std::string row_at(const std::string& where, std::string_view table, size_t i) {
  return where + "." + std::string(table) + ".data[" + std::to_string(i) + "]";
}

bool is_lower_hex_address(std::string_view s) {
  if (s.size() < 3 || s.substr(0, 2) != "0x") return false;
  for (char c : s.substr(2)) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

void check_fields(element thread, const std::string& where, Problems& problems) {
  for (std::string_view key : {"name", "processType"}) {
    auto v = member(thread, key);
    if (!v || !as_string(*v)) problems.add(where, std::string(key) + " is not a string");
  }
  for (std::string_view key : {"pid", "tid"}) {
    auto v = member(thread, key);
    if (!v || !is_integer(*v)) problems.add(where, std::string(key) + " is not an integer");
  }
  auto reg = member(thread, "registerTime");
  if (!reg || !as_number(*reg)) problems.add(where, "registerTime is not a number");
  auto unreg = member(thread, "unregisterTime");
  if (!unreg || !(unreg->is_null() || as_number(*unreg))) {
    problems.add(where, "unregisterTime is neither a number nor null");
  }
  element string_array;
  if (thread.at_key("stringArray").get(string_array) == simdjson::SUCCESS) {
    problems.add(where, "has stringArray (marks a processed profile)");
  }
}

// Returns the string table, reporting non-string entries.
std::vector<std::string_view> read_strings(element thread, const std::string& where,
                                           Problems& problems) {
  std::vector<std::string_view> strings;
  array table;
  if (!array_member(thread, "stringTable", table)) {
    problems.add(where, "stringTable is not an array");
    return strings;
  }
  for (element s : table) {
    auto text = as_string(s);
    if (!text) problems.add(where + ".stringTable", "holds a non-string");
    strings.push_back(text.value_or(""));
  }
  return strings;
}

bool valid_category(const ProfileFacts& facts, std::optional<element> category,
                    std::optional<element> subcategory) {
  if (!category) return !subcategory;  // null category: inherited from the prefix
  auto c = as_index(*category);
  if (!c || *c >= facts.subcategory_counts.size() || !subcategory) return false;
  auto s = as_index(*subcategory);
  return s && *s < facts.subcategory_counts[*c];
}

size_t check_frames(element thread, const std::string& where, const ProfileFacts& facts,
                    const std::vector<std::string_view>& strings, Problems& problems) {
  auto t = read_table(thread, "frameTable",
                      {"location", "relevantForJS", "innerWindowID", "implementation", "line",
                       "column", "category", "subcategory"},
                      where, problems);
  if (!t) return 0;
  size_t i = 0;
  for (element row_element : t->rows) {
    const std::string at = row_at(where, "frameTable", i++);
    array row;
    if (row_element.get_array().get(row)) {
      problems.add(at, "is not an array");
      continue;
    }
    auto location = t->cell(row, "location");
    auto index = location ? as_index(*location) : std::nullopt;
    if (!index || *index >= strings.size()) {
      problems.add(at, "location is not a valid string index");
    } else if (strings[*index].starts_with("0x") && !is_lower_hex_address(strings[*index])) {
      problems.add(at, "address location is not ^0x[0-9a-f]+$: " + std::string(strings[*index]));
    }
    if (!valid_category(facts, t->cell(row, "category"), t->cell(row, "subcategory"))) {
      problems.add(at, "invalid category/subcategory");
    }
  }
  return i;
}

size_t check_stacks(element thread, const std::string& where, size_t frame_count,
                    Problems& problems) {
  auto t = read_table(thread, "stackTable", {"prefix", "frame"}, where, problems);
  if (!t) return 0;
  if (t->columns != std::map<std::string, size_t, std::less<>>{{"prefix", 0}, {"frame", 1}}) {
    problems.add(where + ".stackTable.schema", "is not {prefix: 0, frame: 1}");
  }
  size_t i = 0;
  for (element row_element : t->rows) {
    const std::string at = row_at(where, "stackTable", i);
    array row;
    if (row_element.get_array().get(row)) {
      problems.add(at, "is not an array");
    } else {
      auto prefix = t->cell(row, "prefix");
      auto p = prefix ? as_index(*prefix) : std::nullopt;
      if (prefix && (!p || *p >= i)) problems.add(at, "prefix is not < its own index");
      auto frame = t->cell(row, "frame");
      auto f = frame ? as_index(*frame) : std::nullopt;
      if (!f || *f >= frame_count) problems.add(at, "frame is not a valid frame index");
    }
    ++i;
  }
  return i;
}

void check_samples(element thread, const std::string& where, size_t stack_count,
                   Problems& problems) {
  auto t = read_table(thread, "samples", {"stack", "time", "eventDelay", "threadCPUDelta"}, where,
                      problems);
  if (!t) return;
  double previous_time = -INFINITY;
  size_t i = 0;
  for (element row_element : t->rows) {
    const std::string at = row_at(where, "samples", i++);
    array row;
    if (row_element.get_array().get(row)) {
      problems.add(at, "is not an array");
      continue;
    }
    if (auto stack = t->cell(row, "stack")) {
      auto s = as_index(*stack);
      if (!s || *s >= stack_count) problems.add(at, "stack is neither null nor a valid index");
    }
    auto time = t->cell(row, "time");
    auto ms = time ? as_number(*time) : std::nullopt;
    if (!ms) {
      problems.add(at, "time is not a number");
    } else {
      if (*ms < previous_time) problems.add(at, "time decreases");
      previous_time = *ms;
    }
    if (auto delta = t->cell(row, "threadCPUDelta"); delta && !as_index(*delta)) {
      problems.add(at, "threadCPUDelta is not an integer >= 0");
    }
  }
}

// A "Native allocation" payload (docs/firefox-profiler-format.md, "native allocations"): a byte
// count, the block's address and thread, and for allocations a marker stack whose first sample
// names a stack of this thread.
void check_native_allocation(element payload, const std::string& at, size_t stack_count,
                             Problems& problems) {
  for (std::string_view key : {"size", "memoryAddress", "threadId"}) {
    auto v = member(payload, key);
    if (!v || !as_number(*v)) problems.add(at, "allocation has no number " + std::string(key));
  }
  auto stack = member(payload, "stack");
  if (!stack) return;
  auto samples = read_table(*stack, "samples", {"stack", "time"}, at + ".data.stack", problems);
  if (!samples) return;
  array first;
  element row;
  if (samples->rows.at(0).get(row) != simdjson::SUCCESS || row.get_array().get(first)) {
    problems.add(at, "allocation stack has no sample");
    return;
  }
  auto index = samples->cell(first, "stack");
  auto s = index ? as_index(*index) : std::nullopt;
  if (!s || *s >= stack_count) problems.add(at, "allocation stack is not a valid stack index");
}

void check_markers(element thread, const std::string& where, const ProfileFacts& facts,
                   size_t string_count, size_t stack_count, Problems& problems) {
  auto t =
      read_table(thread, "markers", {"name", "startTime", "endTime", "phase", "category", "data"},
                 where, problems);
  if (!t) return;
  const std::map<std::string, size_t, std::less<>> expected{
      {"name", 0}, {"startTime", 1}, {"endTime", 2}, {"phase", 3}, {"category", 4}, {"data", 5}};
  if (t->columns != expected) problems.add(where + ".markers.schema", "has unexpected indexes");
  size_t i = 0;
  for (element row_element : t->rows) {
    const std::string at = row_at(where, "markers", i++);
    array row;
    if (row_element.get_array().get(row)) {
      problems.add(at, "is not an array");
      continue;
    }
    auto name = t->cell(row, "name");
    auto n = name ? as_index(*name) : std::nullopt;
    if (!n || *n >= string_count) problems.add(at, "name is not a valid string index");
    // Which times are present is fixed by the phase (docs/firefox-profiler-format.md, "markers").
    const bool has_start = t->cell(row, "startTime").has_value();
    const bool has_end = t->cell(row, "endTime").has_value();
    auto phase_cell = t->cell(row, "phase");
    auto phase = phase_cell ? as_index(*phase_cell) : std::nullopt;
    static constexpr bool kStart[] = {true, true, true, false};
    static constexpr bool kEnd[] = {false, true, false, true};
    if (!phase || *phase > 3) {
      problems.add(at, "phase is not 0..3");
    } else if (has_start != kStart[*phase] || has_end != kEnd[*phase]) {
      problems.add(at, "start/end time nullness does not match phase " + std::to_string(*phase));
    }
    for (std::string_view column : {"startTime", "endTime"}) {
      if (auto v = t->cell(row, column); v && !as_number(*v)) {
        problems.add(at, std::string(column) + " is not a number");
      }
    }
    auto category = t->cell(row, "category");
    auto c = category ? as_index(*category) : std::nullopt;
    if (!c || *c >= facts.subcategory_counts.size()) problems.add(at, "invalid category");
    if (auto payload = t->cell(row, "data")) {
      if (payload->type() != simdjson::dom::element_type::OBJECT) {
        problems.add(at, "payload is neither null nor an object");
      } else {
        check_payload_strings(*payload, at, facts, string_count, problems);
        auto type = member(*payload, "type");
        if (type && as_string(*type) == "Native allocation") {
          check_native_allocation(*payload, at, stack_count, problems);
        }
      }
    }
  }
}

}  // namespace

void check_payload_strings(element payload, const std::string& at, const ProfileFacts& facts,
                           size_t string_count, Problems& problems) {
  auto type = member(payload, "type");
  auto name = type ? as_string(*type) : std::nullopt;
  if (!name) return;
  auto it = facts.string_index_fields.find(*name);
  if (it == facts.string_index_fields.end()) return;
  for (const std::string& key : it->second) {
    auto v = member(payload, key);
    if (!v || v->is_null()) continue;
    auto index = as_index(*v);
    if (!index || *index >= string_count) {
      problems.add(at, "payload field " + key + " is not a valid string index");
    }
  }
}

void check_thread(element thread, const std::string& where, const ProfileFacts& facts,
                  Problems& problems) {
  if (thread.type() != simdjson::dom::element_type::OBJECT) {
    problems.add(where, "is not an object");
    return;
  }
  check_fields(thread, where, problems);
  const std::vector<std::string_view> strings = read_strings(thread, where, problems);
  const size_t frames = check_frames(thread, where, facts, strings, problems);
  const size_t stacks = check_stacks(thread, where, frames, problems);
  check_samples(thread, where, stacks, problems);
  check_markers(thread, where, facts, strings.size(), stacks, problems);
}

}  // namespace sprof::test::detail
