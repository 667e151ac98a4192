// Rust's legacy mangling: an Itanium-style nested name "_ZN" {<len><ident>} "E" whose last
// component is "h" + 16 hex digits (a hash). Identifiers escape punctuation as "$LT$" ("<"),
// "$GT$", "$RF$" ("&"), "$BP$" ("*"), "$SP$" ("@"), "$LP$", "$RP$", "$C$" (","), "$u7e$" (any
// code point in hex), ".." for "::", and a leading "_$" for a component starting with "$".
#include <cctype>
#include <charconv>
#include <vector>

#include "sprof/symbolicator/demangle.hpp"
#include "utf8.hpp"

namespace sprof::symbolicator {
namespace {

bool is_hash(std::string_view component) {
  if (component.size() != 17 || component[0] != 'h') return false;
  for (char c : component.substr(1)) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::optional<std::string> unescape(std::string_view component) {
  if (component.starts_with("_$")) component.remove_prefix(1);
  std::string out;
  while (!component.empty()) {
    if (component.starts_with("..")) {
      out += "::";
      component.remove_prefix(2);
    } else if (component[0] == '$') {
      const size_t end = component.find('$', 1);
      if (end == std::string_view::npos) return std::nullopt;
      const std::string_view code = component.substr(1, end - 1);
      component.remove_prefix(end + 1);
      if (code == "SP")
        out += '@';
      else if (code == "BP")
        out += '*';
      else if (code == "RF")
        out += '&';
      else if (code == "LT")
        out += '<';
      else if (code == "GT")
        out += '>';
      else if (code == "LP")
        out += '(';
      else if (code == "RP")
        out += ')';
      else if (code == "C")
        out += ',';
      else if (code.size() > 1 && code[0] == 'u') {
        uint32_t cp = 0;
        auto [ptr, ec] = std::from_chars(code.data() + 1, code.data() + code.size(), cp, 16);
        if (ec != std::errc() || ptr != code.data() + code.size() || cp > 0x10FFFF) {
          return std::nullopt;
        }
        detail::append_utf8(out, cp);
      } else {
        return std::nullopt;
      }
    } else {
      out += component[0];
      component.remove_prefix(1);
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> demangle_rust_legacy(std::string_view name) {
  if (!name.starts_with("_ZN")) return std::nullopt;
  std::string_view rest = name.substr(3);
  std::vector<std::string_view> components;
  while (!rest.empty() && rest[0] != 'E') {
    size_t len = 0;
    auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), len);
    if (ec != std::errc() || len == 0) return std::nullopt;
    rest.remove_prefix(static_cast<size_t>(ptr - rest.data()));
    if (len > rest.size()) return std::nullopt;
    components.push_back(rest.substr(0, len));
    rest.remove_prefix(len);
  }
  if (rest.empty() || components.size() < 2 || !is_hash(components.back())) return std::nullopt;
  rest.remove_prefix(1);  // 'E'
  components.pop_back();

  std::string out;
  for (size_t i = 0; i < components.size(); ++i) {
    auto part = unescape(components[i]);
    if (!part) return std::nullopt;
    if (i > 0) out += "::";
    out += *part;
  }
  // LLVM's ThinLTO suffix ".llvm.<hash>" is noise; other suffixes (".cold", ".0") are kept.
  if (!rest.starts_with(".llvm.")) out += rest;
  return out;
}

}  // namespace sprof::symbolicator
