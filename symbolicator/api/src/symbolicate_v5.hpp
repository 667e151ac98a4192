// POST /symbolicate/v5 (docs/firefox-profiler-format.md, "symbolication API /symbolicate/v5"):
// Tecken's batch symbolication format.
#pragma once

#include <simdjson.h>

#include "sprof/api/http_reply.hpp"
#include "sprof/api/module_source.hpp"

namespace sprof::api::detail {

// Accepts {"jobs": [job, ...]} and, like Tecken, a bare job {memoryMap, stacks}. A job may list
// several modules and several stacks of [moduleIndex, offset] frames. The reply has one result per
// job and one reply stack per request stack, frames in request order. A valid request gets its
// reply as a body producer (sprof::HttpReply), which makes the symbol maps it needs ready on its
// first call and then writes a part at a time; it uses `modules` until it is finished or
// destroyed. An invalid request gets a whole 400 reply.
HttpReply symbolicate_v5(ModuleSource& modules, simdjson::dom::element root);

}  // namespace sprof::api::detail
