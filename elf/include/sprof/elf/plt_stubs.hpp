// sprof/elf/plt_stubs.hpp
//
// Names for the stubs through which a module calls functions of other modules: "sqrt@plt", as
// perf, gdb and objdump name them. The symbol tables have no entry for them, so without this a
// sample in a stub shows as "module+0x1020". Each x86-64 stub in .plt, .plt.sec or .plt.got jumps
// through a GOT slot (`jmp *disp32(%rip)`, bytes ff 25, possibly after endbr64 and a bnd
// prefix); the dynamic relocation of that slot (R_X86_64_JUMP_SLOT, or R_X86_64_GLOB_DAT for
// .plt.got) names the symbol the stub reaches. The lazy-binding stub at the start of .plt jumps
// through a slot without a relocation and stays unnamed, as it does in perf.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/elf/elf_file_handle.hpp"

namespace sprof::elf {

struct PltStub {
  uint64_t address = 0;  // SVMA of the stub
  uint64_t size = 0;     // the section's entry size
  std::string symbol;    // the called symbol as stored (mangled); the UI adds "@plt"
};

// The named stubs of an x86-64 ELF file, by address; empty for other machines or files without
// stubs. kNotFound if the file does not exist, kMalformed if it is not ELF.
Result<std::vector<PltStub>> read_plt_stubs(const std::string& path);
// Same, from a file already opened.
std::vector<PltStub> read_plt_stubs(const ElfFile& file);

}  // namespace sprof::elf
