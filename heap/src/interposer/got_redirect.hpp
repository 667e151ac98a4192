// heap/src/interposer/got_redirect.hpp
//
// Sends a running program's allocation calls to the interposer after it was loaded with dlopen
// (sprof record --heap -p): LD_PRELOAD wins by symbol lookup order, but a library loaded later
// does not change references that the loader has already bound, so the bound slots themselves
// are rewritten (docs/heap.md, "Attaching to a running program").
#pragma once

#include <cstddef>

namespace sprof::heap::interposer {

struct Redirect {
  const char* name;   // the symbol a relocation names, e.g. "malloc"
  void* replacement;  // the interposer's function
};

// Rewrites, in every loaded object but the interposer itself and the dynamic loader, the GOT
// slots that R_X86_64_JUMP_SLOT and R_X86_64_GLOB_DAT relocations bind to one of `redirects`'
// names (RELRO pages are made writable for the store and read-only again). Returns the number
// of slots rewritten. No allocation: dl_iterate_phdr, mprotect and plain stores only.
size_t redirect_bound_calls(const Redirect* redirects, size_t count, const void* self_base);

}  // namespace sprof::heap::interposer
