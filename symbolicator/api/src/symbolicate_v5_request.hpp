// The /symbolicate/v5 request, validated up front so that a 400 never follows partial output.
// Copied out of the simdjson document (the reply is written after the document is gone): module
// names as strings, the frames of all stacks of a job flat, 16 bytes each.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"

namespace sprof::api::detail {

struct V5Module {
  std::string debug_name;
  std::string breakpad_id;
};

struct V5Frame {
  // Index into the job's memoryMap; -1 when the request's index names no module (negative or
  // out of range). Such frames are answered unsymbolicated, with an empty "module".
  int64_t module_index = -1;
  uint64_t offset = 0;
};

struct V5Job {
  std::vector<V5Module> modules;
  std::vector<V5Frame> frames;     // all stacks, concatenated
  std::vector<size_t> stack_ends;  // end index into `frames` of each stack
};

Result<std::vector<V5Job>> parse_v5_request(simdjson::dom::element root);

}  // namespace sprof::api::detail
