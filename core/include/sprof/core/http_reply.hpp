// sprof/core/http_reply.hpp
//
// What an HTTP endpoint answers: a status, a content type and a body, either whole or produced
// in parts. The symbolication API produces these and the HTTP server sends them; neither links
// the other, so the type they share lives here.
//
// A produced body (`body_producer`) lets a large answer (a /symbolicate/v5 reply for 200 k
// addresses is ~150 MB of JSON) go out in bounded memory: the server sends each part as it comes
// (chunked transfer coding) instead of holding the whole text.
#pragma once

#include <functional>
#include <string>
#include <utility>

namespace sprof {

// Appends the next part of a body to `out` (which the caller has emptied) and returns whether
// more parts follow. The caller makes one call at a time and no call after `false`; it may call
// from different threads in turn, and may stop early (the producer is then destroyed unfinished).
using BodyProducer = std::function<bool(std::string& out)>;

struct HttpReply {
  unsigned status = 200;
  std::string content_type = "application/json";  // empty means application/json
  std::string body;                               // the body, unless `body_producer` is set
  BodyProducer body_producer;  // when set, the body is what it produces; `body` is unused

  // A reply whose body is known whole.
  static HttpReply whole(unsigned status, std::string content_type, std::string body) {
    HttpReply reply;
    reply.status = status;
    reply.content_type = std::move(content_type);
    reply.body = std::move(body);
    return reply;
  }
};

// The whole body: `reply.body`, or everything its producer produces (the producer is consumed
// and cleared). For callers that want the text in one piece, such as tests.
std::string take_whole_body(HttpReply& reply);

}  // namespace sprof
