#include "sprof/server/port_spec.hpp"

#include <algorithm>
#include <string>

namespace sprof::server {

Result<PortRange> parse_port_spec(std::string_view spec) {
  const std::string original(spec);
  const bool fallback = !spec.empty() && spec.back() == '+';
  if (fallback) spec.remove_suffix(1);
  if (spec.empty() || spec.size() > 5 ||
      !std::all_of(spec.begin(), spec.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return fail(Errc::kInvalidArgument,
                "invalid port '" + original + "': expected N or N+ with N in 0..65535");
  }
  const unsigned long value = std::stoul(std::string(spec));
  if (value > 65535) {
    return fail(Errc::kInvalidArgument, "invalid port '" + original + "': above 65535");
  }
  PortRange range;
  range.first = static_cast<std::uint16_t>(value);
  range.last = range.first;
  // An ephemeral port never collides, so "0+" is just "0".
  if (fallback && value != 0) {
    range.last =
        static_cast<std::uint16_t>(std::min<unsigned long>(value + kPortFallbackCount - 1, 65535));
  }
  return range;
}

}  // namespace sprof::server
