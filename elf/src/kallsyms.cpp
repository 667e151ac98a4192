// Parsing /proc/kallsyms text: "ffffffff81000000 T _text" or "ffffffffc0001000 t fn\t[module]".
#include <charconv>

#include "sprof/core/text_lines.hpp"
#include "sprof/elf/kernel_image.hpp"

namespace sprof::elf {
namespace {

std::optional<KernelSymbol> parse_line(std::string_view line) {
  const size_t space1 = line.find(' ');
  if (space1 == std::string_view::npos || space1 + 3 > line.size() || line[space1 + 2] != ' ') {
    return std::nullopt;
  }
  KernelSymbol sym;
  auto [ptr, ec] = std::from_chars(line.data(), line.data() + space1, sym.address, 16);
  if (ec != std::errc() || ptr != line.data() + space1) return std::nullopt;
  sym.type = line[space1 + 1];
  std::string_view rest = line.substr(space1 + 3);
  const size_t tab = rest.find('\t');
  if (tab != std::string_view::npos) {
    std::string_view module = rest.substr(tab + 1);
    if (module.size() >= 2 && module.front() == '[' && module.back() == ']') {
      sym.module = std::string(module.substr(1, module.size() - 2));
    }
    rest = rest.substr(0, tab);
  }
  if (rest.empty()) return std::nullopt;
  sym.name = std::string(rest);
  return sym;
}

}  // namespace

KernelSymbols KernelSymbols::parse(std::string_view text) {
  KernelSymbols result;
  while (!text.empty()) {
    const std::string_view line = take_line(text);
    if (auto sym = parse_line(line)) result.symbols_.push_back(std::move(*sym));
  }
  return result;
}

std::optional<uint64_t> KernelSymbols::address_of(std::string_view name) const {
  for (const KernelSymbol& s : symbols_) {
    if (s.module.empty() && s.name == name) return s.address;
  }
  return std::nullopt;
}

bool KernelSymbols::addresses_hidden() const {
  for (const KernelSymbol& s : symbols_) {
    if (s.address != 0) return false;
  }
  return true;
}

}  // namespace sprof::elf
