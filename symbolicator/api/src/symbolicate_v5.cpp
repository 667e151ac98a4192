#include "symbolicate_v5.hpp"

#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "json_reply.hpp"
#include "sprof/core/json_writer.hpp"
#include "sprof/core/log.hpp"
#include "symbolicate_v5_request.hpp"

namespace sprof::api::detail {

namespace {

using symbolicator::SymbolInfo;
using symbolicator::SymbolMap;
using MapPtr = std::shared_ptr<const SymbolMap>;

// Optional keys are written only when known: the front end's validator rejects the whole reply
// for a single `null` (contract section 5.3).
void write_symbol(JsonWriter& out, uint64_t address, const SymbolInfo& info) {
  if (!info.function.empty() && address >= info.function_start) {
    // `function` and `function_offset` together are what makes a frame count as symbolicated.
    out.field("function", info.function);
    out.field("function_offset", Hex(address - info.function_start).view());
    if (info.function_size > 0) out.field("function_size", Hex(info.function_size).view());
  }
  if (!info.file.empty()) out.field("file", info.file);
  if (info.line > 0) out.field("line", info.line);
  if (info.inlines.empty()) return;
  out.key("inlines").begin_array();
  for (const auto& inlined : info.inlines) {  // already innermost first
    out.begin_object();
    if (!inlined.function.empty()) out.field("function", inlined.function);
    if (!inlined.file.empty()) out.field("file", inlined.file);
    if (inlined.line > 0) out.field("line", inlined.line);
    out.end_object();
  }
  out.end_array();
}

void write_frame(JsonWriter& out, size_t index, const V5Frame& frame, const V5Job& job,
                 const std::vector<MapPtr>& maps) {
  // `frame`, `module` and `module_offset` are required in every frame (contract section 5.3);
  // a frame whose index names no module gets an empty module name rather than none.
  const bool has_module = frame.module_index >= 0;
  const auto module_index = static_cast<size_t>(frame.module_index);
  out.begin_object();
  out.field("frame", static_cast<uint64_t>(index));
  out.field("module", has_module ? job.modules[module_index].debug_name : std::string_view());
  out.field("module_offset", Hex(frame.offset).view());
  if (has_module && maps[module_index]) {
    if (auto info = maps[module_index]->lookup(RelativeAddress{frame.offset})) {
      write_symbol(out, frame.offset, *info);
    }
  }
  out.end_object();
}

// Each module of the job is resolved once; the source caches across requests.
std::vector<MapPtr> resolve_modules(ModuleSource& modules, const V5Job& job) {
  std::vector<MapPtr> maps;
  maps.reserve(job.modules.size());
  for (const auto& module : job.modules) {
    auto map = modules.module(std::string(module.debug_name), std::string(module.breakpad_id));
    if (map && *map) {
      maps.push_back(std::move(*map));
    } else {
      if (!map) log::debug("symbolicate/v5: " + map.error().message);
      maps.push_back(nullptr);
    }
  }
  return maps;
}

void write_job(JsonWriter& out, ModuleSource& modules, const V5Job& job) {
  const std::vector<MapPtr> maps = resolve_modules(modules, job);
  out.begin_object();
  out.key("stacks").begin_array();
  size_t begin = 0;
  for (const size_t end : job.stack_ends) {
    out.begin_array();
    for (size_t i = begin; i < end; ++i) write_frame(out, i - begin, job.frames[i], job, maps);
    out.end_array();
    begin = end;
  }
  out.end_array();
  // The key must be exactly "<debugName>/<breakpadId>" as requested, and `true` when we have
  // symbols; a repeated module is reported once.
  out.key("found_modules").begin_object();
  std::unordered_set<std::string> written;
  for (size_t i = 0; i < job.modules.size(); ++i) {
    std::string key = std::string(job.modules[i].debug_name) + "/" +
                      std::string(job.modules[i].breakpad_id);
    if (!written.insert(key).second) continue;
    out.field(key, maps[i] != nullptr);
  }
  out.end_object();
  out.end_object();
}

}  // namespace

HttpReply symbolicate_v5(ModuleSource& modules, simdjson::dom::element root) {
  auto jobs = parse_v5_request(root);
  if (!jobs) return reply_for_error(jobs.error());

  JsonWriter out;
  out.begin_object().key("results").begin_array();
  for (const auto& job : *jobs) write_job(out, modules, job);
  out.end_array().end_object();
  return HttpReply{200, "application/json", out.take()};
}

}  // namespace sprof::api::detail
