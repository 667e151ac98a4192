#include "sprof/server/token.hpp"

#include <sys/random.h>

#include <array>
#include <cerrno>
#include <cstdint>

namespace sprof::server {

std::string base32_lower(std::span<const unsigned char> bytes) {
  constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  std::string out;
  out.reserve((bytes.size() * 8 + 4) / 5);
  std::uint32_t bits = 0;  // pending bits, most significant first
  int bit_count = 0;
  for (unsigned char b : bytes) {
    bits = (bits << 8) | b;
    bit_count += 8;
    while (bit_count >= 5) {
      bit_count -= 5;
      out += kAlphabet[(bits >> bit_count) & 0x1f];
    }
  }
  // RFC 4648: the final partial group is padded with zero bits on the right.
  if (bit_count > 0) out += kAlphabet[(bits << (5 - bit_count)) & 0x1f];
  return out;
}

Result<std::string> generate_token() {
  std::array<unsigned char, kTokenBytes> bytes{};
  std::size_t filled = 0;
  while (filled < bytes.size()) {
    // getrandom(2) never returns short reads of <= 256 bytes from the urandom source once it is
    // initialised, but a signal can interrupt it before that.
    const ssize_t n = ::getrandom(bytes.data() + filled, bytes.size() - filled, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::from_errno("getrandom(" + std::to_string(bytes.size()) + " bytes)");
    }
    filled += static_cast<std::size_t>(n);
  }
  return base32_lower(bytes);
}

}  // namespace sprof::server
