#include "profile_format.hpp"

namespace sprof::profile {

namespace detail {

namespace {

// simdjson's own texts name its internals ("tape"); these say what is wrong with the file.
std::string describe(simdjson::error_code error) {
  switch (error) {
    case simdjson::MEMALLOC: return "not enough memory to parse its JSON";
    case simdjson::CAPACITY: return "its JSON is larger than the parser takes (4 GiB)";
    case simdjson::DEPTH_ERROR: return "nested more than 1024 levels deep";
    case simdjson::EMPTY: return "empty";
    case simdjson::UTF8_ERROR: return "not valid UTF-8";
    case simdjson::STRING_ERROR: return "a string has an invalid escape or a lone UTF-16 surrogate";
    case simdjson::UNCLOSED_STRING: return "a string is not closed";
    case simdjson::UNESCAPED_CHARS: return "a string holds an unescaped control character";
    case simdjson::NUMBER_ERROR:
      return "a number is malformed or out of range (an integer of 2^64 or more, or beyond a "
             "double's range)";
    case simdjson::T_ATOM_ERROR:
    case simdjson::F_ATOM_ERROR:
    case simdjson::N_ATOM_ERROR: return "a misspelled true, false or null";
    case simdjson::TAPE_ERROR:
      return "not well-formed: a missing or extra comma, bracket or brace, text after the end, "
             "or a word JSON does not have (such as NaN or Infinity)";
    default: return simdjson::error_message(error);
  }
}

}  // namespace

Error json_parse_error(std::string_view what, simdjson::error_code error) {
  const bool out_of_room = error == simdjson::MEMALLOC || error == simdjson::CAPACITY;
  if (out_of_room) return Error{Errc::kTooLarge, std::string(what) + ": " + describe(error)};
  return Error{Errc::kMalformed, std::string(what) + ": not valid JSON: " + describe(error)};
}

ProfileFormat format_of(element root) {
  auto meta = member(root, "meta");
  if (!meta || meta->type() != simdjson::dom::element_type::OBJECT) return ProfileFormat::kUnknown;
  if (as_double(member(*meta, "preprocessedProfileVersion"))) return ProfileFormat::kProcessed;
  if (as_double(member(*meta, "version"))) return ProfileFormat::kGecko;
  return ProfileFormat::kUnknown;
}

}  // namespace detail

Result<ProfileFormat> identify_profile_format(std::string_view json) {
  simdjson::dom::parser parser;
  detail::element root;
  if (auto error = parser.parse(simdjson::padded_string(json)).get(root)) {
    return detail::json_parse_error("profile", error);
  }
  return detail::format_of(root);
}

ProfileFormat detect_profile_format(std::string_view json) {
  return identify_profile_format(json).value_or(ProfileFormat::kUnknown);
}

}  // namespace sprof::profile
