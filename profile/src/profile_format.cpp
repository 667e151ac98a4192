#include "profile_format.hpp"

namespace sprof::profile {

namespace detail {

ProfileFormat format_of(element root) {
  auto meta = member(root, "meta");
  if (!meta || meta->type() != simdjson::dom::element_type::OBJECT) return ProfileFormat::kUnknown;
  if (as_double(member(*meta, "preprocessedProfileVersion"))) return ProfileFormat::kProcessed;
  if (as_double(member(*meta, "version"))) return ProfileFormat::kGecko;
  return ProfileFormat::kUnknown;
}

}  // namespace detail

ProfileFormat detect_profile_format(std::string_view json) {
  simdjson::dom::parser parser;
  detail::element root;
  if (parser.parse(simdjson::padded_string(json)).get(root) != simdjson::SUCCESS) {
    return ProfileFormat::kUnknown;
  }
  return detail::format_of(root);
}

}  // namespace sprof::profile
