#include "sprof/presymbolicate/stack_names.hpp"

#include "sprof/profile/native_symbols.hpp"
#include "symbol_conversion.hpp"

namespace sprof::presymbolicate {

std::vector<std::string> allocation_stack_names(const profile::Process& process,
                                                const profile::Thread& thread, uint32_t stack,
                                                symbolicator::Symbolicator& symbolicator) {
  std::vector<std::string> names;
  for (const profile::FrameLookup& frame :
       profile::allocation_stack_lookups(process, thread, stack)) {
    if (!frame.module) {
      names.push_back(frame.unnamed);
      continue;
    }
    auto map = symbolicator.module(frame.module->debug_name, frame.module->breakpad_id);
    const profile::AddressSymbol symbol = detail::to_address_symbol(
        map && *map ? (*map)->lookup(RelativeAddress{frame.address}) : std::nullopt);
    if (!symbol.names(frame.address)) {
      names.push_back(frame.unnamed);
      continue;
    }
    for (const profile::InlinedCall& call : symbol.inlines) {
      names.push_back(call.function.empty() ? frame.unnamed : call.function);
    }
    names.push_back(symbol.function);
  }
  return names;
}

}  // namespace sprof::presymbolicate
