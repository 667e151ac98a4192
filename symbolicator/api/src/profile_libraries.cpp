#include "sprof/api/profile_libraries.hpp"

#include <simdjson.h>

#include <set>
#include <tuple>
#include <utility>

namespace sprof::api {

namespace {

namespace ondemand = simdjson::ondemand;
using symbolicator::ModuleHint;

// Sub-profiles do not nest (docs/firefox-profiler-format.md, "Several processes"), but a malicious
// file could; bound the depth.
constexpr int kMaxProfileDepth = 8;
// A hint names a file: a path, name or id longer than any path (PATH_MAX) is not one, and is not
// copied (profile::read_gecko_json refuses such a lib with its place).
constexpr size_t kMaxHintFieldBytes = 4096;

class HintCollector {
 public:
  void add(std::string_view debug_name, std::string_view breakpad_id, std::string_view path,
           std::string_view code_id) {
    if (debug_name.empty() || breakpad_id.empty() || path.empty()) return;
    for (std::string_view field : {debug_name, breakpad_id, path, code_id}) {
      if (field.size() > kMaxHintFieldBytes) return;
    }
    ModuleHint hint{std::string(debug_name), std::string(breakpad_id), std::string(path),
                    std::string(code_id)};
    if (seen_.emplace(hint.debug_name, hint.breakpad_id, hint.path).second) {
      hints_.push_back(std::move(hint));
    }
  }
  std::vector<ModuleHint> take() { return std::move(hints_); }

 private:
  std::set<std::tuple<std::string, std::string, std::string>> seen_;
  std::vector<ModuleHint> hints_;
};

// Reads one lib object in whatever key order it has (on-demand parsing is forward-only).
simdjson::error_code collect_lib(ondemand::object lib, HintCollector& hints) {
  std::string_view debug_name, breakpad_id, path, debug_path, code_id;
  for (auto field_result : lib) {
    ondemand::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return error;
    std::string_view* target = key == "debugName"    ? &debug_name
                               : key == "breakpadId" ? &breakpad_id
                               : key == "path"       ? &path
                               : key == "debugPath"  ? &debug_path
                               : key == "codeId"     ? &code_id
                                                     : nullptr;
    // A non-string value (e.g. null) just leaves the field unknown. The view points into the
    // parser's string buffer, which stays valid for the whole document.
    if (target != nullptr && field.value().get_string().get(*target)) *target = {};
  }
  hints.add(debug_name, breakpad_id, path, code_id);
  if (debug_path != path) hints.add(debug_name, breakpad_id, debug_path, code_id);
  return simdjson::SUCCESS;
}

simdjson::error_code collect_profile(ondemand::object profile, int depth, HintCollector& hints) {
  for (auto field_result : profile) {
    ondemand::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return error;
    const bool is_libs = key == "libs";
    const bool is_processes = key == "processes" && depth < kMaxProfileDepth;
    if (!is_libs && !is_processes) continue;  // skipped without being parsed
    ondemand::array items;
    if (field.value().get_array().get(items)) continue;
    for (auto item_result : items) {
      ondemand::object item;
      if (auto error = item_result.get_object().get(item)) return error;
      const auto error =
          is_libs ? collect_lib(item, hints) : collect_profile(item, depth + 1, hints);
      if (error) return error;
    }
  }
  return simdjson::SUCCESS;
}

}  // namespace

std::vector<ModuleHint> library_hints_from_profile(std::string_view json) {
  HintCollector hints;
  const simdjson::padded_string padded(json);
  ondemand::parser parser;
  ondemand::document document;
  if (parser.iterate(padded).get(document)) return {};
  ondemand::object profile;
  if (document.get_object().get(profile)) return {};
  (void)collect_profile(profile, 0, hints);  // keep what was found before any error
  return hints.take();
}

}  // namespace sprof::api
