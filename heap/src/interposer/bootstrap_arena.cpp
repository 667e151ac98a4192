// heap/src/interposer/bootstrap_arena.cpp
#include "interposer/bootstrap_arena.hpp"

#include <cstring>

namespace sprof::heap::interposer {
namespace {

constexpr size_t kHeaderBytes = 16;  // the block's size, keeping 16-byte alignment
constexpr size_t kMaxAlignment = 4096;

}  // namespace

void* BootstrapArena::allocate(size_t size, size_t alignment) {
  if (alignment < kHeaderBytes) alignment = kHeaderBytes;
  if (alignment > kMaxAlignment || (alignment & (alignment - 1)) != 0) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(base);
  size_t old_used = __atomic_load_n(&used, __ATOMIC_RELAXED);
  for (;;) {
    // Aligned in address space, not as an offset: the buffer itself is only 16-aligned.
    const uintptr_t block = (start + old_used + kHeaderBytes + alignment - 1) & ~(alignment - 1);
    const size_t end = block - start;
    if (end > capacity || size > capacity - end) return nullptr;
    if (__atomic_compare_exchange_n(&used, &old_used, end + size, true, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
      std::memcpy(reinterpret_cast<void*>(block - kHeaderBytes), &size, sizeof size);
      return reinterpret_cast<void*>(block);
    }
  }
}

size_t BootstrapArena::size_of(const void* block) const {
  size_t size = 0;
  std::memcpy(&size, static_cast<const unsigned char*>(block) - kHeaderBytes, sizeof size);
  return size;
}

void* BootstrapArena::move_out(void* block, size_t size,
                               void* (*allocate_elsewhere)(size_t)) const {
  void* moved = allocate_elsewhere(size);
  if (moved != nullptr) {
    const size_t old_size = size_of(block);
    std::memcpy(moved, block, size < old_size ? size : old_size);
  }
  return moved;
}

}  // namespace sprof::heap::interposer
