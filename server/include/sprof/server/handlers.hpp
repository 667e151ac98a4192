// sprof/server/handlers.hpp
//
// The seams through which the cli plugs content into the server without the server knowing about
// symbols or the web module: `ApiHandler` answers the POST APIs (symbolication, source, assembly),
// `ViewHandler` the pages made from the served profile (report, flame graph), and `AssetProvider`
// returns static files (the embedded page and stylesheet).
//
// Threading: the server calls `ApiHandler`, `ViewHandler` and the body producers of their replies
// on a small worker pool (possibly concurrently, from more than one thread), and `AssetProvider`
// on its io thread. All must be thread-safe; a body producer is called one part at a time.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "sprof/core/http_reply.hpp"

namespace sprof::server {

// What an API handler answers (core/http_reply.hpp). The server adds CORS and framing headers;
// a produced body goes out with chunked transfer coding (HTTP/1.1) or until the connection
// closes (HTTP/1.0), its producer called on the worker pool, one part at a time.
using HttpReply = sprof::HttpReply;

// `path` is the request path with the token prefix removed and repeated slashes collapsed, e.g.
// "/symbolicate/v5", "/source/v1" or "/asm/v1"; `body` is the raw request body (the Firefox
// Profiler sends JSON as text/plain).
using ApiHandler = std::function<HttpReply(std::string_view path, std::string_view body)>;

// Views of the served profile for a browser that cannot reach the Firefox Profiler
// (`GET /TOKEN/view/NAME`, e.g. "report.txt", "flamegraph.svg"): nullopt for a name it does not
// make. May be slow (it reads the whole profile), hence the worker pool.
using ViewHandler = std::function<std::optional<HttpReply>(std::string_view name)>;

// A static file served from memory. `bytes` must outlive the server (embedded data is static).
struct StaticAsset {
  std::string_view content_type;
  std::string_view bytes;
};

// Looks up an asset by name relative to the page, without a leading slash ("style.css").
// "index.html" is the page template (see page.hpp).
using AssetProvider = std::function<std::optional<StaticAsset>(std::string_view name)>;

}  // namespace sprof::server
