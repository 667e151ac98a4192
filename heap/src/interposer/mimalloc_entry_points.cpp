// heap/src/interposer/mimalloc_entry_points.cpp
//
// mimalloc's own API, for programs that link libmimalloc dynamically and call it directly: the
// malloc family (mi_malloc, mi_zalloc, mi_calloc, mi_mallocn, the _small and _aligned forms),
// the re* family (mi_realloc, mi_reallocn, mi_reallocf, mi_rezalloc, mi_recalloc,
// mi_realloc_aligned), C++'s
// mi_new* (mimalloc-new-delete.h's operator new calls them), mi_strdup and mi_strndup, their
// mi_heap_* forms, and the frees. The same fast path and sampling as glibc's entry points
// (entry_points.cpp), but the blocks are mimalloc's: every call ends in the real function
// (mimalloc_api.hpp), so the rest of mimalloc's API (mi_usable_size, heaps, ...) keeps working
// on them. Programs that never call mimalloc never reach this file. Frees are recorded without a
// stack even with --heap-free-stacks.
//
// libmimalloc calls 37 of its own exported functions through its PLT (mi_mallocn calls
// mi_heap_mallocn, mi_malloc_aligned calls mi_heap_malloc_aligned, which calls
// mi_heap_malloc_small, ...), and the PLT binds them to these entry points too. So a call that
// forwards like that marks its thread as inside mimalloc's API while the real function runs
// (ThreadState::in_mimalloc), and a call that finds the mark passes straight through: the outer
// call alone counts. Holding the mark means waiting for the real call; the functions that do not
// forward (Nesting::kLeaf: mi_malloc, mi_free, ...) only check it, and their fast path stays a
// tail call. A slow path calls the capture stub with a description of the call (MimallocCall),
// so the stub sees the entry point's frame above the caller's, which the converter drops with the
// interposer's other frames.
//
// Not hooked: functions with four arguments (mi_heap_reallocn, the *_aligned_at forms; the
// capture stub passes three: mi_heap_reallocn, mi_heap_recalloc), mi_expand (resizes in place)
// and mi_heap_destroy (which frees a heap's blocks at once, without a call per block).
// A call of one of those is still counted by the hooked function it calls through the PLT, if
// any, with that function's arguments.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "interposer/fast_path.hpp"
#include "interposer/hooks.hpp"
#include "interposer/interposer.hpp"
#include "interposer/mimalloc_api.hpp"

#define SPROF_HEAP_EXPORT extern "C" __attribute__((visibility("default")))

using namespace sprof::heap::interposer;
using sprof::heap::AllocFunction;
namespace mi = sprof::heap::interposer::mimalloc;

namespace {

class InsideMimalloc {
 public:
  explicit InsideMimalloc(ThreadState& t) : t_(t) { t_.in_mimalloc = 1; }
  ~InsideMimalloc() { t_.in_mimalloc = 0; }
  InsideMimalloc(const InsideMimalloc&) = delete;
  InsideMimalloc& operator=(const InsideMimalloc&) = delete;

 private:
  ThreadState& t_;
};

// Whether the real function makes another hooked call for the same allocation through
// libmimalloc's PLT (kForwards: mi_mallocn calls mi_heap_mallocn) or not (kLeaf: mi_malloc).
// Only a forwarding call must hold the mark while the real function runs, which costs it the
// tail call; a leaf call's fast path stays as cheap as glibc's entry points'. Which functions
// forward is libmimalloc's choice (2.0.9's, read from its PLT calls; the integration test's exact
// counts on mi_api_site would show a double count if Debian's changed).
enum class Nesting : uint8_t { kLeaf, kForwards };

// The slow path of an allocating call, through the capture stub, holding the mark (a call it
// makes into mimalloc's API through the PLT is part of this one). Out of line, with `real` by
// value, so that the fast path keeps no frame: a leaf's fast path is then a tail call.
template <typename Real>
__attribute__((noinline)) void* allocate_slow(ThreadState& t, AllocFunction function, uint64_t size,
                                              uint64_t alignment, void* old_block, Real real) {
  const InsideMimalloc inside(t);
  MimallocCall call{function,
                    size,
                    alignment,
                    old_block,
                    [](void* context) -> void* { return (*static_cast<Real*>(context))(); },
                    &real};
  return sprof_heap_capture_mi_call(&call);
}

// One allocating call: `real()` makes it. `size` is what the record says was asked for;
// `old_block`, for the re* functions, the block the call replaces (null for the others).
template <Nesting kNesting, typename Real>
void* allocate(AllocFunction function, uint64_t size, uint64_t alignment, void* old_block,
               Real real) {
  ThreadState& t = t_thread;
  if (t.in_mimalloc) return real();
  const bool fast = (old_block == nullptr || !free_needs_hook(old_block)) && take_fast(t, size);
  if constexpr (kNesting == Nesting::kLeaf) {
    if (SPROF_HEAP_LIKELY(fast)) return real();
  } else {
    if (SPROF_HEAP_LIKELY(fast)) {
      const InsideMimalloc inside(t);
      return real();
    }
  }
  return allocate_slow(t, function, size, alignment, old_block, real);
}

// A count times a size, or SIZE_MAX when that overflows: the real function then fails, and a
// failed call is not recorded.
uint64_t product(size_t count, size_t size) {
  size_t total = 0;
  return __builtin_mul_overflow(count, size, &total) ? SIZE_MAX : total;
}

// The bytes mi_strndup (and with no limit, mi_strdup) allocates for `text`: the copy and its NUL.
uint64_t copy_bytes(const char* text, size_t limit = SIZE_MAX) {
  return text != nullptr ? strnlen(text, limit) + 1 : 0;
}

template <Nesting kNesting, typename Real>
void release(void* block, Real&& real) {
  ThreadState& t = t_thread;
  if (t.in_mimalloc) return real();  // the outer call recorded it
  if (SPROF_HEAP_UNLIKELY(free_needs_hook(block))) free_slow_record_only(block, nullptr);
  if constexpr (kNesting == Nesting::kLeaf) {
    return real();
  } else {
    const InsideMimalloc inside(t);
    real();
  }
}

// mi_new and its kin throw std::bad_alloc when memory is exhausted; the interposer has no
// exceptions (it must not unwind through its own state), so it makes the nothrow call, and only
// when that failed hands the request to the throwing function, unrecorded: mimalloc then runs
// the new-handler and throws as it would have.
template <Nesting kNesting, typename Nothrow, typename Throwing>
void* allocate_or_throw(AllocFunction function, uint64_t size, uint64_t alignment, void* old_block,
                        Nothrow nothrow, Throwing throwing) {
  void* block = allocate<kNesting>(function, size, alignment, old_block, nothrow);
  return block != nullptr || size == 0 ? block : throwing();
}

constexpr AllocFunction kMalloc = AllocFunction::kMiMalloc;
constexpr AllocFunction kZalloc = AllocFunction::kMiZalloc;
constexpr AllocFunction kCalloc = AllocFunction::kMiCalloc;
constexpr AllocFunction kRealloc = AllocFunction::kMiRealloc;
constexpr AllocFunction kAligned = AllocFunction::kMiMallocAligned;
constexpr AllocFunction kZallocAligned = AllocFunction::kMiZallocAligned;

}  // namespace

// The malloc family.
SPROF_HEAP_EXPORT void* mi_malloc(size_t size) noexcept {
  return allocate<Nesting::kLeaf>(kMalloc, size, 0, nullptr,
                                  [=] { return mi::next_malloc()(size); });
}
SPROF_HEAP_EXPORT void* mi_zalloc(size_t size) noexcept {
  return allocate<Nesting::kLeaf>(kZalloc, size, 0, nullptr,
                                  [=] { return mi::next_zalloc()(size); });
}
SPROF_HEAP_EXPORT void* mi_calloc(size_t count, size_t size) noexcept {
  return allocate<Nesting::kLeaf>(kCalloc, product(count, size), 0, nullptr,
                                  [=] { return mi::next_calloc()(count, size); });
}
SPROF_HEAP_EXPORT void* mi_mallocn(size_t count, size_t size) noexcept {
  return allocate<Nesting::kForwards>(kMalloc, product(count, size), 0, nullptr,
                                      [=] { return mi::next_mallocn()(count, size); });
}
SPROF_HEAP_EXPORT void* mi_malloc_small(size_t size) noexcept {
  return allocate<Nesting::kLeaf>(kMalloc, size, 0, nullptr,
                                  [=] { return mi::next_malloc_small()(size); });
}
SPROF_HEAP_EXPORT void* mi_zalloc_small(size_t size) noexcept {
  return allocate<Nesting::kLeaf>(kZalloc, size, 0, nullptr,
                                  [=] { return mi::next_zalloc_small()(size); });
}
SPROF_HEAP_EXPORT void* mi_malloc_aligned(size_t size, size_t alignment) noexcept {
  return allocate<Nesting::kForwards>(kAligned, size, alignment, nullptr,
                                      [=] { return mi::next_malloc_aligned()(size, alignment); });
}
SPROF_HEAP_EXPORT void* mi_zalloc_aligned(size_t size, size_t alignment) noexcept {
  return allocate<Nesting::kForwards>(kZallocAligned, size, alignment, nullptr,
                                      [=] { return mi::next_zalloc_aligned()(size, alignment); });
}
SPROF_HEAP_EXPORT char* mi_strdup(const char* text) noexcept {
  const uint64_t size = copy_bytes(text);
  return static_cast<char*>(allocate<Nesting::kForwards>(kMalloc, size, 0, nullptr,
                                                         [=] { return mi::next_strdup()(text); }));
}
SPROF_HEAP_EXPORT char* mi_strndup(const char* text, size_t n) noexcept {
  const uint64_t size = copy_bytes(text, n);
  return static_cast<char*>(allocate<Nesting::kForwards>(
      kMalloc, size, 0, nullptr, [=] { return mi::next_strndup()(text, n); }));
}

// The re* family: the block given is replaced (recorded as freed, then the new one allocated).
// Unlike glibc's, mimalloc's realloc(block, 0) returns a block: no special case.
SPROF_HEAP_EXPORT void* mi_realloc(void* block, size_t size) noexcept {
  return allocate<Nesting::kLeaf>(kRealloc, size, 0, block,
                                  [=] { return mi::next_realloc()(block, size); });
}
SPROF_HEAP_EXPORT void* mi_reallocn(void* block, size_t count, size_t size) noexcept {
  return allocate<Nesting::kForwards>(kRealloc, product(count, size), 0, block,
                                      [=] { return mi::next_reallocn()(block, count, size); });
}
SPROF_HEAP_EXPORT void* mi_rezalloc(void* block, size_t size) noexcept {
  return allocate<Nesting::kForwards>(kRealloc, size, 0, block,
                                      [=] { return mi::next_rezalloc()(block, size); });
}
SPROF_HEAP_EXPORT void* mi_recalloc(void* block, size_t count, size_t size) noexcept {
  return allocate<Nesting::kForwards>(kRealloc, product(count, size), 0, block,
                                      [=] { return mi::next_recalloc()(block, count, size); });
}
// mi_reallocf frees the block when it fails: recording it as freed first is right either way.
SPROF_HEAP_EXPORT void* mi_reallocf(void* block, size_t size) noexcept {
  return allocate<Nesting::kForwards>(kRealloc, size, 0, block,
                                      [=] { return mi::next_reallocf()(block, size); });
}
SPROF_HEAP_EXPORT void* mi_realloc_aligned(void* block, size_t size, size_t alignment) noexcept {
  return allocate<Nesting::kForwards>(kRealloc, size, alignment, block, [=] {
    return mi::next_realloc_aligned()(block, size, alignment);
  });
}

// C++'s mi_new*.
SPROF_HEAP_EXPORT void* mi_new(size_t size) {
  return allocate_or_throw<Nesting::kLeaf>(
      kMalloc, size, 0, nullptr, [=] { return mi::next_new_nothrow()(size); },
      [=] { return mi::next_new()(size); });
}
SPROF_HEAP_EXPORT void* mi_new_nothrow(size_t size) noexcept {
  return allocate<Nesting::kLeaf>(kMalloc, size, 0, nullptr,
                                  [=] { return mi::next_new_nothrow()(size); });
}
SPROF_HEAP_EXPORT void* mi_new_aligned(size_t size, size_t alignment) {
  return allocate_or_throw<Nesting::kForwards>(
      kAligned, size, alignment, nullptr,
      [=] { return mi::next_new_aligned_nothrow()(size, alignment); },
      [=] { return mi::next_new_aligned()(size, alignment); });
}
SPROF_HEAP_EXPORT void* mi_new_aligned_nothrow(size_t size, size_t alignment) noexcept {
  return allocate<Nesting::kForwards>(kAligned, size, alignment, nullptr, [=] {
    return mi::next_new_aligned_nothrow()(size, alignment);
  });
}
SPROF_HEAP_EXPORT void* mi_new_n(size_t count, size_t size) {
  const uint64_t total = product(count, size);
  return allocate_or_throw<Nesting::kLeaf>(
      kMalloc, total, 0, nullptr,
      [=] { return total != SIZE_MAX ? mi::next_new_nothrow()(total) : nullptr; },
      [=] { return mi::next_new_n()(count, size); });
}
SPROF_HEAP_EXPORT void* mi_new_realloc(void* block, size_t size) {
  return allocate_or_throw<Nesting::kLeaf>(
      kRealloc, size, 0, block, [=] { return mi::next_realloc()(block, size); },
      [=] { return mi::next_new_realloc()(block, size); });
}
SPROF_HEAP_EXPORT void* mi_new_reallocn(void* block, size_t count, size_t size) {
  return allocate_or_throw<Nesting::kForwards>(
      kRealloc, product(count, size), 0, block,
      [=] { return mi::next_reallocn()(block, count, size); },
      [=] { return mi::next_new_reallocn()(block, count, size); });
}

// The mi_heap_* forms (`heap` is a mi_heap_t*).
SPROF_HEAP_EXPORT void* mi_heap_malloc(void* heap, size_t size) noexcept {
  return allocate<Nesting::kLeaf>(kMalloc, size, 0, nullptr,
                                  [=] { return mi::next_heap_malloc()(heap, size); });
}
SPROF_HEAP_EXPORT void* mi_heap_zalloc(void* heap, size_t size) noexcept {
  return allocate<Nesting::kLeaf>(kZalloc, size, 0, nullptr,
                                  [=] { return mi::next_heap_zalloc()(heap, size); });
}
SPROF_HEAP_EXPORT void* mi_heap_calloc(void* heap, size_t count, size_t size) noexcept {
  return allocate<Nesting::kLeaf>(kCalloc, product(count, size), 0, nullptr,
                                  [=] { return mi::next_heap_calloc()(heap, count, size); });
}
SPROF_HEAP_EXPORT void* mi_heap_mallocn(void* heap, size_t count, size_t size) noexcept {
  return allocate<Nesting::kLeaf>(kMalloc, product(count, size), 0, nullptr,
                                  [=] { return mi::next_heap_mallocn()(heap, count, size); });
}
SPROF_HEAP_EXPORT void* mi_heap_malloc_small(void* heap, size_t size) noexcept {
  return allocate<Nesting::kLeaf>(kMalloc, size, 0, nullptr,
                                  [=] { return mi::next_heap_malloc_small()(heap, size); });
}
SPROF_HEAP_EXPORT void* mi_heap_malloc_aligned(void* heap, size_t size, size_t alignment) noexcept {
  return allocate<Nesting::kForwards>(kAligned, size, alignment, nullptr, [=] {
    return mi::next_heap_malloc_aligned()(heap, size, alignment);
  });
}
SPROF_HEAP_EXPORT void* mi_heap_zalloc_aligned(void* heap, size_t size, size_t alignment) noexcept {
  return allocate<Nesting::kForwards>(kZallocAligned, size, alignment, nullptr, [=] {
    return mi::next_heap_zalloc_aligned()(heap, size, alignment);
  });
}
SPROF_HEAP_EXPORT void* mi_heap_realloc(void* heap, void* block, size_t size) noexcept {
  return allocate<Nesting::kLeaf>(kRealloc, size, 0, block,
                                  [=] { return mi::next_heap_realloc()(heap, block, size); });
}
SPROF_HEAP_EXPORT void* mi_heap_reallocf(void* heap, void* block, size_t size) noexcept {
  return allocate<Nesting::kForwards>(kRealloc, size, 0, block,
                                      [=] { return mi::next_heap_reallocf()(heap, block, size); });
}
SPROF_HEAP_EXPORT void* mi_heap_rezalloc(void* heap, void* block, size_t size) noexcept {
  return allocate<Nesting::kLeaf>(kRealloc, size, 0, block,
                                  [=] { return mi::next_heap_rezalloc()(heap, block, size); });
}
SPROF_HEAP_EXPORT char* mi_heap_strdup(void* heap, const char* text) noexcept {
  const uint64_t size = copy_bytes(text);
  return static_cast<char*>(allocate<Nesting::kLeaf>(
      kMalloc, size, 0, nullptr, [=] { return mi::next_heap_strdup()(heap, text); }));
}
SPROF_HEAP_EXPORT char* mi_heap_strndup(void* heap, const char* text, size_t n) noexcept {
  const uint64_t size = copy_bytes(text, n);
  return static_cast<char*>(allocate<Nesting::kLeaf>(
      kMalloc, size, 0, nullptr, [=] { return mi::next_heap_strndup()(heap, text, n); }));
}

// The frees.
SPROF_HEAP_EXPORT void mi_free(void* block) noexcept {
  release<Nesting::kLeaf>(block, [=] { mi::next_free()(block); });
}
SPROF_HEAP_EXPORT void mi_free_size(void* block, size_t size) noexcept {
  release<Nesting::kLeaf>(block, [=] { mi::next_free_size()(block, size); });
}
SPROF_HEAP_EXPORT void mi_free_aligned(void* block, size_t alignment) noexcept {
  release<Nesting::kForwards>(block, [=] { mi::next_free_aligned()(block, alignment); });
}
SPROF_HEAP_EXPORT void mi_free_size_aligned(void* block, size_t size, size_t alignment) noexcept {
  release<Nesting::kForwards>(block, [=] { mi::next_free_size_aligned()(block, size, alignment); });
}
