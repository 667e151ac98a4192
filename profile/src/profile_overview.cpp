#include "sprof/profile/profile_overview.hpp"

#include <set>
#include <tuple>

#include "json_dom.hpp"
#include "profile_format.hpp"

namespace sprof::profile {

namespace {

using detail::array;
using detail::array_member;
using detail::as_double;
using detail::as_int;
using detail::as_string;
using detail::element;
using detail::member;

// Sub-profiles do not nest (docs/firefox-profiler-format.md, "Several processes"), but a hostile
// file could; bound the depth.
constexpr int kMaxProfileDepth = 8;
// A lib's field names a file or an id: one longer than any path (PATH_MAX) is neither, and is
// not copied (read_gecko_json refuses such a lib with its place).
constexpr size_t kMaxLibFieldBytes = 4096;

uint64_t count_of(std::optional<element> value) {
  const auto n = as_int(value);
  return n && *n > 0 ? static_cast<uint64_t>(*n) : 0;
}

class OverviewBuilder {
 public:
  explicit OverviewBuilder(ProfileOverview& out) : out_(out) {}

  void add_profile(element profile, int depth) {
    if (auto libs = array_member(profile, "libs")) {
      for (element lib : *libs) add_lib(lib);
    }
    add_threads(profile);
    if (depth >= kMaxProfileDepth) return;
    if (auto processes = array_member(profile, "processes")) {
      for (element sub : *processes) {
        if (sub.is_object()) add_profile(sub, depth + 1);
      }
    }
  }

  uint64_t distinct_pids() const { return pids_.size(); }

 private:
  void add_lib(element lib) {
    const std::string_view debug_name = as_string(member(lib, "debugName")).value_or("");
    const std::string_view breakpad_id = as_string(member(lib, "breakpadId")).value_or("");
    const std::string_view code_id = as_string(member(lib, "codeId")).value_or("");
    const std::string_view path = as_string(member(lib, "path")).value_or("");
    const std::string_view debug_path = as_string(member(lib, "debugPath")).value_or("");
    add_location(debug_name, breakpad_id, path, code_id);
    if (debug_path != path) add_location(debug_name, breakpad_id, debug_path, code_id);
  }

  void add_location(std::string_view debug_name, std::string_view breakpad_id,
                    std::string_view path, std::string_view code_id) {
    if (debug_name.empty() || breakpad_id.empty() || path.empty()) return;
    for (std::string_view field : {debug_name, breakpad_id, path, code_id}) {
      if (field.size() > kMaxLibFieldBytes) return;
    }
    if (!seen_.emplace(debug_name, breakpad_id, path).second) return;
    out_.libraries.push_back({std::string(debug_name), std::string(breakpad_id), std::string(path),
                              std::string(code_id)});
  }

  // One (sub)profile's threads and samples. Pids are collected because an exec'd process
  // appears as two sub-profiles with one pid, and a processed profile lists every process's
  // threads in one array.
  void add_threads(element profile) {
    auto threads = array_member(profile, "threads");
    if (!threads) return;
    for (element thread : *threads) {
      ++out_.threads;
      if (auto pid = as_int(member(thread, "pid"))) pids_.insert(*pid);
      auto samples = member(thread, "samples");
      if (!samples) continue;
      // Gecko tables hold rows under `data`; processed ones count them in `length`.
      if (auto data = array_member(*samples, "data")) {
        out_.samples += data->size();
      } else {
        out_.samples += count_of(member(*samples, "length"));
      }
    }
  }

  ProfileOverview& out_;
  std::set<int64_t> pids_;
  // Views into the parsed document, which outlives the builder.
  std::set<std::tuple<std::string_view, std::string_view, std::string_view>> seen_;
};

}  // namespace

Result<ProfileOverview> read_profile_overview(std::string_view json) {
  simdjson::dom::parser parser;
  element root;
  if (auto error = parser.parse(simdjson::padded_string(json)).get(root)) {
    return detail::json_parse_error("profile", error);
  }
  ProfileOverview overview;
  overview.format = detail::format_of(root);
  if (!root.is_object()) return overview;
  if (auto meta = member(root, "meta")) {
    overview.product = std::string(as_string(member(*meta, "product")).value_or(""));
    overview.duration_s = (as_double(member(*meta, "profilingEndTime")).value_or(0) -
                           as_double(member(*meta, "profilingStartTime")).value_or(0)) /
                          1000.0;
    if (auto sprof = member(*meta, "sprof")) {
      overview.lost =
          count_of(member(*sprof, "lostRecords")) + count_of(member(*sprof, "lostSamples"));
    }
  }
  OverviewBuilder builder(overview);
  builder.add_profile(root, 0);
  overview.processes = builder.distinct_pids();
  return overview;
}

}  // namespace sprof::profile
