// POST /source/v1 (docs/firefox-profiler-format.md, "/source/v1"): the text of a source file, as
// samply serves it.
#pragma once

#include <simdjson.h>

#include "sprof/api/http_reply.hpp"
#include "sprof/api/module_source.hpp"

namespace sprof::api::detail {

// Request {debugName, debugId, moduleOffset, file}. The file is served only if symbolicating
// moduleOffset in that module yields `file` (outer or inline frame) and the module's debug info
// names it, so the endpoint cannot read arbitrary files. Reply {file, source}.
HttpReply source_v1(ModuleSource& modules, simdjson::dom::element root);

}  // namespace sprof::api::detail
