// heap/src/interposer/allocator_check.hpp
#pragma once

#include <cstdint>

#include "sprof/heap/heap_ring_format.hpp"

namespace sprof::heap::interposer {

// kAttach* flags for the calls of this process that bypass the interposer (0: none). Uses
// dlsym: call it from the library's constructor only, never from inside an allocation.
uint16_t bypassed_calls();

}  // namespace sprof::heap::interposer
