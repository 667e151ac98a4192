#include "json_reply.hpp"

#include <charconv>

#include "sprof/core/json_writer.hpp"

namespace sprof::api::detail {

Hex::Hex(uint64_t value) {
  chars_[0] = '0';
  chars_[1] = 'x';
  const auto result = std::to_chars(chars_.data() + 2, chars_.data() + chars_.size(), value, 16);
  size_ = static_cast<size_t>(result.ptr - chars_.data());
}

HttpReply error_reply(unsigned status, std::string_view message) {
  JsonWriter writer;
  writer.begin_object().field("error", message).end_object();
  return HttpReply::whole(status, "application/json", writer.take());
}

HttpReply reply_for_error(const Error& error) {
  switch (error.code) {
    case Errc::kMalformed:
    case Errc::kInvalidArgument:
    case Errc::kTooLarge: return error_reply(400, error.message);
    default: return error_reply(200, error.message);
  }
}

}  // namespace sprof::api::detail
