#include "sprof/core/http_reply.hpp"

namespace sprof {

std::string take_whole_body(HttpReply& reply) {
  if (!reply.body_producer) return std::move(reply.body);
  std::string body;
  std::string part;
  for (bool more = true; more;) {
    part.clear();
    more = reply.body_producer(part);
    body += part;
  }
  reply.body_producer = nullptr;
  return body;
}

}  // namespace sprof
