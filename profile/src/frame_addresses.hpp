// How the Firefox Profiler reads the native frames of a Gecko-shaped thread, shared by the
// lookup-address collection (native_addresses) and the processed writer so both agree on every
// address:
//  - a location string starting with "0x" is an address in the process; the lib whose
//    [start, end) holds it makes it lib-relative: relative = address - (start - offset);
//  - a frame that is the leaf of a sample holds an instruction pointer and is looked up as is;
//    a frame that is the caller of another stack holds a return address and is looked up one
//    byte earlier, inside the call instruction. A frame used both ways is looked up both ways.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/core/address.hpp"
#include "sprof/profile/profile.hpp"

namespace sprof::profile::detail {

// How each stack of a thread is used.
struct StackUses {
  std::vector<bool> sample_leaf;  // some sample's stack
  // Holds a return address: the prefix of some other stack, or an allocation's stack (the
  // front end treats those as stack walks, not instruction pointers).
  std::vector<bool> caller;
};
StackUses stack_uses(const Thread& thread);

// A frame's roles: a bit per `FrameKind` (sprof/core/address.hpp, which also holds the rule
// `lookup_address` applies to each) that the stacks using the frame give it.
constexpr uint8_t role_bit(FrameKind kind) {
  return static_cast<uint8_t>(1u << static_cast<unsigned>(kind));
}
std::vector<uint8_t> frame_roles(const Thread& thread, const StackUses& uses);

// The address of a "0x<hex>" location string; nullopt for anything else (or hex that does not
// parse, which the front end also leaves without a lib).
bool is_address_location(std::string_view location);
std::optional<uint64_t> parse_address_location(std::string_view location);

// The names the Firefox Profiler gives an address its symbol server could not name ("0x" +
// lowercase hex, as /symbolicate/v5 writes `module_offset`), and a nameless inline frame.
std::string unknown_function_name(uint64_t address);
std::string unknown_inline_name(uint64_t address, uint32_t depth);

struct LocatedAddress {
  size_t lib = 0;         // index into the libs the locator was built from
  uint64_t relative = 0;  // lib-relative address
};

// Binary search over libs as `normalize_libs` returns them (sorted, non-overlapping).
class LibLocator {
 public:
  explicit LibLocator(const std::vector<Library>& libs) : libs_(libs) {}
  std::optional<LocatedAddress> locate(uint64_t address) const;

 private:
  const std::vector<Library>& libs_;
};

}  // namespace sprof::profile::detail
