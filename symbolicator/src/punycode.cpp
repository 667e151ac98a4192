// RFC 3492 ("Punycode") decoding, section 6.2, with the parameters of section 5.
#include "punycode.hpp"

#include <vector>

#include "utf8.hpp"

namespace sprof::symbolicator::detail {

bool decode_punycode(std::string_view basic, std::string_view encoded, std::string& out) {
  std::vector<uint32_t> cps(basic.begin(), basic.end());
  constexpr uint32_t kBase = 36, kTmin = 1, kTmax = 26, kSkew = 38, kDamp = 700;
  uint32_t n = 128, bias = 72;
  uint64_t i = 0;
  size_t pos = 0;
  while (pos < encoded.size()) {
    const uint64_t old_i = i;
    uint64_t w = 1;
    for (uint32_t k = kBase;; k += kBase) {
      if (pos >= encoded.size()) return false;
      const char c = encoded[pos++];
      uint32_t digit = 0;
      if (c >= 'a' && c <= 'z')
        digit = static_cast<uint32_t>(c - 'a');
      else if (c >= '0' && c <= '9')
        digit = static_cast<uint32_t>(c - '0') + 26;
      else
        return false;
      i += digit * w;
      const uint32_t t = k <= bias ? kTmin : (k >= bias + kTmax ? kTmax : k - bias);
      if (digit < t) break;
      w *= kBase - t;
      if (i > 0x10FFFF * 64ULL || w > 0x10FFFF * 64ULL) return false;
    }
    const uint64_t len = cps.size() + 1;
    uint64_t delta = (i - old_i) / (old_i == 0 ? kDamp : 2);
    delta += delta / len;
    uint32_t k = 0;
    while (delta > ((kBase - kTmin) * kTmax) / 2) {
      delta /= kBase - kTmin;
      k += kBase;
    }
    bias = static_cast<uint32_t>(k + (kBase * delta) / (delta + kSkew));
    n += static_cast<uint32_t>(i / len);
    i %= len;
    if (n > 0x10FFFF) return false;
    cps.insert(cps.begin() + static_cast<std::ptrdiff_t>(i), n);
    ++i;
  }
  for (uint32_t cp : cps) detail::append_utf8(out, cp);
  return true;
}

}  // namespace sprof::symbolicator::detail
