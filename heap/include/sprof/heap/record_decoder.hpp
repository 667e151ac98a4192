// sprof/heap/record_decoder.hpp
//
// Decodes one heap ring record from bytes the profiled program wrote, so every field is checked:
// sizes against the kind and the configured stack copy, enums and flags against their known
// values, addresses against the user address space, the stack copy against the stack end.
// Anything else is an error (Errc::kMalformed) naming the field; nothing is read outside
// `record`. Pure.
#pragma once

#include <cstdint>
#include <span>

#include "sprof/core/result.hpp"
#include "sprof/heap/heap_events.hpp"

namespace sprof::heap {

// Highest user-space address on x86-64 with 5-level paging is below 2^56; nothing a valid
// record holds (address, size, stack pointer) reaches this.
inline constexpr uint64_t kAddressLimit = 1ULL << 57;

struct DecodeLimits {
  uint32_t max_stack_bytes = kMaxStackCopyBytes;  // the ring's configured stack copy size
};

// `record` is one whole record: header (its `size` must equal record.size()) and payload. The
// header's commit word is not checked here (ring positions are the ring reader's business).
[[nodiscard]] Result<HeapEvent> decode_record(std::span<const uint8_t> record,
                                              const DecodeLimits& limits);

}  // namespace sprof::heap
