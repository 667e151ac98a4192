// sprof/api/symbolication_api.hpp
//
// The JSON API of sprof's symbol server, as the Firefox Profiler calls it
// (docs/firefox-profiler-format.md, "symbolication API /symbolicate/v5" to "/asm/v1"): request
// bytes in, {status, content type, JSON body} out. No HTTP, no sockets: the server hands over the
// path below its token and the POST body.
//
//   /symbolicate/v5  function names, offsets, sizes, files, lines and inline chains
//   /source/v1       a source file, only if symbolicating the given address names it
//   /asm/v1          x86-64 disassembly (Intel syntax) of a function in the module's binary
//
// Malformed requests get 400 with {"error": "..."} naming the problem; unknown paths 404.
// Anything the profiler can legitimately ask but we cannot answer (unknown module, file not
// permitted) gets 200: v5 with "found_modules": false, source/asm with {"error": "..."}.
//
// A /symbolicate/v5 reply comes as a body producer (sprof::HttpReply): its symbol maps are
// read and its JSON written as the producer is called, so the `ModuleSource` must outlive it.
//
// Threading: `handle` may run concurrently on several threads if the `ModuleSource` allows it.
#pragma once

#include <string_view>

#include "sprof/api/http_reply.hpp"
#include "sprof/api/module_source.hpp"

namespace sprof::api {

// Limits on what one request can make the server read or produce.
inline constexpr size_t kMaxSourceFileBytes = 16u << 20;
inline constexpr uint64_t kMaxDisassemblyBytes = 1u << 20;

class SymbolicationApi {
 public:
  explicit SymbolicationApi(ModuleSource& modules) : modules_(modules) {}

  // `path` is the API path, e.g. "/symbolicate/v5" (repeated or trailing slashes are tolerated).
  HttpReply handle(std::string_view path, std::string_view body);

 private:
  ModuleSource& modules_;
};

}  // namespace sprof::api
