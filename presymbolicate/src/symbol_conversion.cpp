#include "symbol_conversion.hpp"

namespace sprof::presymbolicate::detail {

profile::AddressSymbol to_address_symbol(const std::optional<symbolicator::SymbolInfo>& info) {
  profile::AddressSymbol out;
  if (!info) return out;
  out.function = info->function;
  out.function_start = info->function_start;
  if (info->function_size > 0) out.function_size = info->function_size;
  out.file = info->file;
  out.line = info->line;
  out.inlines.reserve(info->inlines.size());
  for (const auto& inlined : info->inlines) {
    out.inlines.push_back({inlined.function, inlined.file, inlined.line});
  }
  return out;
}

symbolicator::SymbolInfo to_symbol_info(const profile::AddressSymbol& symbol) {
  symbolicator::SymbolInfo out;
  out.function = symbol.function;
  out.function_start = symbol.function_start;
  out.function_size = symbol.function_size.value_or(0);
  out.file = symbol.file;
  out.line = symbol.line;
  out.inlines.reserve(symbol.inlines.size());
  for (const auto& call : symbol.inlines)
    out.inlines.push_back({call.function, call.file, call.line});
  return out;
}

}  // namespace sprof::presymbolicate::detail
