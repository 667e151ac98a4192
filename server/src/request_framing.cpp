#include "request_framing.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include "ascii_case.hpp"

namespace sprof::server::detail {
namespace {

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The transfer codings of every Transfer-Encoding field, in order (fields combine as one list,
// RFC 9110 section 5.3). Empty list elements are skipped, as section 5.6.1 allows.
std::vector<std::string_view> transfer_codings(const Request& request, bool& present) {
  std::vector<std::string_view> codings;
  present = false;
  for (const HttpHeader& h : request.headers) {
    if (!iequals_ascii(h.name, "Transfer-Encoding")) continue;
    present = true;
    std::string_view list = h.value;
    while (!list.empty()) {
      const size_t comma = list.find(',');
      const std::string_view item = trim_ows(list.substr(0, comma));
      if (!item.empty()) codings.push_back(item);
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    }
  }
  return codings;
}

}  // namespace

std::optional<std::string> unusable_framing(const Request& request, unsigned http_version) {
  bool has_transfer_encoding = false;
  const auto codings = transfer_codings(request, has_transfer_encoding);
  if (!has_transfer_encoding) return std::nullopt;
  if (http_version < 11) return "Transfer-Encoding in an HTTP/1.0 request";
  if (request.header("Content-Length")) return "both Transfer-Encoding and Content-Length";
  if (codings.size() != 1 || !iequals_ascii(codings.front(), "chunked")) {
    return "Transfer-Encoding other than chunked alone";
  }
  return std::nullopt;
}

}  // namespace sprof::server::detail
