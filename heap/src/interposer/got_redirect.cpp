// heap/src/interposer/got_redirect.cpp
//
// ELF facts relied on (System V gABI, x86-64 psABI): PT_DYNAMIC lists DT_JMPREL/DT_PLTRELSZ
// (the PLT's relocations) and DT_RELA/DT_RELASZ (the others), both Elf64_Rela on x86-64; a
// relocation's symbol index selects a DT_SYMTAB entry whose st_name indexes DT_STRTAB; the slot
// it binds is at load base + r_offset. glibc has already added the load base to the d_ptr values
// of most objects' dynamic sections but not to the vDSO's (read-only), hence `absolute`.
// PT_GNU_RELRO covers the slots that are read-only after relocation (all of them with -z now).
#include "interposer/got_redirect.hpp"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace sprof::heap::interposer {
namespace {

struct Walk {
  const Redirect* redirects;
  size_t count;
  const void* self_base;
  size_t rewritten;
};

struct DynamicTables {
  const ElfW(Rela) * plt = nullptr;
  size_t plt_bytes = 0;
  const ElfW(Rela) * rela = nullptr;
  size_t rela_bytes = 0;
  const ElfW(Sym) * symbols = nullptr;
  const char* strings = nullptr;
};

uintptr_t absolute(uintptr_t value, uintptr_t base) { return value < base ? value + base : value; }

bool is_loader_or_vdso(const char* name) {
  return std::strstr(name, "/ld-linux") != nullptr || std::strstr(name, "linux-vdso") != nullptr;
}

DynamicTables tables_of(const ElfW(Dyn) * dynamic, uintptr_t base) {
  DynamicTables t;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    const uintptr_t ptr = absolute(d->d_un.d_ptr, base);
    switch (d->d_tag) {
      case DT_JMPREL: t.plt = reinterpret_cast<const ElfW(Rela)*>(ptr); break;
      case DT_PLTRELSZ: t.plt_bytes = d->d_un.d_val; break;
      case DT_RELA: t.rela = reinterpret_cast<const ElfW(Rela)*>(ptr); break;
      case DT_RELASZ: t.rela_bytes = d->d_un.d_val; break;
      case DT_SYMTAB: t.symbols = reinterpret_cast<const ElfW(Sym)*>(ptr); break;
      case DT_STRTAB: t.strings = reinterpret_cast<const char*>(ptr); break;
      default: break;
    }
  }
  return t;
}

// Stores `value` into the slot at `address`, opening a RELRO page for that one store. Only the
// pages the loader made read-only are opened and closed again: like glibc (_dl_protect_relro),
// the range is [start, end) with both rounded down to pages, so a last page that PT_GNU_RELRO
// covers only in part stayed writable, and closing it would make the data after it read-only.
void store_slot(uintptr_t address, void* value, uintptr_t relro_start, uintptr_t relro_end) {
  const auto page = static_cast<uintptr_t>(::getpagesize());
  const uintptr_t first = address & ~(page - 1);
  const bool relro = first >= (relro_start & ~(page - 1)) && first < (relro_end & ~(page - 1));
  if (relro && ::mprotect(reinterpret_cast<void*>(first), page, PROT_READ | PROT_WRITE) != 0)
    return;
  __atomic_store_n(reinterpret_cast<void**>(address), value, __ATOMIC_RELEASE);
  if (relro) ::mprotect(reinterpret_cast<void*>(first), page, PROT_READ);
}

void rewrite(const Walk& walk, const DynamicTables& t, const ElfW(Rela) * relocations, size_t bytes,
             uintptr_t base, uintptr_t relro_start, uintptr_t relro_end, size_t& rewritten) {
  if (relocations == nullptr) return;
  for (size_t i = 0; i < bytes / sizeof(ElfW(Rela)); ++i) {
    const ElfW(Rela)& r = relocations[i];
    const auto type = ELF64_R_TYPE(r.r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
    const char* name = t.strings + t.symbols[ELF64_R_SYM(r.r_info)].st_name;
    for (size_t k = 0; k < walk.count; ++k) {
      if (std::strcmp(name, walk.redirects[k].name) != 0) continue;
      store_slot(base + r.r_offset, walk.redirects[k].replacement, relro_start, relro_end);
      ++rewritten;
      break;
    }
  }
}

int visit_object(dl_phdr_info* info, size_t /*size*/, void* data) {
  auto& walk = *static_cast<Walk*>(data);
  const uintptr_t base = info->dlpi_addr;
  const char* name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  if (reinterpret_cast<const void*>(base) == walk.self_base || is_loader_or_vdso(name)) return 0;
  const ElfW(Dyn)* dynamic = nullptr;
  uintptr_t relro_start = 0, relro_end = 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_DYNAMIC) dynamic = reinterpret_cast<const ElfW(Dyn)*>(base + ph.p_vaddr);
    if (ph.p_type == PT_GNU_RELRO) {
      relro_start = base + ph.p_vaddr;
      relro_end = relro_start + ph.p_memsz;
    }
  }
  if (dynamic == nullptr) return 0;
  const DynamicTables t = tables_of(dynamic, base);
  if (t.symbols == nullptr || t.strings == nullptr) return 0;
  rewrite(walk, t, t.plt, t.plt_bytes, base, relro_start, relro_end, walk.rewritten);
  rewrite(walk, t, t.rela, t.rela_bytes, base, relro_start, relro_end, walk.rewritten);
  return 0;
}

}  // namespace

size_t redirect_bound_calls(const Redirect* redirects, size_t count, const void* self_base) {
  Walk walk{redirects, count, self_base, 0};
  ::dl_iterate_phdr(visit_object, &walk);
  return walk.rewritten;
}

}  // namespace sprof::heap::interposer
