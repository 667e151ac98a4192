// sprof/api/http_reply.hpp
//
// What an API endpoint answers: sprof::HttpReply (core/http_reply.hpp), the same value the HTTP
// server sends, so the cli hands it over as it is. /symbolicate/v5 replies are produced in parts.
#pragma once

#include "sprof/core/http_reply.hpp"

namespace sprof::api {

using HttpReply = sprof::HttpReply;

}  // namespace sprof::api
