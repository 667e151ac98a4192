// Module identity from ELF headers, program headers and notes (no DWARF is read).
#include "sprof/elf/module_identity.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>

#include "elf_file.hpp"
#include "sprof/core/byte_reader.hpp"

namespace sprof::elf {
namespace {

constexpr uint64_t kNoteAlign = 4;  // ELF notes pad name and desc to 4 bytes (gABI "Note Section")

uint64_t padded_note_size(uint32_t size) {
  return (uint64_t{size} + kNoteAlign - 1) / kNoteAlign * kNoteAlign;
}

std::optional<BuildId> build_id_from_note_data(Elf_Data* data) {
  size_t offset = 0;
  GElf_Nhdr nhdr;
  size_t name_offset = 0;
  size_t desc_offset = 0;
  while (offset < data->d_size &&
         (offset = gelf_getnote(data, offset, &nhdr, &name_offset, &desc_offset)) > 0) {
    const auto* base = static_cast<const uint8_t*>(data->d_buf);
    if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 &&
        std::memcmp(base + name_offset, "GNU", 4) == 0 && nhdr.n_descsz > 0) {
      return BuildId(std::vector<uint8_t>(base + desc_offset, base + desc_offset + nhdr.n_descsz));
    }
  }
  return std::nullopt;
}

// Sections first: a separate debug file keeps its SHT_NOTE sections, while its PT_NOTE program
// header may point at bytes that were not kept. Program headers cover images without sections.
std::optional<BuildId> read_gnu_build_id(const ElfFile& file) {
  Elf* elf = file.get();
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_NOTE) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) continue;
    if (auto id = build_id_from_note_data(data)) return id;
  }
  size_t phnum = 0;
  if (elf_getphdrnum(elf, &phnum) != 0) return std::nullopt;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(elf, static_cast<int>(i), &phdr) == nullptr || phdr.p_type != PT_NOTE) {
      continue;
    }
    Elf_Data* data =
        elf_getdata_rawchunk(elf, static_cast<int64_t>(phdr.p_offset), phdr.p_filesz, ELF_T_NHDR);
    if (data == nullptr) continue;
    if (auto id = build_id_from_note_data(data)) return id;
  }
  return std::nullopt;
}

void read_load_segments(const ElfFile& file, ModuleIdentity& id) {
  size_t phnum = 0;
  if (elf_getphdrnum(file.get(), &phnum) != 0) return;
  bool first = true;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr phdr;
    if (gelf_getphdr(file.get(), static_cast<int>(i), &phdr) == nullptr) continue;
    if (phdr.p_type != PT_LOAD) continue;
    // v0 = p_vaddr of the first PT_LOAD (docs/firefox-profiler-format.md, "Relative addresses");
    // PT_LOADs are sorted by vaddr.
    if (first) id.base_vaddr = phdr.p_vaddr;
    first = false;
    id.loads.push_back(LoadSegment{phdr.p_vaddr, phdr.p_offset, phdr.p_filesz, phdr.p_memsz,
                                   phdr.p_align, (phdr.p_flags & PF_X) != 0});
  }
}

// .gnu_debuglink: the debug file's name, NUL-terminated and padded to 4 bytes, then its CRC-32
// in the file's byte order (GDB manual, "Debugging Information in Separate Files").
void read_debuglink(const ElfFile& file, ModuleIdentity& id) {
  auto bytes = file.section_bytes(file.section_by_name(".gnu_debuglink"));
  if (bytes.empty()) return;
  const auto* chars = reinterpret_cast<const char*>(bytes.data());
  const size_t name_len = strnlen(chars, bytes.size());
  const size_t crc_offset = (name_len + 1 + 3) / 4 * 4;
  if (name_len == 0 || crc_offset + 4 > bytes.size()) return;
  id.debuglink.assign(chars, name_len);
  uint32_t crc = 0;
  std::memcpy(&crc, bytes.data() + crc_offset, 4);
  if (!id.little_endian) crc = __builtin_bswap32(crc);
  id.debuglink_crc = crc;
}

bool section_has_contents(const ElfFile& file, std::string_view name) {
  Elf_Scn* scn = file.section_by_name(name);
  GElf_Shdr shdr;
  return scn != nullptr && gelf_getshdr(scn, &shdr) != nullptr && shdr.sh_type != SHT_NOBITS &&
         shdr.sh_size > 0;
}

}  // namespace

ModuleIdentity read_module_identity(const ElfFile& file) {
  ModuleIdentity id;
  id.little_endian = file.little_endian();
  id.machine = file.header().e_machine;
  read_load_segments(file, id);
  read_debuglink(file, id);
  id.has_debug_info = section_has_contents(file, ".debug_info");
  id.has_symtab = section_has_contents(file, ".symtab");
  if (auto gnu = read_gnu_build_id(file)) {
    id.build_id = std::move(*gnu);
    id.has_gnu_build_id = true;
  } else {
    id.build_id = BuildId::from_text_fold(file.section_bytes(file.section_by_name(".text")));
  }
  return id;
}

std::optional<Svma> ModuleIdentity::svma_of_mapping(FileOffset pgoff, bool executable) const {
  const LoadSegment* found = nullptr;
  for (const LoadSegment& s : loads) {
    if (pgoff.value >= s.offset + s.filesz) continue;
    // The loader maps a segment from p_offset rounded down to its page size, which p_align
    // bounds from above; a mapping may also start further in (mprotect split it).
    if (pgoff.value < s.offset && s.offset - pgoff.value >= std::max<uint64_t>(s.align, 1)) {
      continue;
    }
    // Of two segments sharing the page, the one with the mapping's permission is the one the
    // loader mapped there.
    if (found == nullptr || (s.executable == executable && found->executable != executable)) {
      found = &s;
    }
  }
  if (found == nullptr) return std::nullopt;
  return Svma{found->vaddr + pgoff.value - found->offset};
}

std::optional<FileOffset> ModuleIdentity::file_offset_of(Svma svma) const {
  for (const LoadSegment& s : loads) {
    if (svma.value >= s.vaddr && svma.value - s.vaddr < s.filesz) {
      return FileOffset{s.offset + (svma.value - s.vaddr)};
    }
  }
  return std::nullopt;
}

std::string ModuleIdentity::arch() const {
  switch (machine) {
    case EM_X86_64: return "x86_64";
    case EM_386: return "x86";
    case EM_AARCH64: return "aarch64";
    case EM_ARM: return "arm";
    case EM_RISCV: return "riscv64";
    case EM_PPC64: return "ppc64";
    case EM_S390: return "s390x";
    default: return "unknown";
  }
}

Result<ModuleIdentity> read_module_identity(const std::string& path) {
  SPROF_TRY(ElfFile file, ElfFile::open(path));
  return read_module_identity(file);
}

Result<ModuleIdentity> read_module_identity(std::span<const uint8_t> image) {
  SPROF_TRY(ElfFile file, ElfFile::from_memory(image));
  return read_module_identity(file);
}

std::optional<BuildId> find_gnu_build_id_note(std::span<const uint8_t> notes) {
  ByteReader reader(notes);
  while (reader.remaining() >= 12) {
    const uint32_t namesz = reader.u32();
    const uint32_t descsz = reader.u32();
    const uint32_t type = reader.u32();
    // Rounded up in 64 bits: in 32, a size near 2^32 wraps to a small one and the spans below
    // would reach far past the buffer.
    const uint64_t name_bytes = padded_note_size(namesz);
    const uint64_t desc_bytes = padded_note_size(descsz);
    if (name_bytes > reader.remaining() || desc_bytes > reader.remaining() - name_bytes) {
      return std::nullopt;  // truncated, or sizes no note in these bytes can have
    }
    auto name = reader.bytes(static_cast<size_t>(name_bytes));
    auto desc_padded = reader.bytes(static_cast<size_t>(desc_bytes));
    if (!reader.ok()) return std::nullopt;
    if (type == NT_GNU_BUILD_ID && namesz == 4 && std::memcmp(name.data(), "GNU", 4) == 0 &&
        descsz > 0) {
      auto desc = desc_padded.first(descsz);
      return BuildId(std::vector<uint8_t>(desc.begin(), desc.end()));
    }
  }
  return std::nullopt;
}

}  // namespace sprof::elf
