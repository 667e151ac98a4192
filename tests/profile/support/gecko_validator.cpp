// docs/firefox-profiler-format.md, "what the UI requires", items 1-4 and 8: top level, meta,
// categories, libs and the process layout. Per-thread checks (items 5-7) are in thread_checks.cpp;
// checks both formats share (meta, categories, marker schemas, lib identity) in meta_checks.cpp.
#include <cmath>
#include <set>

#include "validator_context.hpp"

namespace sprof::test {

namespace {

using detail::array;
using detail::element;
using detail::object;
using detail::Problems;
using detail::ProfileFacts;

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
      const uint64_t first = *start;
      const uint64_t last = *end;
      if (first >= last) problems.add(at, "start >= end");
      if (first < previous_end) problems.add(at, "unsorted or overlapping the previous lib");
      for (uint64_t v : {first, last}) {
        if (v >= kExactDoubleLimit && v % 4096 != 0) {
          problems.add(at, "value >= 2^53 is not a multiple of 4096: " + std::to_string(v));
        }
      }
      previous_end = last;
    }
    detail::check_lib(lib, at, problems);
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
  if (!start || !detail::as_number(*start))
    problems.add(where + ".meta", "startTime is not a number");
  auto shutdown = detail::member(meta, "shutdownTime");
  if (!shutdown || !(shutdown->is_null() || detail::as_number(*shutdown))) {
    problems.add(where + ".meta", "shutdownTime is neither a number nor null");
  }
  facts.subcategory_counts.clear();
  detail::check_categories(meta, where + ".meta", options, facts, problems);
  detail::check_marker_schema(meta, where + ".meta", facts, problems);
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
  const auto document = detail::parse_document(json, parser, problems);
  if (!document) return problems.take();
  const element root = *document;
  ProfileFacts facts;
  facts.options = &options;
  element meta;
  if (root.at_key("meta").get(meta) == simdjson::SUCCESS)
    detail::check_top_meta(meta, options, problems);
  // The top level's schemas are merged first and win (docs/firefox-profiler-format.md, "Marker
  // schemas").
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
