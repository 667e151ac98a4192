// Whether a request's header says where its body ends in a way this server can rely on
// (RFC 9112 section 6). Beast accepts some framings a proxy in front of sprof could read
// differently, e.g. "Transfer-Encoding: xchunked" with a Content-Length (Beast then uses the
// length) or "chunked, gzip" (chunked not last): the bytes after such a request could be taken
// as the next request (request smuggling). Those requests get 400 and the connection is closed
// after the response, as section 6.3 requires. Pure; used by the session before it reads a body.
#pragma once

#include <optional>
#include <string>

#include "sprof/server/router.hpp"

namespace sprof::server::detail {

// Why the framing of `request` is unusable, or nullopt when it is fine. `http_version` is 10 or
// 11. Rejected: any Transfer-Encoding in HTTP/1.0 (section 6.1), Transfer-Encoding together
// with Content-Length (6.1), and a Transfer-Encoding other than exactly "chunked" (6.3: chunked
// must be the final coding; sprof decodes no other coding, and chunked may appear once).
std::optional<std::string> unusable_framing(const Request& request, unsigned http_version);

}  // namespace sprof::server::detail
