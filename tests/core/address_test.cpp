#include "sprof/core/address.hpp"

#include <doctest/doctest.h>

namespace sprof {
namespace {

TEST_CASE("a return address is looked up one byte earlier, an instruction pointer as is") {
  CHECK(lookup_address(0x1000, FrameKind::kReturnAddress) == 0xfff);
  CHECK(lookup_address(0x1000, FrameKind::kInstructionPointer) == 0x1000);
  // Address 0 has no byte before it: a return address there stays 0 rather than wrapping.
  CHECK(lookup_address(0, FrameKind::kReturnAddress) == 0);
  CHECK(FrameAddress::return_address(0x1000).lookup_address() == 0xfff);
  CHECK(FrameAddress::ip(0x1000).lookup_address() == 0x1000);
  static_assert(lookup_address(1, FrameKind::kReturnAddress) == 0);
}

}  // namespace
}  // namespace sprof
