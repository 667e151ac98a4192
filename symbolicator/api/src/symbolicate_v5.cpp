#include "symbolicate_v5.hpp"

#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "json_reply.hpp"
#include "request_modules.hpp"
#include "sprof/core/json_writer.hpp"
#include "symbolicate_v5_request.hpp"

namespace sprof::api::detail {

namespace {

using symbolicator::SymbolInfo;

// Parts of about this size go to the server at a time: large enough that handing each over
// costs nothing next to writing it, small enough that a reply for any number of addresses
// stays out of the memory profile.
constexpr size_t kPartBytes = size_t{128} * 1024;

// Optional keys are written only when known: the front end's validator rejects the whole reply
// for a single `null` (docs/firefox-profiler-format.md, "symbolication API /symbolicate/v5").
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

// Writes the reply a part at a time: {"results": [{"stacks": [[frame, ...], ...],
// "found_modules": {...}}, ...]}, resuming where the last part ended.
class ReplyWriter {
 public:
  ReplyWriter(std::vector<V5Job> jobs, ModuleSource& source)
      : jobs_(std::move(jobs)),
        source_(source),
        json_([this](std::string_view text) { part_->append(text); }, kPartBytes) {}
  ReplyWriter(const ReplyWriter&) = delete;  // `json_` writes through `this`
  ReplyWriter& operator=(const ReplyWriter&) = delete;

  bool next(std::string& part) {
    part_ = &part;
    if (!started_) {
      // The symbol maps are made ready here rather than when the request is handled: by now
      // the request's parsed document is gone, and the reading that costs most memory does not
      // coincide with it.
      modules_.emplace(source_, jobs_);
      json_.begin_object().key("results").begin_array();
      started_ = true;
    }
    for (; job_ < jobs_.size(); ++job_) {
      if (!write_job()) {
        json_.flush();
        return true;
      }
    }
    json_.end_array().end_object();
    json_.flush();
    return false;
  }

 private:
  // Writes (the rest of) the current job; false when the part filled up first.
  bool write_job() {
    const V5Job& job = jobs_[job_];
    if (!job_open_) {
      json_.begin_object().key("stacks").begin_array();
      job_open_ = true;
      stack_ = 0;
      frame_ = 0;
    }
    for (; stack_ < job.stack_ends.size(); ++stack_) {
      if (!stack_open_) {
        json_.begin_array();
        stack_open_ = true;
      }
      const size_t stack_begin = stack_ == 0 ? 0 : job.stack_ends[stack_ - 1];
      while (frame_ < job.stack_ends[stack_]) {
        write_frame(job, frame_ - stack_begin, job.frames[frame_]);
        ++frame_;
        if (part_->size() >= kPartBytes) return false;
      }
      json_.end_array();
      stack_open_ = false;
    }
    json_.end_array();
    write_found_modules(job);
    json_.end_object();
    job_open_ = false;
    return true;
  }

  void write_frame(const V5Job& job, size_t index, const V5Frame& frame) {
    // `frame`, `module` and `module_offset` are required in every frame
    // (docs/firefox-profiler-format.md, "symbolication API /symbolicate/v5"); a frame whose index
    // names no module gets an empty module name rather than none.
    const bool has_module = frame.module_index >= 0;
    const auto module_index = static_cast<size_t>(frame.module_index);
    json_.begin_object();
    json_.field("frame", static_cast<uint64_t>(index));
    json_.field("module", has_module ? std::string_view(job.modules[module_index].debug_name)
                                     : std::string_view());
    json_.field("module_offset", Hex(frame.offset).view());
    if (has_module) {
      if (const auto& map = modules_->map(job_, module_index)) {
        if (auto info = map->lookup(RelativeAddress{frame.offset})) {
          write_symbol(json_, frame.offset, *info);
        }
      }
    }
    json_.end_object();
  }

  // The key must be exactly "<debugName>/<breakpadId>" as requested, and `true` when we have
  // symbols; a repeated module is reported once.
  void write_found_modules(const V5Job& job) {
    json_.key("found_modules").begin_object();
    std::unordered_set<std::string> written;
    for (size_t i = 0; i < job.modules.size(); ++i) {
      std::string key = job.modules[i].debug_name + "/" + job.modules[i].breakpad_id;
      if (!written.insert(key).second) continue;
      json_.field(key, modules_->map(job_, i) != nullptr);
    }
    json_.end_object();
  }

  std::vector<V5Job> jobs_;
  ModuleSource& source_;
  std::optional<RequestModules> modules_;  // made by the first call
  JsonWriter json_;
  std::string* part_ = nullptr;  // where the current call's output goes
  bool started_ = false;
  size_t job_ = 0;
  bool job_open_ = false;
  size_t stack_ = 0;  // in the current job
  bool stack_open_ = false;
  size_t frame_ = 0;  // in the current job's flat frames
};

}  // namespace

HttpReply symbolicate_v5(ModuleSource& modules, simdjson::dom::element root) {
  auto jobs = parse_v5_request(root);
  if (!jobs) return reply_for_error(jobs.error());
  auto writer = std::make_shared<ReplyWriter>(std::move(*jobs), modules);
  HttpReply reply;
  reply.body_producer = [writer](std::string& part) { return writer->next(part); };
  return reply;
}

}  // namespace sprof::api::detail
