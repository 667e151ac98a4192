#include "frame_addresses.hpp"

#include <algorithm>
#include <charconv>

namespace sprof::profile::detail {

StackUses stack_uses(const Thread& thread) {
  StackUses uses;
  const auto& stacks = thread.stacks();
  uses.sample_leaf.assign(stacks.size(), false);
  uses.caller.assign(stacks.size(), false);
  for (const Sample& s : thread.samples()) {
    if (s.stack && *s.stack < stacks.size()) uses.sample_leaf[*s.stack] = true;
  }
  for (const StackEntry& s : stacks) {
    if (s.prefix && *s.prefix < stacks.size()) uses.caller[*s.prefix] = true;
  }
  for (const NativeAllocation& a : thread.native_allocations()) {
    if (a.stack && *a.stack < stacks.size()) uses.caller[*a.stack] = true;
  }
  return uses;
}

std::vector<uint8_t> frame_roles(const Thread& thread, const StackUses& uses) {
  std::vector<uint8_t> roles(thread.frames().size(), 0);
  const auto& stacks = thread.stacks();
  for (size_t i = 0; i < stacks.size(); ++i) {
    const uint32_t frame = stacks[i].frame;
    if (frame >= roles.size()) continue;
    if (uses.sample_leaf[i]) roles[frame] |= role_bit(FrameKind::kInstructionPointer);
    if (uses.caller[i]) roles[frame] |= role_bit(FrameKind::kReturnAddress);
  }
  return roles;
}

bool is_address_location(std::string_view location) { return location.starts_with("0x"); }

std::optional<uint64_t> parse_address_location(std::string_view location) {
  if (!is_address_location(location) || location.size() == 2) return std::nullopt;
  uint64_t value = 0;
  const char* begin = location.data() + 2;
  const char* end = location.data() + location.size();
  const auto [ptr, ec] = std::from_chars(begin, end, value, 16);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

namespace {

std::string hex(uint64_t value) {
  char text[2 + 16] = {'0', 'x'};
  const auto [end, ec] = std::to_chars(text + 2, text + sizeof text, value, 16);
  return std::string(text, static_cast<size_t>(end - text));
}

}  // namespace

std::string unknown_function_name(uint64_t address) { return "<unknown at " + hex(address) + ">"; }

std::string unknown_inline_name(uint64_t address, uint32_t depth) {
  return "<unknown at " + hex(address) + " at inline depth " + std::to_string(depth) + ">";
}

std::optional<LocatedAddress> LibLocator::locate(uint64_t address) const {
  // The last lib starting at or below `address`.
  auto it = std::upper_bound(libs_.begin(), libs_.end(), address,
                             [](uint64_t a, const Library& lib) { return a < lib.start; });
  if (it == libs_.begin()) return std::nullopt;
  --it;
  if (address >= it->end) return std::nullopt;
  return LocatedAddress{static_cast<size_t>(it - libs_.begin()),
                        address - (it->start - it->offset)};
}

}  // namespace sprof::profile::detail
