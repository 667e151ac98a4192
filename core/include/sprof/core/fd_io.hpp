// sprof/core/fd_io.hpp
//
// Whole reads at an offset of an open file descriptor, retried across EINTR and short reads.
#pragma once

#include <cstdint>
#include <span>

#include "sprof/core/result.hpp"

namespace sprof {

// Reads exactly `out.size()` bytes at `offset` (pread, so several readers may share the file).
// kIo when the read fails, kMalformed when the file ends first.
Result<void> read_exactly_at(int fd, uint64_t offset, std::span<uint8_t> out);

}  // namespace sprof
