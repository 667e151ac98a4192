// sprof/core/hex.hpp
//
// Hex text as sprof writes it: bytes as two digits each (build-ids, breakpad ids) and numbers
// as "0x..." (offsets and opcodes in messages). The one digit table; nothing else encodes hex.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace sprof {

enum class HexCase { kLower, kUpper };

// Appends the two digits of `byte` (JSON's \u00XX escapes, URL percent-encoding).
void append_hex_byte(std::string& out, uint8_t byte, HexCase letters = HexCase::kLower);
// Two digits per byte, in order.
std::string to_hex(std::span<const uint8_t> bytes, HexCase letters = HexCase::kLower);
// "0x" and the lowercase digits of `value`, without leading zeros ("0x0" for zero).
std::string to_hex_number(uint64_t value);

}  // namespace sprof
