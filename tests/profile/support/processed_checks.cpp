// The processed-format checks (sprof_test/processed_validator.hpp).
#include <cmath>
#include <map>
#include <set>

#include "sprof_test/processed_validator.hpp"
#include "validator_context.hpp"

namespace sprof::test {

namespace {

using detail::array;
using detail::element;
using detail::Problems;
using detail::ProfileFacts;

// A processed table: an object of column arrays plus `length`. Columns are read into vectors of
// elements once (simdjson's array indexing is linear).
class Columns {
 public:
  Columns(element thread, std::string_view name, const std::vector<std::string_view>& required,
          const std::string& where, Problems& problems)
      : where_(where + "." + std::string(name)) {
    auto table = detail::member(thread, name);
    auto length = table ? detail::member(*table, "length") : std::nullopt;
    auto n = length ? detail::as_index(*length) : std::nullopt;
    if (!table || !n) {
      problems.add(where_, "missing, or without a length");
      return;
    }
    length_ = *n;
    for (std::string_view key : required) {
      array values;
      if (!detail::array_member(*table, key, values)) {
        problems.add(where_, "lacks column " + std::string(key));
        continue;
      }
      std::vector<element>& column = columns_[std::string(key)];
      for (element v : values) column.push_back(v);
      if (column.size() != length_) {
        problems.add(where_ + "." + std::string(key), "has " + std::to_string(column.size()) +
                                                          " values for length " +
                                                          std::to_string(length_));
        if (column.size() > length_) column.resize(length_);
      }
    }
  }

  size_t length() const { return length_; }
  // nullopt for null, a missing column or a short one.
  std::optional<element> cell(std::string_view key, size_t row) const {
    auto it = columns_.find(key);
    if (it == columns_.end() || row >= it->second.size() || it->second[row].is_null()) {
      return std::nullopt;
    }
    return it->second[row];
  }
  std::string at(size_t row) const { return where_ + "[" + std::to_string(row) + "]"; }

 private:
  std::string where_;
  size_t length_ = 0;
  std::map<std::string, std::vector<element>, std::less<>> columns_;
};

std::optional<uint64_t> index_of(std::optional<element> e) {
  return e ? detail::as_index(*e) : std::nullopt;
}

bool index_below(std::optional<element> e, size_t limit) {
  auto v = index_of(e);
  return v && *v < limit;
}

bool null_or_index_below(std::optional<element> e, size_t limit) {
  return !e || index_below(e, limit);
}

bool valid_category(const ProfileFacts& facts, std::optional<element> category,
                    std::optional<element> subcategory) {
  auto c = category ? detail::as_index(*category) : std::nullopt;
  auto s = subcategory ? detail::as_index(*subcategory) : std::nullopt;
  return c && s && *c < facts.subcategory_counts.size() && *s < facts.subcategory_counts[*c];
}

std::optional<int64_t> as_int(std::optional<element> e) {
  int64_t v = 0;
  if (!e || e->get_int64().get(v) != simdjson::SUCCESS) return std::nullopt;
  return v;
}

void check_thread_fields(element thread, const std::string& where, Problems& problems) {
  for (std::string_view key : {"name", "processType", "processName"}) {
    auto v = detail::member(thread, key);
    if (!v || !detail::as_string(*v)) problems.add(where, std::string(key) + " is not a string");
  }
  for (std::string_view key : {"pid", "tid"}) {
    auto v = detail::member(thread, key);
    if (!v || !detail::is_integer(*v)) problems.add(where, std::string(key) + " is not an integer");
  }
  for (std::string_view key : {"registerTime", "processStartupTime"}) {
    auto v = detail::member(thread, key);
    if (!v || !detail::as_number(*v)) problems.add(where, std::string(key) + " is not a number");
  }
  for (std::string_view key : {"unregisterTime", "processShutdownTime"}) {
    auto v = detail::member(thread, key);
    if (!v || !(v->is_null() || detail::as_number(*v))) {
      problems.add(where, std::string(key) + " is neither a number nor null");
    }
  }
  array paused;
  if (!detail::array_member(thread, "pausedRanges", paused)) {
    problems.add(where, "pausedRanges is not an array");
  }
  if (detail::member(thread, "stringTable")) {
    problems.add(where, "has a Gecko stringTable (a processed thread has stringArray)");
  }
}

struct ThreadCounts {
  size_t strings = 0, frames = 0, funcs = 0, resources = 0, symbols = 0, stacks = 0;
};

void check_frames(const Columns& frames, const ThreadCounts& n, const ProfileFacts& facts,
                  Problems& problems) {
  for (size_t i = 0; i < frames.length(); ++i) {
    const auto address = as_int(frames.cell("address", i));
    if (!address || *address < -1) problems.add(frames.at(i), "address is not an integer >= -1");
    if (!index_below(frames.cell("inlineDepth", i), 256)) {
      problems.add(frames.at(i), "inlineDepth is not an integer in 0..255");
    }
    if (!valid_category(facts, frames.cell("category", i), frames.cell("subcategory", i))) {
      problems.add(frames.at(i), "invalid category/subcategory");
    }
    if (!index_below(frames.cell("func", i), n.funcs)) problems.add(frames.at(i), "invalid func");
    if (!null_or_index_below(frames.cell("nativeSymbol", i), n.symbols)) {
      problems.add(frames.at(i), "invalid nativeSymbol");
    }
    auto line = frames.cell("line", i);
    if (line && !index_below(line, UINT32_MAX))
      problems.add(frames.at(i), "line is not an integer");
  }
}

void check_funcs(const Columns& funcs, const ThreadCounts& n, Problems& problems) {
  for (size_t i = 0; i < funcs.length(); ++i) {
    if (!index_below(funcs.cell("name", i), n.strings)) problems.add(funcs.at(i), "invalid name");
    if (!null_or_index_below(funcs.cell("fileName", i), n.strings)) {
      problems.add(funcs.at(i), "invalid fileName");
    }
    const auto resource = as_int(funcs.cell("resource", i));
    if (!resource || *resource < -1 || *resource >= static_cast<int64_t>(n.resources)) {
      problems.add(funcs.at(i), "resource is neither -1 nor a valid index");
    }
    for (std::string_view key : {"isJS", "relevantForJS"}) {
      auto v = funcs.cell(key, i);
      bool b = false;
      if (!v || v->get_bool().get(b) != simdjson::SUCCESS) {
        problems.add(funcs.at(i), std::string(key) + " is not a boolean");
      }
    }
  }
}

void check_resources_and_symbols(const Columns& resources, const Columns& symbols,
                                 const ThreadCounts& n, size_t lib_count, Problems& problems) {
  for (size_t i = 0; i < resources.length(); ++i) {
    if (!null_or_index_below(resources.cell("lib", i), lib_count)) {
      problems.add(resources.at(i), "lib is neither null nor a valid lib index");
    }
    if (!index_below(resources.cell("name", i), n.strings)) {
      problems.add(resources.at(i), "invalid name");
    }
  }
  std::set<std::pair<uint64_t, uint64_t>> seen;
  for (size_t i = 0; i < symbols.length(); ++i) {
    auto lib = symbols.cell("libIndex", i);
    auto address = symbols.cell("address", i);
    if (!index_below(lib, lib_count)) problems.add(symbols.at(i), "invalid libIndex");
    if (!index_below(address, UINT64_MAX)) problems.add(symbols.at(i), "address is not >= 0");
    if (!index_below(symbols.cell("name", i), n.strings))
      problems.add(symbols.at(i), "invalid name");
    if (auto size = symbols.cell("functionSize", i); size && !index_below(size, UINT64_MAX)) {
      problems.add(symbols.at(i), "functionSize is neither null nor an integer");
    }
    if (index_of(lib) && index_of(address) &&
        !seen.emplace(*index_of(lib), *index_of(address)).second) {
      problems.add(symbols.at(i), "repeats the (lib, address) of an earlier symbol");
    }
  }
}

// Stacks are topological, and an inline frame (depth d > 0) sits directly under a frame of the
// same address and native symbol at depth d - 1, as symbolication builds them.
void check_stacks(const Columns& stacks, const Columns& frames, const ThreadCounts& n,
                  const ProfileFacts& facts, Problems& problems) {
  for (size_t i = 0; i < stacks.length(); ++i) {
    auto frame = stacks.cell("frame", i);
    if (!index_below(frame, n.frames)) {
      problems.add(stacks.at(i), "invalid frame");
      continue;
    }
    auto prefix = stacks.cell("prefix", i);
    if (prefix && !index_below(prefix, i)) problems.add(stacks.at(i), "prefix is not < its index");
    if (!valid_category(facts, stacks.cell("category", i), stacks.cell("subcategory", i))) {
      problems.add(stacks.at(i), "invalid category/subcategory");
    }
    const uint64_t f = *index_of(frame);
    const auto depth = index_of(frames.cell("inlineDepth", f));
    if (!depth || *depth == 0) continue;
    const auto parent_frame =
        index_below(prefix, i) ? stacks.cell("frame", *index_of(prefix)) : std::nullopt;
    const auto p = index_of(parent_frame);
    const auto parent_depth = p ? index_of(frames.cell("inlineDepth", *p)) : std::nullopt;
    if (!p || parent_depth != *depth - 1 ||
        as_int(frames.cell("address", *p)) != as_int(frames.cell("address", f)) ||
        as_int(frames.cell("nativeSymbol", *p)) != as_int(frames.cell("nativeSymbol", f))) {
      problems.add(stacks.at(i), "inline frame is not under its address's frame one depth up");
    }
  }
}

void check_samples(element thread, const std::string& where, size_t stack_count,
                   Problems& problems) {
  const Columns samples(thread, "samples", {"stack", "time"}, where, problems);
  auto weight_type = detail::member(thread, "samples");
  auto type = weight_type ? detail::member(*weight_type, "weightType") : std::nullopt;
  if (!type || detail::as_string(*type) != "samples") {
    problems.add(where + ".samples", "weightType is not \"samples\"");
  }
  double previous = -INFINITY;
  for (size_t i = 0; i < samples.length(); ++i) {
    if (!null_or_index_below(samples.cell("stack", i), stack_count)) {
      problems.add(samples.at(i), "stack is neither null nor a valid index");
    }
    auto time = samples.cell("time", i);
    auto ms = time ? detail::as_number(*time) : std::nullopt;
    if (!ms) {
      problems.add(samples.at(i), "time is not a number");
    } else {
      if (*ms < previous) problems.add(samples.at(i), "time decreases");
      previous = *ms;
    }
  }
  auto table = detail::member(thread, "samples");
  if (table && detail::member(*table, "threadCPUDelta")) {
    const Columns cpu(thread, "samples", {"threadCPUDelta"}, where, problems);
    for (size_t i = 0; i < cpu.length(); ++i) {
      if (auto d = cpu.cell("threadCPUDelta", i); d && !detail::as_index(*d)) {
        problems.add(cpu.at(i), "threadCPUDelta is not an integer >= 0");
      }
    }
  }
}

void check_markers(element thread, const std::string& where, const ProfileFacts& facts,
                   size_t string_count, Problems& problems) {
  const Columns markers(thread, "markers",
                        {"data", "name", "startTime", "endTime", "phase", "category"}, where,
                        problems);
  for (size_t i = 0; i < markers.length(); ++i) {
    if (!index_below(markers.cell("name", i), string_count)) {
      problems.add(markers.at(i), "name is not a valid string index");
    }
    const auto phase = index_of(markers.cell("phase", i));
    static constexpr bool kStart[] = {true, true, true, false};
    static constexpr bool kEnd[] = {false, true, false, true};
    const bool has_start = markers.cell("startTime", i).has_value();
    const bool has_end = markers.cell("endTime", i).has_value();
    if (!phase || *phase > 3) {
      problems.add(markers.at(i), "phase is not 0..3");
    } else if (has_start != kStart[*phase] || has_end != kEnd[*phase]) {
      problems.add(markers.at(i), "start/end time nullness does not match the phase");
    }
    if (!index_below(markers.cell("category", i), facts.subcategory_counts.size())) {
      problems.add(markers.at(i), "invalid category");
    }
    if (auto payload = markers.cell("data", i)) {
      if (payload->type() != simdjson::dom::element_type::OBJECT) {
        problems.add(markers.at(i), "payload is neither null nor an object");
      } else {
        detail::check_payload_strings(*payload, markers.at(i), facts, string_count, problems);
      }
    }
  }
}

// The balanced native-allocations table of version 42, when the thread has one: every column
// as long as the table, byte weights, stacks null or in the stack table.
void check_native_allocations(element thread, const std::string& where, size_t stack_count,
                              Problems& problems) {
  auto table = detail::member(thread, "nativeAllocations");
  if (!table) return;
  const Columns rows(thread, "nativeAllocations",
                     {"time", "weight", "stack", "memoryAddress", "threadId"}, where, problems);
  auto weight_type = detail::member(*table, "weightType");
  if (!weight_type || detail::as_string(*weight_type) != "bytes") {
    problems.add(where + ".nativeAllocations", "weightType is not \"bytes\"");
  }
  for (size_t i = 0; i < rows.length(); ++i) {
    if (auto stack = rows.cell("stack", i); stack && !index_below(stack, stack_count)) {
      problems.add(rows.at(i), "stack is neither null nor a valid index");
    }
    for (std::string_view key : {"time", "weight", "memoryAddress", "threadId"}) {
      auto v = rows.cell(key, i);
      if (!v || !detail::as_number(*v))
        problems.add(rows.at(i), std::string(key) + " is not a number");
    }
  }
}

// Version 42's counters: each names a thread of `threads` and holds one sample group.
void check_counters(element root, size_t thread_count, Problems& problems) {
  array counters;
  if (!detail::member(root, "counters")) return;
  if (!detail::array_member(root, "counters", counters)) {
    problems.add("top", "counters is not an array");
    return;
  }
  size_t i = 0;
  for (element counter : counters) {
    const std::string at = "counters[" + std::to_string(i++) + "]";
    if (!index_below(detail::member(counter, "mainThreadIndex"), thread_count)) {
      problems.add(at, "mainThreadIndex is not a thread index");
    }
    array groups;
    element group;
    if (!detail::array_member(counter, "sampleGroups", groups) ||
        groups.at(0).get(group) != simdjson::SUCCESS) {
      problems.add(at, "has no sample group");
      continue;
    }
    const Columns samples(group, "samples", {"time", "number", "count"}, at + ".sampleGroups[0]",
                          problems);
    for (size_t row = 0; row < samples.length(); ++row) {
      for (std::string_view key : {"time", "number", "count"}) {
        auto v = samples.cell(key, row);
        if (!v || !detail::as_number(*v))
          problems.add(samples.at(row), std::string(key) + " is not a number");
      }
    }
  }
}

void check_thread(element thread, const std::string& where, const ProfileFacts& facts,
                  size_t lib_count, Problems& problems) {
  if (thread.type() != simdjson::dom::element_type::OBJECT) {
    problems.add(where, "is not an object");
    return;
  }
  check_thread_fields(thread, where, problems);
  ThreadCounts n;
  array strings;
  if (!detail::array_member(thread, "stringArray", strings)) {
    problems.add(where, "stringArray is not an array");
  } else {
    for (element s : strings) {
      if (!detail::as_string(s)) problems.add(where + ".stringArray", "holds a non-string");
    }
    n.strings = strings.size();
  }
  const Columns frames(thread, "frameTable",
                       {"address", "inlineDepth", "category", "subcategory", "func", "nativeSymbol",
                        "innerWindowID", "implementation", "line", "column", "optimizations"},
                       where, problems);
  const Columns funcs(
      thread, "funcTable",
      {"name", "isJS", "relevantForJS", "resource", "fileName", "lineNumber", "columnNumber"},
      where, problems);
  const Columns resources(thread, "resourceTable", {"lib", "name", "host", "type"}, where,
                          problems);
  const Columns symbols(thread, "nativeSymbols", {"libIndex", "address", "name", "functionSize"},
                        where, problems);
  const Columns stacks(thread, "stackTable", {"frame", "category", "subcategory", "prefix"}, where,
                       problems);
  n.frames = frames.length();
  n.funcs = funcs.length();
  n.resources = resources.length();
  n.symbols = symbols.length();
  n.stacks = stacks.length();
  check_frames(frames, n, facts, problems);
  check_funcs(funcs, n, problems);
  check_resources_and_symbols(resources, symbols, n, lib_count, problems);
  check_stacks(stacks, frames, n, facts, problems);
  check_samples(thread, where, n.stacks, problems);
  check_markers(thread, where, facts, n.strings, problems);
  check_native_allocations(thread, where, n.stacks, problems);
}

size_t check_libs(element root, Problems& problems) {
  array libs;
  if (!detail::array_member(root, "libs", libs)) {
    problems.add("top", "libs is not an array");
    return 0;
  }
  std::set<std::string> keys;
  size_t i = 0;
  for (element lib : libs) {
    const std::string at = "libs[" + std::to_string(i++) + "]";
    detail::check_lib(lib, at, problems);
    for (std::string_view key : {"start", "end", "offset"}) {
      if (detail::member(lib, key)) problems.add(at, "has " + std::string(key) + " (a Gecko lib)");
    }
    auto name = detail::member(lib, "debugName");
    auto id = detail::member(lib, "breakpadId");
    if (name && id && detail::as_string(*name) && detail::as_string(*id) &&
        !keys.insert(std::string(*detail::as_string(*name)) + "/" +
                     std::string(*detail::as_string(*id)))
             .second) {
      problems.add(at, "repeats the debugName/breakpadId of an earlier lib");
    }
  }
  return libs.size();
}

}  // namespace

std::vector<std::string> check_processed_profile(std::string_view json,
                                                 const GeckoCheckOptions& options) {
  Problems problems;
  simdjson::dom::parser parser;
  const auto document = detail::parse_document(json, parser, problems);
  if (!document) return problems.take();
  const element root = *document;
  element meta;
  if (root.at_key("meta").get(meta) != simdjson::SUCCESS ||
      meta.type() != simdjson::dom::element_type::OBJECT) {
    problems.add("document", "has no meta object");
    return problems.take();
  }
  if (as_int(detail::member(meta, "preprocessedProfileVersion")) != kExpectedProcessedVersion) {
    problems.add("meta",
                 "preprocessedProfileVersion is not " + std::to_string(kExpectedProcessedVersion));
  }
  bool symbolicated = false;
  if (meta.at_key("symbolicated").get(symbolicated) != simdjson::SUCCESS || !symbolicated) {
    problems.add("meta", "symbolicated is not true (the front end would ask a symbol server)");
  }
  if (!detail::member(meta, "version") || !detail::as_number(*detail::member(meta, "version"))) {
    problems.add("meta", "version is not a number");
  }
  detail::check_top_meta(meta, options, problems);
  ProfileFacts facts;
  facts.options = &options;
  detail::check_categories(meta, "meta", options, facts, problems);
  detail::check_marker_schema(meta, "meta", facts, problems);
  if (detail::member(root, "processes")) {
    problems.add("top", "has processes (processed profiles list every thread in threads)");
  }
  const size_t lib_count = check_libs(root, problems);
  array threads;
  if (!detail::array_member(root, "threads", threads)) {
    problems.add("top", "threads is not an array");
    return problems.take();
  }
  size_t i = 0;
  for (element thread : threads) {
    check_thread(thread, "threads[" + std::to_string(i++) + "]", facts, lib_count, problems);
  }
  check_counters(root, threads.size(), problems);
  return problems.take();
}

}  // namespace sprof::test
