// heap/src/interposer/allocator_check.cpp
//
// Which of the process's allocation calls the interposer cannot see, told to sprof in the
// attach record (heap_ring_format.hpp, kAttachMallocBypassed, kAttachForeignOperatorNew), so
// that a profile missing them says so instead of looking empty (docs/heap.md, "Other
// allocators"):
// - the executable comes before LD_PRELOAD libraries in symbol lookup: one that defines malloc
//   (statically linked jemalloc or mimalloc, a Rust #[global_allocator] exporting it) gets every
//   call, libc's included;
// - a malloc replacement linked dynamically (libjemalloc, libtcmalloc, libmimalloc) comes after
//   the interposer, which records its malloc and forwards to it (next_allocator.hpp); but it also
//   defines operator new, which allocates from it directly, never through malloc.
// dlsym is not async-signal-safe and may take the loader's lock: this runs from the library's
// constructor only, never from inside an allocation.
#include "interposer/allocator_check.hpp"

#include <dlfcn.h>

#include <cstdlib>

#include "interposer/next_allocator.hpp"

namespace sprof::heap::interposer {

uint16_t bypassed_calls() {
  uint16_t flags = 0;
  const void* self = object_of(reinterpret_cast<const void*>(&bypassed_calls));
  if (object_of(::dlsym(RTLD_DEFAULT, "malloc")) != self) flags |= kAttachMallocBypassed;
  // The malloc behind the interposer: glibc's, or a replacement library's. (Not &__libc_malloc
  // for glibc's: tcmalloc and mimalloc define __libc_malloc too, and then the interposer's
  // calls reach them.)
  const void* next_malloc = object_of(::dlsym(RTLD_NEXT, "malloc"));
  const void* libc = object_of(reinterpret_cast<const void*>(&::getenv));
  const void* operator_new = object_of(::dlsym(RTLD_DEFAULT, "_Znwm"));
  if (next_malloc != nullptr && next_malloc != libc && operator_new == next_malloc)
    flags |= kAttachForeignOperatorNew;
  return flags;
}

}  // namespace sprof::heap::interposer
