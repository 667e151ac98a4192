#include "json_pretty.hpp"

namespace sprof::test {

std::string pretty_json(std::string_view compact, int max_depth) {
  std::string out;
  int depth = 0;
  bool in_string = false;
  auto newline = [&](int d) {
    out.push_back('\n');
    out.append(static_cast<size_t>(2 * d), ' ');
  };
  for (size_t i = 0; i < compact.size(); ++i) {
    const char c = compact[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < compact.size()) {
        out.push_back(compact[++i]);
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        out.push_back(c);
        break;
      case '{':
      case '[': {
        out.push_back(c);
        ++depth;
        const char close = c == '{' ? '}' : ']';
        if (depth <= max_depth && i + 1 < compact.size() && compact[i + 1] != close) {
          newline(depth);
        }
        break;
      }
      case '}':
      case ']':
        if (depth <= max_depth && compact[i - 1] != '{' && compact[i - 1] != '[') {
          newline(depth - 1);
        }
        --depth;
        out.push_back(c);
        break;
      case ',':
        out.push_back(c);
        if (depth <= max_depth) newline(depth);
        break;
      case ':': out.append(depth <= max_depth ? ": " : ":"); break;
      default: out.push_back(c);
    }
  }
  out.push_back('\n');
  return out;
}

}  // namespace sprof::test
