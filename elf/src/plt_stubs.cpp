// PLT stubs named by the relocation of the GOT slot they jump through (plt_stubs.hpp).
#include "sprof/elf/plt_stubs.hpp"

#include <cstring>
#include <string_view>
#include <unordered_map>

#include "elf_file.hpp"

namespace sprof::elf {
namespace {

// GOT slot address -> name of the symbol its dynamic relocation resolves, from every SHT_RELA
// section whose relocations are R_X86_64_JUMP_SLOT or R_X86_64_GLOB_DAT.
std::unordered_map<uint64_t, std::string> got_slot_symbols(Elf* elf) {
  std::unordered_map<uint64_t, std::string> slots;
  const size_t rela_size = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
  const size_t sym_size = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
  if (rela_size == 0 || sym_size == 0) return slots;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_RELA) continue;
    Elf_Scn* symtab = elf_getscn(elf, shdr.sh_link);
    GElf_Shdr symtab_shdr;
    if (symtab == nullptr || gelf_getshdr(symtab, &symtab_shdr) == nullptr ||
        (symtab_shdr.sh_type != SHT_DYNSYM && symtab_shdr.sh_type != SHT_SYMTAB)) {
      continue;
    }
    Elf_Data* relocations = elf_getdata(scn, nullptr);
    Elf_Data* symbols = elf_getdata(symtab, nullptr);
    if (relocations == nullptr || symbols == nullptr) continue;
    // Counts from the bytes read, not from sh_entsize (see elf_symbols.cpp).
    const size_t count = relocations->d_size / rela_size;
    const size_t symbol_count = symbols->d_size / sym_size;
    for (size_t i = 0; i < count; ++i) {
      GElf_Rela rela;
      if (gelf_getrela(relocations, static_cast<int>(i), &rela) == nullptr) continue;
      const auto type = GELF_R_TYPE(rela.r_info);
      if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
      const size_t index = GELF_R_SYM(rela.r_info);
      GElf_Sym sym;
      if (index == 0 || index >= symbol_count ||
          gelf_getsym(symbols, static_cast<int>(index), &sym) == nullptr) {
        continue;
      }
      const char* name = elf_strptr(elf, symtab_shdr.sh_link, sym.st_name);
      if (name != nullptr && name[0] != '\0') slots.emplace(rela.r_offset, name);
    }
  }
  return slots;
}

// The GOT slot a stub jumps through: the first `ff 25 disp32` in the entry, whose target is
// relative to the end of that 6-byte instruction.
std::optional<uint64_t> stub_got_slot(const uint8_t* entry, size_t size, uint64_t address) {
  for (size_t i = 0; i + 6 <= size; ++i) {
    if (entry[i] != 0xff || entry[i + 1] != 0x25) continue;
    int32_t displacement = 0;
    std::memcpy(&displacement, entry + i + 2, sizeof displacement);
    return address + i + 6 + static_cast<uint64_t>(static_cast<int64_t>(displacement));
  }
  return std::nullopt;
}

}  // namespace

Result<std::vector<PltStub>> read_plt_stubs(const std::string& path) {
  SPROF_TRY(ElfFile file, ElfFile::open(path));
  return read_plt_stubs(file);
}

std::vector<PltStub> read_plt_stubs(const ElfFile& file) {
  Elf* elf = file.get();
  std::vector<PltStub> stubs;
  GElf_Ehdr ehdr;
  size_t shstrndx = 0;
  if (gelf_getehdr(elf, &ehdr) == nullptr || ehdr.e_machine != EM_X86_64 ||
      ehdr.e_ident[EI_DATA] != ELFDATA2LSB || elf_getshdrstrndx(elf, &shstrndx) != 0) {
    return stubs;
  }
  std::unordered_map<uint64_t, std::string> slots;
  bool slots_read = false;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_PROGBITS) continue;
    const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
    if (name == nullptr || !is_plt_section(name)) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr) continue;
    if (!slots_read) {
      slots = got_slot_symbols(elf);
      slots_read = true;
    }
    // Stubs are 16 bytes, or 8 in .plt.got without IBT; the section says which.
    const size_t entry = shdr.sh_entsize == 8 ? 8 : 16;
    const auto* bytes = static_cast<const uint8_t*>(data->d_buf);
    for (size_t offset = 0; offset + entry <= data->d_size; offset += entry) {
      const uint64_t address = shdr.sh_addr + offset;
      const auto slot = stub_got_slot(bytes + offset, entry, address);
      if (!slot) continue;
      if (auto it = slots.find(*slot); it != slots.end()) {
        stubs.push_back(PltStub{address, entry, it->second});
      }
    }
  }
  return stubs;
}

}  // namespace sprof::elf
