#include "sprof/core/build_id.hpp"

#include <algorithm>
#include <array>

#include "sprof/core/hex.hpp"

namespace sprof {

namespace {
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

BuildId BuildId::from_text_fold(std::span<const uint8_t> text) {
  std::vector<uint8_t> folded(16, 0);
  const size_t n = std::min<size_t>(text.size(), 4096);
  for (size_t i = 0; i < n; ++i) folded[i % 16] ^= text[i];
  return BuildId(std::move(folded));
}

std::optional<BuildId> BuildId::from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::vector<uint8_t> bytes;
  bytes.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = hex_value(hex[i]);
    const int lo = hex_value(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    bytes.push_back(static_cast<uint8_t>(hi * 16 + lo));
  }
  return BuildId(std::move(bytes));
}

std::string BuildId::breakpad_id(bool little_endian) const {
  std::array<uint8_t, 16> d{};
  std::copy_n(bytes_.begin(), std::min<size_t>(bytes_.size(), 16), d.begin());
  if (little_endian) {
    // GUID-style fields u32, u16, u16 are written big-endian.
    std::reverse(d.begin(), d.begin() + 4);
    std::reverse(d.begin() + 4, d.begin() + 6);
    std::reverse(d.begin() + 6, d.begin() + 8);
  }
  std::string out = to_hex(d, HexCase::kUpper);
  out.push_back('0');  // age
  return out;
}

std::string BuildId::code_id() const { return to_hex(bytes_); }

}  // namespace sprof
