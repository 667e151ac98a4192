#include "host_check.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <optional>
#include <string>

#include "ascii_case.hpp"

namespace sprof::server::detail {
namespace {

// An IP address in network byte order; v4 addresses are stored v4-mapped (::ffff:a.b.c.d).
using IpBytes = std::array<unsigned char, 16>;

std::optional<IpBytes> parse_ip(std::string_view text, bool bracketed_v6) {
  const std::string s(text);
  IpBytes ip{};
  if (bracketed_v6) {
    if (inet_pton(AF_INET6, s.c_str(), ip.data()) != 1) return std::nullopt;
    return ip;
  }
  unsigned char v4[4];
  if (inet_pton(AF_INET, s.c_str(), v4) != 1) return std::nullopt;
  ip[10] = ip[11] = 0xff;
  std::memcpy(ip.data() + 12, v4, 4);
  return ip;
}

bool is_loopback(const IpBytes& ip) {
  static constexpr IpBytes kV6Loopback = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  const bool v4_mapped =
      std::all_of(ip.begin(), ip.begin() + 10, [](unsigned char b) { return b == 0; }) &&
      ip[10] == 0xff && ip[11] == 0xff;
  return ip == kV6Loopback || (v4_mapped && ip[12] == 127);
}

bool is_unspecified(const IpBytes& ip) {
  static constexpr IpBytes kV6Any{};
  static constexpr IpBytes kV4Any = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0};
  return ip == kV6Any || ip == kV4Any;
}

bool is_port(std::string_view s) {
  if (s.empty() || s.size() > 5) return false;
  if (!std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  return std::stoul(std::string(s)) <= 65535;
}

// The bind address as the Host check compares it: brackets are optional around a v6 literal.
std::optional<IpBytes> parse_bind_address(std::string_view address) {
  if (address.size() >= 2 && address.front() == '[' && address.back() == ']') {
    return parse_ip(address.substr(1, address.size() - 2), true);
  }
  if (address.find(':') != std::string_view::npos) return parse_ip(address, true);
  return parse_ip(address, false);
}

}  // namespace

bool is_allowed_host(std::string_view host, std::string_view bind_address,
                     std::string_view public_host) {
  // Split "name[:port]" or "[v6][:port]" (RFC 9110 section 7.2: uri-host [ ":" port ]).
  std::string_view name;
  std::string_view port;
  bool bracketed = false;
  if (host.starts_with('[')) {
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return false;
    name = host.substr(1, close - 1);
    const std::string_view rest = host.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) return false;
    if (!rest.empty()) port = rest.substr(1);
    bracketed = true;
    if (!rest.empty() && !is_port(port)) return false;
  } else {
    const size_t colon = host.rfind(':');
    name = host.substr(0, colon);
    if (colon != std::string_view::npos) {
      port = host.substr(colon + 1);
      if (!is_port(port)) return false;
    }
  }
  if (name.empty()) return false;
  if (!bracketed && iequals_ascii(name, "localhost")) return true;
  if (!public_host.empty() && iequals_ascii(name, public_host)) return true;

  const std::optional<IpBytes> ip = parse_ip(name, bracketed);
  if (!ip) return false;  // any other name could be rebound to us
  if (is_loopback(*ip)) return true;
  const std::optional<IpBytes> bound = parse_bind_address(bind_address);
  return bound && (*bound == *ip || is_unspecified(*bound));
}

}  // namespace sprof::server::detail
