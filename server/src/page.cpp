#include "sprof/server/page.hpp"

namespace sprof::server {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render_page(std::string_view page_template, const PageInfo& values) {
  constexpr std::string_view kOpen = "{{";
  constexpr std::string_view kClose = "}}";
  std::string out;
  out.reserve(page_template.size() + 1024);
  std::size_t pos = 0;
  while (pos < page_template.size()) {
    const std::size_t open = page_template.find(kOpen, pos);
    if (open == std::string_view::npos) break;
    const std::size_t close = page_template.find(kClose, open + kOpen.size());
    if (close == std::string_view::npos) break;
    out.append(page_template.substr(pos, open - pos));
    const std::string_view name =
        page_template.substr(open + kOpen.size(), close - open - kOpen.size());
    if (auto it = values.find(name); it != values.end()) out += html_escape(it->second);
    pos = close + kClose.size();
  }
  out.append(page_template.substr(pos));
  return out;
}

}  // namespace sprof::server
