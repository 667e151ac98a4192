// POST /asm/v1 (docs/firefox-profiler-format.md, "/asm/v1"): disassembly of a function in the
// module's binary.
#pragma once

#include <simdjson.h>

#include "sprof/api/http_reply.hpp"
#include "sprof/api/module_source.hpp"

namespace sprof::api::detail {

// Request {debugName, debugId, startAddress, size, continueUntilFunctionEnd, name?, codeId?}.
// With continueUntilFunctionEnd (or size 0) the range extends to the end of the function that
// contains startAddress. Reply {startAddress, size, arch, syntax: ["Intel"], instructions:
// [[offset, text], ...]} with offsets on real instruction boundaries.
HttpReply asm_v1(ModuleSource& modules, simdjson::dom::element root);

}  // namespace sprof::api::detail
