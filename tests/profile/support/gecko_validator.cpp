// Contract §9.1 items 1-4 and 8: top level, meta, categories, libs and the process layout.
// Per-thread checks (items 5-7) are in thread_checks.cpp.
#include <cmath>
#include <set>

#include "sprof/core/build_id.hpp"
#include "validator_context.hpp"

namespace sprof::test {

namespace {

using detail::array;
using detail::element;
using detail::object;
using detail::Problems;
using detail::ProfileFacts;

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

// Fills `facts.subcategory_counts`; checks item 3.
void check_categories(element meta, const std::string& where, const GeckoCheckOptions& options,
                      ProfileFacts& facts, Problems& problems) {
  array categories;
  if (!detail::array_member(meta, "categories", categories)) {
    problems.add(where, "categories is not an array");
    return;
  }
  size_t grey = 0;
  size_t idle = 0;
  for (element c : categories) {
    auto name = detail::member(c, "name");
    auto color = detail::member(c, "color");
    array subcategories;
    const bool has_subs = detail::array_member(c, "subcategories", subcategories);
    if (!name || !detail::as_string(*name) || !color || !detail::as_string(*color)) {
      problems.add(where + ".categories", "entry without name or color");
    }
    if (color && detail::as_string(*color) == "grey") ++grey;
    if (name && detail::as_string(*name) == "Idle") ++idle;
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

// Checks item 2's schema rules; records which payload fields hold string indexes.
void check_marker_schema(element meta, const std::string& where, ProfileFacts& facts,
                         Problems& problems) {
  array schemas;
  if (!detail::array_member(meta, "markerSchema", schemas)) {
    problems.add(where, "markerSchema is not an array");
    return;
  }
  for (element schema : schemas) {
    auto name = detail::member(schema, "name");
    auto schema_name = name ? detail::as_string(*name) : std::nullopt;
    const std::string at = where + ".markerSchema[" + std::string(schema_name.value_or("?")) + "]";
    array fields;
    if (!schema_name) problems.add(at, "has no name");
    if (!detail::array_member(schema, "data", fields)) {
      problems.add(at, "has no data array (the Gecko name; `fields` fails the load)");
      continue;
    }
    std::vector<std::string> string_keys;
    for (element f : fields) {
      auto key = detail::member(f, "key");
      auto format = detail::member(f, "format");
      const bool dynamic = key && detail::as_string(*key) && format;
      const bool fixed = detail::member(f, "label") && detail::member(f, "value");
      if (!dynamic && !fixed) problems.add(at, "field is neither {key, format} nor {label, value}");
      auto format_name = format ? detail::as_string(*format) : std::nullopt;
      if (dynamic && (format_name == "unique-string" || format_name == "flow-id" ||
                      format_name == "terminating-flow-id")) {
        string_keys.emplace_back(*detail::as_string(*key));
      }
    }
    // The front end merges schemas across (sub)profiles, first one wins by name.
    if (schema_name) facts.string_index_fields.emplace(std::string(*schema_name), string_keys);
  }
}

void check_top_meta(element meta, const GeckoCheckOptions& options, Problems& problems) {
  auto start = detail::member(meta, "startTime");
  auto start_ms = start ? detail::as_number(*start) : std::nullopt;
  if (!start_ms || !std::isfinite(*start_ms)) problems.add("meta", "startTime is not a number");
  auto interval = detail::member(meta, "interval");
  auto interval_ms = interval ? detail::as_number(*interval) : std::nullopt;
  if (!interval_ms || !(*interval_ms > 0)) problems.add("meta", "interval is not > 0");
  auto ps = detail::member(meta, "profilingStartTime");
  auto pe = detail::member(meta, "profilingEndTime");
  if (ps || pe) {
    auto s = ps ? detail::as_number(*ps) : std::nullopt;
    auto e = pe ? detail::as_number(*pe) : std::nullopt;
    if (!s || !e || !(0 <= *s && *s < *e)) {
      problems.add("meta", "profilingStartTime/EndTime are not 0 <= start < end");
    }
  }
  if (options.expect_cpu_deltas) {
    object units;
    std::string_view time, delay, cpu;
    const bool ok = detail::object_member(meta, "sampleUnits", units) && units.size() == 3 &&
                    units["time"].get(time) == simdjson::SUCCESS && time == "ms" &&
                    units["eventDelay"].get(delay) == simdjson::SUCCESS && delay == "ms" &&
                    units["threadCPUDelta"].get(cpu) == simdjson::SUCCESS && cpu == "ns";
    if (!ok) problems.add("meta", "sampleUnits is not {time: ms, eventDelay: ms, threadCPUDelta: ns}");
  }
}

void check_lib(element lib, const std::string& at, Problems& problems) {
  auto debug_name = detail::member(lib, "debugName");
  auto dn = debug_name ? detail::as_string(*debug_name) : std::nullopt;
  if (!dn || dn->empty() || dn->find('/') != std::string_view::npos) {
    problems.add(at, "debugName is empty or contains '/'");
  }
  auto breakpad = detail::member(lib, "breakpadId");
  auto id = breakpad ? detail::as_string(*breakpad) : std::nullopt;
  if (!id || id->size() < 33 || !is_upper_hex(*id)) {
    problems.add(at, "breakpadId is not ^[0-9A-F]{32}[0-9A-F]+$");
  }
  auto code = detail::member(lib, "codeId");
  if (code && !code->is_null()) {
    auto code_id = detail::as_string(*code);
    if (!code_id || !is_lower_hex(*code_id)) {
      problems.add(at, "codeId is not lowercase hex");
    } else if (auto build_id = BuildId::from_hex(*code_id); id && build_id &&
               build_id->breakpad_id() != *id) {
      problems.add(at, "breakpadId " + std::string(*id) + " does not derive from codeId " +
                           std::string(*code_id));
    }
  }
}

// Item 4, for one (sub)profile.
void check_libs(element profile, const std::string& where, Problems& problems) {
  array libs;
  if (!detail::array_member(profile, "libs", libs)) {
    problems.add(where, "libs is not an array");
    return;
  }
  constexpr uint64_t kExactDoubleLimit = uint64_t{1} << 53;
  uint64_t previous_end = 0;
  size_t i = 0;
  for (element lib : libs) {
    const std::string at = where + ".libs[" + std::to_string(i++) + "]";
    auto s = detail::member(lib, "start");
    auto e = detail::member(lib, "end");
    auto start = s ? detail::as_index(*s) : std::nullopt;
    auto end = e ? detail::as_index(*e) : std::nullopt;
    auto offset = detail::member(lib, "offset");
    if (!start || !end || !offset || !detail::as_index(*offset)) {
      problems.add(at, "start, end or offset is not an unsigned integer");
    } else {
      if (*start >= *end) problems.add(at, "start >= end");
      if (*start < previous_end) problems.add(at, "unsorted or overlapping the previous lib");
      for (uint64_t v : {*start, *end}) {
        if (v >= kExactDoubleLimit && v % 4096 != 0) {
          problems.add(at, "value >= 2^53 is not a multiple of 4096: " + std::to_string(v));
        }
      }
      previous_end = *end;
    }
    check_lib(lib, at, problems);
  }
}

// Items 5-7 for each thread, and item 8's one-pid-per-(sub)profile.
void check_threads(element profile, const std::string& where, const ProfileFacts& facts,
                   Problems& problems) {
  array threads;
  if (!detail::array_member(profile, "threads", threads)) {
    problems.add(where, "threads is not an array");
    return;
  }
  std::set<int64_t> pids;
  size_t i = 0;
  for (element thread : threads) {
    detail::check_thread(thread, where + ".threads[" + std::to_string(i++) + "]", facts, problems);
    int64_t pid = 0;
    if (thread.at_key("pid").get(pid) == simdjson::SUCCESS) pids.insert(pid);
  }
  if (pids.size() > 1) problems.add(where, "threads of one (sub)profile have several pids");
}

// Everything but the meta fields that only the top level has. Returns `facts` with this
// (sub)profile's categories and marker schemas added.
ProfileFacts check_process(element profile, const std::string& where,
                           const GeckoCheckOptions& options, ProfileFacts facts,
                           Problems& problems) {
  element meta;
  if (profile.at_key("meta").get(meta) != simdjson::SUCCESS ||
      meta.type() != simdjson::dom::element_type::OBJECT) {
    problems.add(where, "has no meta object");
    return facts;
  }
  int64_t version = 0;
  if (meta.at_key("version").get(version) != simdjson::SUCCESS || version != 36) {
    problems.add(where + ".meta", "version is not 36");
  }
  if (detail::member(meta, "preprocessedProfileVersion")) {
    problems.add(where + ".meta", "has preprocessedProfileVersion (marks a processed profile)");
  }
  auto start = detail::member(meta, "startTime");
  if (!start || !detail::as_number(*start)) problems.add(where + ".meta", "startTime is not a number");
  auto shutdown = detail::member(meta, "shutdownTime");
  if (!shutdown || !(shutdown->is_null() || detail::as_number(*shutdown))) {
    problems.add(where + ".meta", "shutdownTime is neither a number nor null");
  }
  facts.subcategory_counts.clear();
  check_categories(meta, where + ".meta", options, facts, problems);
  check_marker_schema(meta, where + ".meta", facts, problems);
  array empty;
  for (std::string_view key : {"pausedRanges", "processes"}) {
    if (!detail::array_member(profile, key, empty)) {
      problems.add(where, std::string(key) + " is not an array");
    }
  }
  object sources;
  if (!detail::object_member(profile, "sources", sources)) problems.add(where, "sources missing");
  check_libs(profile, where, problems);
  check_threads(profile, where, facts, problems);
  return facts;
}

}  // namespace

std::vector<std::string> check_gecko_profile(std::string_view json,
                                             const GeckoCheckOptions& options) {
  Problems problems;
  simdjson::dom::parser parser;
  element root;
  // simdjson rejects invalid UTF-8, NaN and Infinity, so parsing covers that part of item 7.
  if (auto err = parser.parse(simdjson::padded_string(json)).get(root)) {
    problems.add("document", std::string("is not valid JSON: ") + simdjson::error_message(err));
    return problems.take();
  }
  if (root.type() != simdjson::dom::element_type::OBJECT) {
    problems.add("document", "is not an object");
    return problems.take();
  }
  ProfileFacts facts;
  facts.options = &options;
  element meta;
  if (root.at_key("meta").get(meta) == simdjson::SUCCESS) check_top_meta(meta, options, problems);
  // The top level's schemas are merged first and win (contract §2.11).
  facts = check_process(root, "top", options, facts, problems);

  array processes;
  if (!detail::array_member(root, "processes", processes)) return problems.take();
  size_t i = 0;
  for (element sub : processes) {
    const std::string where = "processes[" + std::to_string(i++) + "]";
    array nested;
    if (!detail::array_member(sub, "processes", nested) || nested.size() != 0) {
      problems.add(where, "processes is not [] (nested sub-profiles are ignored)");
    }
    facts = check_process(sub, where, options, facts, problems);
  }
  return problems.take();
}

}  // namespace sprof::test
