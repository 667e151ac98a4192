// sprof/server/port_spec.hpp
//
// Port selection as the user writes it: "N" binds exactly port N, "N+" tries N, N+1, ... N+99
// (stopping at 65535) and takes the first one not in use. "0" asks the kernel for an ephemeral
// port (used by tests).
#pragma once

#include <cstdint>
#include <string_view>

#include "sprof/core/result.hpp"

namespace sprof::server {

struct PortRange {
  std::uint16_t first = 0;
  std::uint16_t last = 0;  // inclusive
};

inline constexpr unsigned kPortFallbackCount = 100;

// Errc::kInvalidArgument for anything but digits (optionally followed by '+') up to 65535.
Result<PortRange> parse_port_spec(std::string_view spec);

}  // namespace sprof::server
