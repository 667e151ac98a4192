// The symbolicator's answer for an address and the profile layer's record of it describe the
// same thing in two layers that do not know each other; these convert between them.
#pragma once

#include <cstdint>
#include <optional>

#include "sprof/profile/native_symbols.hpp"
#include "sprof/symbolicator/symbolicator.hpp"

namespace sprof::presymbolicate::detail {

// No answer becomes an `AddressSymbol` without a function ("<unknown at ...>" in the profile).
profile::AddressSymbol to_address_symbol(const std::optional<symbolicator::SymbolInfo>& info);

symbolicator::SymbolInfo to_symbol_info(const profile::AddressSymbol& symbol);

}  // namespace sprof::presymbolicate::detail
