#include "sprof/symbolicator/function_name.hpp"

#include <array>

namespace sprof::symbolicator {
namespace {

constexpr std::string_view kCloneMarker = " [clone ";

// Suffix words GCC appends to the assembler names of function parts and specialised copies.
constexpr std::array<std::string_view, 6> kCloneWords = {"cold",      "part",     "isra",
                                                         "constprop", "lto_priv", "localalias"};

bool is_clone_word(std::string_view word) {
  for (std::string_view w : kCloneWords) {
    if (word == w) return true;
  }
  return !word.empty() && word.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

std::string_view without_clone_suffix(std::string_view name) {
  if (const size_t marker = name.find(kCloneMarker); marker != std::string_view::npos) {
    return name.substr(0, marker);
  }
  // A raw name "f.cold" / "f.isra.0.cold": every dot-separated word after the first dot that
  // starts a clone word must be a clone word or a number.
  for (size_t dot = name.find('.'); dot != std::string_view::npos && dot > 0;
       dot = name.find('.', dot + 1)) {
    std::string_view rest = name.substr(dot + 1);
    // The first word must be a clone word proper (not a number: "x.1" is a local's name).
    if (rest.empty() || rest.front() <= '9' || !is_clone_word(rest.substr(0, rest.find('.')))) {
      continue;
    }
    bool all = true;
    while (!rest.empty()) {
      const size_t end = rest.find('.');
      if (!is_clone_word(rest.substr(0, end))) {
        all = false;
        break;
      }
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    }
    if (all) return name.substr(0, dot);
  }
  return name;
}

}  // namespace sprof::symbolicator
