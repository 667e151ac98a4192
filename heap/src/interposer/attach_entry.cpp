// heap/src/interposer/attach_entry.cpp
//
// The function sprof calls inside a running program after loading the interposer into it with
// dlopen (recorder/src/heap/heap_injector.cpp; docs/heap.md, "Attaching to a running
// program"). The environment cannot name the ring any more, so the path comes as the argument;
// the constructor found no ring and left the process passing everything through.
//
// Order matters: the ring is mapped and the process announced before any call is redirected,
// so every call that reaches a hook finds the process attached. Blocks allocated before this
// point are not in the sampled set: their frees and reallocs pass through unrecorded.
#include <cstddef>
#include <cstdint>

#include "interposer/allocator_check.hpp"
#include "interposer/entry_aliases.hpp"
#include "interposer/got_redirect.hpp"
#include "interposer/interposer.hpp"
#include "interposer/next_allocator.hpp"

namespace sprof::heap::interposer {
namespace {

// Every function entry_points.cpp exports in place of glibc's.
const Redirect kRedirects[] = {
    {"malloc", reinterpret_cast<void*>(&sprof_heap_local_malloc)},
    {"free", reinterpret_cast<void*>(&sprof_heap_local_free)},
    {"calloc", reinterpret_cast<void*>(&sprof_heap_local_calloc)},
    {"realloc", reinterpret_cast<void*>(&sprof_heap_local_realloc)},
    {"reallocarray", reinterpret_cast<void*>(&sprof_heap_local_reallocarray)},
    {"posix_memalign", reinterpret_cast<void*>(&sprof_heap_local_posix_memalign)},
    {"aligned_alloc", reinterpret_cast<void*>(&sprof_heap_local_aligned_alloc)},
    {"memalign", reinterpret_cast<void*>(&sprof_heap_local_memalign)},
    {"valloc", reinterpret_cast<void*>(&sprof_heap_local_valloc)},
    {"pvalloc", reinterpret_cast<void*>(&sprof_heap_local_pvalloc)},
    {"malloc_usable_size", reinterpret_cast<void*>(&sprof_heap_local_malloc_usable_size)},
};

}  // namespace
}  // namespace sprof::heap::interposer

using namespace sprof::heap::interposer;

// Result codes sprof reports (heap_injector.cpp names them).
enum : int { kAttachOk = 0, kAttachNoRing = 1, kAttachAlready = 2, kAttachNothingBound = 3 };

extern "C" __attribute__((visibility("default"))) int sprof_heap_attach_running(
    const char* ring_path) {
  Process& p = g_process;
  // From kDisabled (the constructor found no ring in the environment) or kNotYet.
  int state = __atomic_load_n(&p.attachment, __ATOMIC_ACQUIRE);
  if (state == static_cast<int>(Attachment::kAttached) ||
      state == static_cast<int>(Attachment::kAttaching) ||
      !__atomic_compare_exchange_n(&p.attachment, &state, static_cast<int>(Attachment::kAttaching),
                                   false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
    return kAttachAlready;
  resolve_next_allocator();
  // Known before the attach record is written. "malloc bypassed" said that symbol lookup does
  // not reach the interposer, which is true of every dlopen'd library and is what the slots
  // below repair (sprof is told when none could be: kAttachNothingBound).
  p.attach_flags = static_cast<uint16_t>(bypassed_calls() & ~sprof::heap::kAttachMallocBypassed);
  if (!attach_holding(ring_path, sprof::heap::AttachHow::kRunning)) return kAttachNoRing;
  register_fork_handler();
  const size_t rewritten =
      redirect_bound_calls(kRedirects, sizeof kRedirects / sizeof kRedirects[0],
                           object_of(reinterpret_cast<const void*>(&sprof_heap_attach_running)));
  return rewritten == 0 ? kAttachNothingBound : kAttachOk;
}
