// sprof/core/address.hpp
//
// Strong address types, so that the different address spaces of a profiler never mix silently
// (samply's vocabulary):
//   Avma            - actual virtual memory address in the profiled process.
//   Svma            - stated virtual memory address: the address as written in the ELF file.
//   RelativeAddress - SVMA minus the p_vaddr of the module's first PT_LOAD ("v0"); this is the
//                     lib-relative address the Firefox Profiler sends to the symbol server.
//   FileOffset      - byte offset into the ELF file.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace sprof {

template <typename Tag>
struct StrongAddress {
  uint64_t value = 0;

  constexpr StrongAddress() = default;
  constexpr explicit StrongAddress(uint64_t v) : value(v) {}
  constexpr auto operator<=>(const StrongAddress&) const = default;
};

struct AvmaTag {};
struct SvmaTag {};
struct RelativeTag {};
struct FileOffsetTag {};

using Avma = StrongAddress<AvmaTag>;
using Svma = StrongAddress<SvmaTag>;
using RelativeAddress = StrongAddress<RelativeTag>;
using FileOffset = StrongAddress<FileOffsetTag>;

// How a frame's address was obtained. A return address points after the call instruction,
// which may be the first instruction of another function (or line), so every lookup of one
// (symbol, inline chain, line, CFI) uses `address - 1`, inside the call. This is the one place
// that rule is written; `lookup_address` applies it in any address space.
// (The Firefox Profiler nudges return addresses itself; the profile stores raw addresses.)
enum class FrameKind : uint8_t { kInstructionPointer, kReturnAddress };

constexpr uint64_t lookup_address(uint64_t address, FrameKind kind) {
  return kind == FrameKind::kReturnAddress && address > 0 ? address - 1 : address;
}

// A frame's address together with how it was obtained.
struct FrameAddress {
  using Kind = FrameKind;
  Avma address;
  Kind kind = Kind::kInstructionPointer;

  static constexpr FrameAddress ip(uint64_t a) { return {Avma{a}, Kind::kInstructionPointer}; }
  static constexpr FrameAddress return_address(uint64_t a) {
    return {Avma{a}, Kind::kReturnAddress};
  }
  constexpr uint64_t lookup_address() const { return sprof::lookup_address(address.value, kind); }
  constexpr bool operator==(const FrameAddress&) const = default;
};

}  // namespace sprof

template <typename Tag>
struct std::hash<sprof::StrongAddress<Tag>> {
  size_t operator()(const sprof::StrongAddress<Tag>& a) const noexcept {
    return std::hash<uint64_t>{}(a.value);
  }
};
