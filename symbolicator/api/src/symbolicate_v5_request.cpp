#include "symbolicate_v5_request.hpp"

#include <string>

namespace sprof::api::detail {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

Unexpected shape_error(const std::string& where, std::string_view expected) {
  return fail(Errc::kMalformed, where + " must be " + std::string(expected));
}

Result<std::vector<V5Module>> parse_memory_map(element value, const std::string& where) {
  array entries;
  if (value.get(entries)) return shape_error(where, "an array of [debugName, breakpadId]");
  std::vector<V5Module> modules;
  modules.reserve(entries.size());
  size_t i = 0;
  for (element entry : entries) {
    array pair;
    std::string_view debug_name;
    std::string_view breakpad_id;
    if (entry.get(pair) || pair.size() != 2 || pair.at(0).get(debug_name) ||
        pair.at(1).get(breakpad_id)) {
      return shape_error(where + "[" + std::to_string(i) + "]",
                         "a [debugName, breakpadId] pair of strings");
    }
    modules.push_back(V5Module{std::string(debug_name), std::string(breakpad_id)});
    ++i;
  }
  return modules;
}

// One [moduleIndex, offset] frame. Offsets are lib-relative addresses as decimal JSON integers
// (docs/firefox-profiler-format.md, "symbolication API /symbolicate/v5"); anything else is rejected
// rather than guessed at. Returns what was wrong (relative to the frame) or nullptr; no allocation
// on the success path, which runs once per requested address.
const char* parse_frame(element value, size_t module_count, V5Frame& frame) {
  array pair;
  if (value.get(pair) || pair.size() != 2) return " must be a [moduleIndex, offset] pair";
  const element index_element = pair.at(0).value_unsafe();
  const element offset_element = pair.at(1).value_unsafe();
  int64_t index = 0;
  uint64_t big_index = 0;
  if (!index_element.get(index)) {
    frame.module_index = index >= 0 && static_cast<uint64_t>(index) < module_count ? index : -1;
  } else if (!index_element.get(big_index)) {
    frame.module_index = -1;  // above INT64_MAX: merely out of range
  } else {
    return "[0] must be an integer module index";
  }
  if (offset_element.get(frame.offset)) return "[1] must be a non-negative integer offset";
  return nullptr;
}

Result<V5Job> parse_job(element value, const std::string& where) {
  object job_object;
  if (value.get(job_object)) return shape_error(where, "an object with memoryMap and stacks");
  element memory_map;
  element stacks_element;
  if (job_object["memoryMap"].get(memory_map)) return shape_error(where + ".memoryMap", "present");
  if (job_object["stacks"].get(stacks_element)) return shape_error(where + ".stacks", "present");

  V5Job job;
  SPROF_TRY(job.modules, parse_memory_map(memory_map, where + ".memoryMap"));
  array stacks;
  if (stacks_element.get(stacks)) return shape_error(where + ".stacks", "an array of stacks");
  job.stack_ends.reserve(stacks.size());
  size_t stack_index = 0;
  for (element stack_element : stacks) {
    array stack;
    if (stack_element.get(stack)) {
      return shape_error(where + ".stacks[" + std::to_string(stack_index) + "]",
                         "an array of frames");
    }
    job.frames.reserve(job.frames.size() + stack.size());
    size_t frame_index = 0;
    for (element frame_element : stack) {
      V5Frame frame;
      if (const char* problem = parse_frame(frame_element, job.modules.size(), frame)) {
        return fail(Errc::kMalformed, where + ".stacks[" + std::to_string(stack_index) + "][" +
                                          std::to_string(frame_index) + "]" + problem);
      }
      job.frames.push_back(frame);
      ++frame_index;
    }
    job.stack_ends.push_back(job.frames.size());
    ++stack_index;
  }
  return job;
}

}  // namespace

Result<std::vector<V5Job>> parse_v5_request(element root) {
  object request;
  if (root.get(request)) return shape_error("request body", "a JSON object");
  std::vector<V5Job> jobs;
  element jobs_element;
  if (request["jobs"].get(jobs_element)) {
    // Tecken also accepts a single job at the top level.
    SPROF_TRY(auto job, parse_job(root, "request"));
    jobs.push_back(std::move(job));
    return jobs;
  }
  array job_array;
  if (jobs_element.get(job_array)) return shape_error("jobs", "an array of jobs");
  jobs.reserve(job_array.size());
  size_t i = 0;
  for (element job_element : job_array) {
    SPROF_TRY(auto job, parse_job(job_element, "jobs[" + std::to_string(i) + "]"));
    jobs.push_back(std::move(job));
    ++i;
  }
  return jobs;
}

}  // namespace sprof::api::detail
