#include "sprof/core/hex.hpp"

#include <algorithm>

namespace sprof {
namespace {

char hex_digit(unsigned value, HexCase letters) {
  static constexpr char kLower[] = "0123456789abcdef";
  static constexpr char kUpper[] = "0123456789ABCDEF";
  return (letters == HexCase::kUpper ? kUpper : kLower)[value & 0xf];
}

}  // namespace

void append_hex_byte(std::string& out, uint8_t byte, HexCase letters) {
  out.push_back(hex_digit(byte >> 4, letters));
  out.push_back(hex_digit(byte, letters));
}

std::string to_hex(std::span<const uint8_t> bytes, HexCase letters) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const uint8_t b : bytes) append_hex_byte(out, b, letters);
  return out;
}

std::string to_hex_number(uint64_t value) {
  std::string digits;
  do {
    digits.push_back(hex_digit(static_cast<unsigned>(value), HexCase::kLower));
    value >>= 4;
  } while (value != 0);
  std::reverse(digits.begin(), digits.end());
  return "0x" + digits;
}

}  // namespace sprof
