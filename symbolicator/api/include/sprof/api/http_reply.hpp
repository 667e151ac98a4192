// sprof/api/http_reply.hpp
//
// What an API endpoint answers: an HTTP status, a content type and a body. A plain value so the
// HTTP server (which never links the API) and the API agree on shape without sharing a header;
// the cli converts one into the other.
#pragma once

#include <string>

namespace sprof::api {

struct HttpReply {
  unsigned status = 200;
  std::string content_type = "application/json";
  std::string body;
};

}  // namespace sprof::api
