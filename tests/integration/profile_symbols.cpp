#include "profile_symbols.hpp"

#include <algorithm>
#include <cstdlib>

namespace sprof::test {

namespace {

symbolicator::SymbolicatorOptions options_for(const ProcessView& process) {
  symbolicator::SymbolicatorOptions options;
  for (const auto& lib : process.libs) {
    options.hints.push_back({lib.debug_name, lib.breakpad_id, lib.path});
  }
  return options;
}

}  // namespace

ProfileSymbols::ProfileSymbols(const ProcessView& process)
    : process_(process), symbolicator_(options_for(process)) {}

std::vector<std::string> ProfileSymbols::names(const std::vector<std::string>& stack) {
  std::vector<std::string> out;
  for (size_t i = 0; i < stack.size(); ++i) {
    const std::string& location = stack[i];
    const uint64_t address = std::strtoull(location.c_str(), nullptr, 16);
    const LibView* lib = nullptr;
    for (const auto& l : process_.libs) {
      if (address >= l.start && address < l.end) lib = &l;
    }
    if (!lib) {
      out.push_back(location);
      continue;
    }
    // Every frame but the leaf is a return address: look up the call instruction before it.
    const bool is_leaf = i + 1 == stack.size();
    const uint64_t relative = address - (lib->start - lib->offset) - (is_leaf ? 0 : 1);
    auto map = symbolicator_.module(lib->debug_name, lib->breakpad_id);
    const auto info = map.has_value() ? (*map)->lookup(RelativeAddress{relative}) : std::nullopt;
    if (!info) {
      out.push_back(location);
      continue;
    }
    out.push_back(info->function);
    for (auto it = info->inlines.rbegin(); it != info->inlines.rend(); ++it) {
      out.push_back(it->function);
    }
  }
  return out;
}

bool contains_in_order(const std::vector<std::string>& haystack,
                       const std::vector<std::string>& needle) {
  size_t k = 0;
  for (const auto& h : haystack) {
    if (k < needle.size() && h == needle[k]) ++k;
  }
  return k == needle.size();
}

bool adjacent_in_order(const std::vector<std::string>& haystack,
                       const std::vector<std::string>& needle) {
  return std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end()) !=
         haystack.end();
}

}  // namespace sprof::test
