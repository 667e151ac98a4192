// x86-64 disassembly in Intel syntax via capstone (the only capstone user in sprof).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"

namespace sprof::api::detail {

struct Instruction {
  uint64_t offset = 0;  // from the start of the disassembled bytes: a real instruction boundary
  std::string text;     // "mov rbp, rsp"
};

// Decodes all of `code`, which starts at `address` (used for branch targets in the text). A byte
// capstone cannot decode becomes a one-byte "(bad)" so decoding continues after it.
Result<std::vector<Instruction>> disassemble_x86_64(std::span<const uint8_t> code,
                                                    uint64_t address);

}  // namespace sprof::api::detail
