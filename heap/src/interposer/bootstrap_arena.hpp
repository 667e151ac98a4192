// heap/src/interposer/bootstrap_arena.hpp
//
// Where the interposer's allocations come from while it looks up the allocator behind it
// (next_allocator.cpp): dlsym may call malloc, which cannot go to an allocator not yet known.
// A bump allocator over a fixed buffer: lock-free, never reuses memory, so its blocks are
// zeroed (the buffer is .bss) and a free of one is a no-op. Each block is preceded by its size,
// for realloc and malloc_usable_size. Its blocks must never reach a real free: the owner of an
// address is told apart by owns().
#pragma once

#include <cstddef>
#include <cstdint>

namespace sprof::heap::interposer {

// An aggregate (constant-initialised from a static buffer, nothing to construct).
struct BootstrapArena {
  unsigned char* base;
  size_t capacity;
  size_t used;  // accessed atomically

  // A block of `size` bytes aligned to `alignment` (at least 16, at most 4096), or nullptr when
  // the arena is full or the alignment is not a power of two.
  void* allocate(size_t size, size_t alignment);
  bool owns(const void* block) const {
    return reinterpret_cast<uintptr_t>(block) - reinterpret_cast<uintptr_t>(base) < capacity;
  }
  bool ever_used() const { return __atomic_load_n(&used, __ATOMIC_ACQUIRE) != 0; }
  // The size the block was allocated with (owns(block) must hold).
  size_t size_of(const void* block) const;
  // realloc of an arena block: a new block from `allocate_elsewhere` holding the old contents
  // (up to `size` bytes); the arena block stays where it is (never freed).
  void* move_out(void* block, size_t size, void* (*allocate_elsewhere)(size_t)) const;
};

}  // namespace sprof::heap::interposer
