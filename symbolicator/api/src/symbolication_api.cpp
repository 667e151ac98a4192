#include "sprof/api/symbolication_api.hpp"

#include <string>

#include "asm_v1.hpp"
#include "json_reply.hpp"
#include "request_fields.hpp"
#include "source_v1.hpp"
#include "symbolicate_v5.hpp"

namespace sprof::api {

namespace {

enum class Endpoint { kSymbolicateV5, kSourceV1, kAsmV1, kUnknown };

// "/symbolicate/v5", "symbolicate/v5/" and "//symbolicate//v5" all name the same endpoint:
// profiler-edit joins a trailing-slash server URL with "/symbolicate/v5"
// (docs/firefox-profiler-format.md, "from-url and symbolServer URLs").
Endpoint endpoint_of(std::string_view path) {
  std::string normalized;
  normalized.reserve(path.size());
  for (const char c : path) {
    if (c == '/' && (normalized.empty() || normalized.back() == '/')) continue;
    normalized.push_back(c);
  }
  if (!normalized.empty() && normalized.back() == '/') normalized.pop_back();
  if (normalized == "symbolicate/v5") return Endpoint::kSymbolicateV5;
  if (normalized == "source/v1") return Endpoint::kSourceV1;
  if (normalized == "asm/v1") return Endpoint::kAsmV1;
  return Endpoint::kUnknown;
}

}  // namespace

HttpReply SymbolicationApi::handle(std::string_view path, std::string_view body) {
  const Endpoint endpoint = endpoint_of(path);
  if (endpoint == Endpoint::kUnknown) {
    return detail::error_reply(404, "unknown API path " + std::string(path) +
                                        "; expected /symbolicate/v5, /source/v1 or /asm/v1");
  }
  auto root = detail::parse_request(body);
  if (!root) return detail::reply_for_error(root.error());
  HttpReply reply = detail::error_reply(404, "unknown API path");
  switch (endpoint) {
    case Endpoint::kSymbolicateV5: reply = detail::symbolicate_v5(modules_, *root); break;
    case Endpoint::kSourceV1: reply = detail::source_v1(modules_, *root); break;
    case Endpoint::kAsmV1: reply = detail::asm_v1(modules_, *root); break;
    case Endpoint::kUnknown: break;
  }
  // Every handler has copied what it needs out of the document.
  detail::release_large_request_buffers();
  return reply;
}

}  // namespace sprof::api
