// tests/support/elf_image_builder.hpp
//
// Builds small ELF64 images in memory from named sections, for tests and fuzz targets that need
// an ELF file around bytes they choose (CFI sections, empty or truncated sections) without
// linking a program. Only <elf.h>: the image is built independently of the code under test.
#pragma once

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace sprof::test {

struct ElfImageSection {
  std::string name;
  uint32_t type = SHT_PROGBITS;
  uint64_t flags = 0;
  uint64_t addr = 0;
  std::vector<uint8_t> bytes;
};

// A little-endian x86-64 ET_EXEC image holding `sections` (after the null section, and followed
// by .shstrtab), without program headers.
inline std::vector<uint8_t> build_elf_image(const std::vector<ElfImageSection>& sections) {
  std::vector<uint8_t> out(sizeof(Elf64_Ehdr));
  const auto align8 = [&out] { out.resize((out.size() + 7) & ~size_t{7}); };
  std::vector<Elf64_Shdr> headers(1);  // SHN_UNDEF
  std::string names(1, '\0');
  const auto add_header = [&](const std::string& name, uint32_t type, uint64_t flags, uint64_t addr,
                              size_t size) {
    align8();
    Elf64_Shdr h{};
    h.sh_name = static_cast<Elf64_Word>(names.size());
    h.sh_type = type;
    h.sh_flags = flags;
    h.sh_addr = addr;
    h.sh_offset = out.size();
    h.sh_size = size;
    h.sh_addralign = 1;
    headers.push_back(h);
    names += name + '\0';
  };
  for (const auto& s : sections) {
    add_header(s.name, s.type, s.flags, s.addr, s.bytes.size());
    out.insert(out.end(), s.bytes.begin(), s.bytes.end());
  }
  const std::string shstrtab = ".shstrtab";
  add_header(shstrtab, SHT_STRTAB, 0, 0, names.size() + shstrtab.size() + 1);
  out.insert(out.end(), names.begin(), names.end());
  align8();

  Elf64_Ehdr e{};
  std::memcpy(e.e_ident, ELFMAG, SELFMAG);
  e.e_ident[EI_CLASS] = ELFCLASS64;
  e.e_ident[EI_DATA] = ELFDATA2LSB;
  e.e_ident[EI_VERSION] = EV_CURRENT;
  e.e_type = ET_EXEC;
  e.e_machine = EM_X86_64;
  e.e_version = EV_CURRENT;
  e.e_ehsize = sizeof(Elf64_Ehdr);
  e.e_shentsize = sizeof(Elf64_Shdr);
  e.e_shoff = out.size();
  e.e_shnum = static_cast<Elf64_Half>(headers.size());
  e.e_shstrndx = static_cast<Elf64_Half>(headers.size() - 1);
  std::memcpy(out.data(), &e, sizeof e);
  for (const auto& h : headers) {
    const auto* p = reinterpret_cast<const uint8_t*>(&h);
    out.insert(out.end(), p, p + sizeof h);
  }
  return out;
}

}  // namespace sprof::test
