// heap/src/interposer/next_allocator.cpp
//
// Finding the allocator behind the interposer, at the first allocation hook of the process:
// before it hands out any block, so that no glibc block is ever given to another allocator's
// free (or the reverse). The constructor would be too late: the loader and other libraries'
// constructors allocate first.
//
// dlsym takes the loader's lock and may call malloc (which reaches the interposer again, nested
// in the hook: hooks.cpp passes it straight to g_next). While resolving, g_next is the bootstrap
// arena, and its free and realloc recognise arena blocks; once resolved it is the owner's
// functions, still behind those checks if the arena handed out anything. Other threads wait for
// the resolution in their own first hook (with sched_yield); none can have allocated before,
// since creating a thread allocates.
#include "interposer/next_allocator.hpp"

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include "interposer/bootstrap_arena.hpp"
#include "interposer/interposer.hpp"
#include "interposer/libc_malloc.hpp"

namespace sprof::heap::interposer {

namespace {

constexpr Allocator kGlibc = {__libc_malloc,   __libc_calloc, __libc_realloc, __libc_free,
                              __libc_memalign, __libc_valloc, __libc_pvalloc, nullptr};

}  // namespace

// Constant-initialised: calls arrive before any constructor.
Allocator g_next = kGlibc;
int g_next_resolved;

namespace {

enum Resolution : int { kUnresolved = 0, kResolving = 1 };
int g_resolution;

// The real allocator's functions, behind the arena checks. glibc's until resolved.
Allocator g_owner = kGlibc;

alignas(16) unsigned char g_arena_storage[64 * 1024];
BootstrapArena g_arena = {g_arena_storage, sizeof g_arena_storage, 0};

void free_checking_arena(void* block) {
  if (!g_arena.owns(block)) __atomic_load_n(&g_owner.free, __ATOMIC_RELAXED)(block);
}

void* realloc_checking_arena(void* block, size_t size) {
  if (g_arena.owns(block)) return g_arena.move_out(block, size, next<&Allocator::malloc>());
  return __atomic_load_n(&g_owner.realloc, __ATOMIC_RELAXED)(block, size);
}

void* arena_malloc(size_t size) { return g_arena.allocate(size, 16); }
void* arena_calloc(size_t count, size_t size) {
  size_t total = 0;
  // Never reused, so already zero.
  return __builtin_mul_overflow(count, size, &total) ? nullptr : g_arena.allocate(total, 16);
}
void* arena_memalign(size_t alignment, size_t size) { return g_arena.allocate(size, alignment); }
void* arena_valloc(size_t size) { return g_arena.allocate(size, 4096); }

constexpr Allocator kArena = {arena_malloc,        arena_calloc,   realloc_checking_arena,
                              free_checking_arena, arena_memalign, arena_valloc,
                              arena_valloc,        nullptr};

// For an allocator without them (jemalloc has no pvalloc).
void* valloc_on_memalign(size_t size) {
  return __atomic_load_n(&g_owner.memalign, __ATOMIC_RELAXED)(size_t(::getpagesize()), size);
}
void* pvalloc_on_memalign(size_t size) {
  const size_t page = size_t(::getpagesize());
  const size_t rounded = size == 0 ? page : (size + page - 1) & ~(page - 1);
  if (rounded < size) return nullptr;
  return __atomic_load_n(&g_owner.memalign, __ATOMIC_RELAXED)(page, rounded);
}

void publish(Allocator& to, const Allocator& from) {
  __atomic_store_n(&to.malloc, from.malloc, __ATOMIC_RELAXED);
  __atomic_store_n(&to.calloc, from.calloc, __ATOMIC_RELAXED);
  __atomic_store_n(&to.realloc, from.realloc, __ATOMIC_RELAXED);
  __atomic_store_n(&to.free, from.free, __ATOMIC_RELAXED);
  __atomic_store_n(&to.memalign, from.memalign, __ATOMIC_RELAXED);
  __atomic_store_n(&to.valloc, from.valloc, __ATOMIC_RELAXED);
  __atomic_store_n(&to.pvalloc, from.pvalloc, __ATOMIC_RELAXED);
  __atomic_store_n(&to.usable_size, from.usable_size, __ATOMIC_RELAXED);
}

template <typename F>
F next_definition(const char* name) {
  return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

// The next definition of `name` if the allocator's object defines it: jemalloc has no pvalloc,
// and the next pvalloc, glibc's, would hand out a glibc block in a jemalloc process.
template <typename F>
F definition_in(const void* object, const char* name) {
  const auto f = next_definition<F>(name);
  return object_of(reinterpret_cast<const void*>(f)) == object ? f : nullptr;
}

// glibc's functions, and its malloc_usable_size (or that of an allocator defining __libc_*).
Allocator glibc_owner() {
  Allocator a = kGlibc;
  a.usable_size = next_definition<size_t (*)(void*)>("malloc_usable_size");
  return a;
}

// The next definitions of every function, when the next malloc is not glibc's (nor an
// allocator that defines glibc's __libc_* names, which the defaults already reach). glibc's
// when that allocator lacks one of malloc, calloc, realloc, free and an aligned allocation.
Allocator owner_behind() {
  const auto malloc = next_definition<void* (*)(size_t)>("malloc");
  if (malloc == nullptr ||
      reinterpret_cast<void*>(malloc) == reinterpret_cast<void*>(&__libc_malloc))
    return glibc_owner();
  const void* object = object_of(reinterpret_cast<const void*>(malloc));
  if (object == nullptr) return glibc_owner();
  Allocator a{};
  a.malloc = malloc;
  a.calloc = definition_in<void* (*)(size_t, size_t)>(object, "calloc");
  a.realloc = definition_in<void* (*)(void*, size_t)>(object, "realloc");
  a.free = definition_in<void (*)(void*)>(object, "free");
  a.memalign = definition_in<void* (*)(size_t, size_t)>(object, "memalign");
  if (a.memalign == nullptr)
    a.memalign = definition_in<void* (*)(size_t, size_t)>(object, "aligned_alloc");
  if (a.calloc == nullptr || a.realloc == nullptr || a.free == nullptr || a.memalign == nullptr)
    return glibc_owner();
  a.valloc = definition_in<void* (*)(size_t)>(object, "valloc");
  if (a.valloc == nullptr) a.valloc = valloc_on_memalign;
  a.pvalloc = definition_in<void* (*)(size_t)>(object, "pvalloc");
  if (a.pvalloc == nullptr) a.pvalloc = pvalloc_on_memalign;
  a.usable_size = definition_in<size_t (*)(void*)>(object, "malloc_usable_size");
  return a;
}

}  // namespace

void resolve_next_allocator_slow() {
  ThreadState& t = t_thread;
  if (t.resolving_allocator) return;  // nested in this thread's resolution: g_next is the arena
  int expected = kUnresolved;
  if (!__atomic_compare_exchange_n(&g_resolution, &expected, kResolving, false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    while (__atomic_load_n(&g_next_resolved, __ATOMIC_ACQUIRE) == 0) ::sched_yield();
    return;
  }
  t.resolving_allocator = 1;
  publish(g_next, kArena);
  const Allocator owner = owner_behind();
  publish(g_owner, owner);
  Allocator entry = owner;
  if (g_arena.ever_used()) {
    entry.free = free_checking_arena;
    entry.realloc = realloc_checking_arena;
  }
  publish(g_next, entry);
  t.resolving_allocator = 0;
  __atomic_store_n(&g_next_resolved, 1, __ATOMIC_RELEASE);
}

size_t next_usable_size(void* block) {
  if (block == nullptr) return 0;
  if (g_arena.owns(block)) return g_arena.size_of(block);
  const auto usable = __atomic_load_n(&g_owner.usable_size, __ATOMIC_RELAXED);
  return usable == nullptr ? 0 : usable(block);
}

const void* object_of(const void* address) {
  Dl_info info{};
  if (address == nullptr || ::dladdr(address, &info) == 0) return nullptr;
  return info.dli_fbase;
}

}  // namespace sprof::heap::interposer
