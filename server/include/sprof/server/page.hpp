// sprof/server/page.hpp
//
// The landing page is a template (web/assets/index.html) with {{NAME}} placeholders. The cli
// computes the values it knows (command, duration, counts); the server adds the URLs it only
// knows after binding (BASE_URL, PROFILE_URL, PROFILER_URL, SYMBOL_SERVER_URL, PROFILE_FILENAME).
// Values are plain text: substitution HTML-escapes them, so a command line cannot inject markup.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace sprof::server {

// Placeholder name (without braces, e.g. "COMMAND") -> plain-text value.
using PageInfo = std::map<std::string, std::string, std::less<>>;

// Escapes & < > " ' so the text is safe in element content and in quoted attribute values.
std::string html_escape(std::string_view text);

// Replaces every {{NAME}} in `page_template` with html_escape(values[NAME]). Unknown names become
// empty, so a page never shows raw braces; a "{{" without a closing "}}" is copied as is.
std::string render_page(std::string_view page_template, const PageInfo& values);

}  // namespace sprof::server
