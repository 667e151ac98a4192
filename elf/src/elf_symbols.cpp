// Reading .symtab/.dynsym into plain structs (ELF gABI "Symbol Table").
#include "sprof/elf/elf_symbols.hpp"

#include "elf_file.hpp"

namespace sprof::elf {
namespace {

bool section_is_executable(Elf* elf, size_t index) {
  Elf_Scn* scn = elf_getscn(elf, index);
  GElf_Shdr shdr;
  return scn != nullptr && gelf_getshdr(scn, &shdr) != nullptr && (shdr.sh_flags & SHF_EXECINSTR);
}

ElfSymbol::Binding binding_of(unsigned char st_info) {
  switch (GELF_ST_BIND(st_info)) {
    case STB_GLOBAL: return ElfSymbol::Binding::kGlobal;
    case STB_WEAK: return ElfSymbol::Binding::kWeak;
    default: return ElfSymbol::Binding::kLocal;
  }
}

void read_table(Elf* elf, Elf_Scn* scn, const GElf_Shdr& shdr, bool dynsym,
                std::vector<ElfSymbol>& out) {
  Elf_Data* data = elf_getdata(scn, nullptr);
  // The entry count comes from the bytes actually read and the class's symbol size, not from
  // sh_size / sh_entsize: a tiny sh_entsize in a hostile file would make that count (and this
  // loop) as large as the file.
  const size_t entry_size = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
  if (data == nullptr || entry_size == 0) return;
  const size_t count = data->d_size / entry_size;
  for (size_t i = 1; i < count; ++i) {  // entry 0 is the reserved null symbol
    GElf_Sym sym;
    if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
    const int type = GELF_ST_TYPE(sym.st_info);
    if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || sym.st_value == 0) continue;
    const bool code = type == STT_FUNC || type == STT_GNU_IFUNC ||
                      (type == STT_NOTYPE && section_is_executable(elf, sym.st_shndx));
    if (!code) continue;
    const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
    // ARM mapping symbols ($a, $t, $x, $d) mark instruction sets, not functions.
    if (name == nullptr || name[0] == '\0' || name[0] == '$') continue;
    out.push_back(ElfSymbol{sym.st_value, sym.st_size, name, binding_of(sym.st_info), dynsym,
                            type == STT_GNU_IFUNC});
  }
}

}  // namespace

Result<std::vector<ElfSymbol>> read_symbols(const std::string& path) {
  SPROF_TRY(ElfFile file, ElfFile::open(path));
  return read_symbols(file);
}

std::vector<ElfSymbol> read_symbols(const ElfFile& file) {
  std::vector<ElfSymbol> symbols;
  Elf* elf = file.get();
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) continue;
    if (shdr.sh_type != SHT_SYMTAB && shdr.sh_type != SHT_DYNSYM) continue;
    read_table(elf, scn, shdr, shdr.sh_type == SHT_DYNSYM, symbols);
  }
  return symbols;
}

std::optional<ElfSymbol> find_symbol(const std::vector<ElfSymbol>& symbols, std::string_view name) {
  for (const ElfSymbol& s : symbols) {
    if (s.name == name) return s;
  }
  return std::nullopt;
}

}  // namespace sprof::elf
