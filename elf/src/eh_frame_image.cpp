#include "eh_frame_image.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>

namespace sprof::elf::detail {
namespace {

size_t align8(size_t n) { return (n + 7) / 8 * 8; }

// DW_CFA_nop is 0, so clearing an instruction's bytes drops it (libdw skips each nop).

// Turns a rejected FDE's body into a CIE that no FDE points at: CIE id 0 (4 or 8 bytes), version
// 1, no augmentation, code alignment 1, data alignment -8, return address column 16, then
// DW_CFA_nop. libdw's scan for an address skips CIEs, so it never decodes the old fields, whose
// encoding sprof may not know (the FDE's CIE may be the broken part). A body too short for all
// of that keeps what fits: still a CIE by its id, so never run as an FDE.
void make_unreferenced_cie(std::span<uint8_t> body, bool dwarf64) {
  static constexpr uint8_t kAfterId[] = {1, 0, 1, 0x78, 16};
  std::memset(body.data(), 0, body.size());
  const size_t id_size = dwarf64 ? 8 : 4;
  if (body.size() <= id_size) return;
  const auto rest = body.subspan(id_size);
  std::memcpy(rest.data(), kAfterId, std::min(rest.size(), sizeof kAfterId));
}

struct ImageSection {
  std::string_view name;
  std::span<const uint8_t> bytes;
  uint64_t address = 0;
  uint64_t alignment = 1;
};

// An ELF image with `sections` copied in, in this order (libdw finds them by name and, for
// .eh_frame_hdr, by coming before .eh_frame), then .shstrtab. Returns the image and where each
// section's copy starts in it.
std::vector<uint8_t> image_of(const Elf64_Ehdr& original, std::span<const ImageSection> sections,
                              std::vector<size_t>& offsets) {
  std::string names(1, '\0');
  std::vector<uint32_t> name_offsets;
  for (const ImageSection& s : sections) {
    name_offsets.push_back(static_cast<uint32_t>(names.size()));
    names.append(s.name).push_back('\0');
  }
  const auto shstrtab_name = static_cast<uint32_t>(names.size());
  names.append(".shstrtab").push_back('\0');

  // Layout: ELF header, section names, the sections, section headers (null, ..., .shstrtab).
  const size_t names_offset = sizeof(Elf64_Ehdr);
  size_t at = align8(names_offset + names.size());
  offsets.clear();
  for (const ImageSection& s : sections) {
    offsets.push_back(at);
    at = align8(at + s.bytes.size());
  }
  const size_t header_count = sections.size() + 2;
  std::vector<uint8_t> image(at + header_count * sizeof(Elf64_Shdr), 0);

  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, original.e_ident, EI_NIDENT);
  eh.e_type = original.e_type;
  eh.e_machine = original.e_machine;
  eh.e_version = EV_CURRENT;
  eh.e_shoff = at;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = static_cast<uint16_t>(header_count);
  eh.e_shstrndx = static_cast<uint16_t>(header_count - 1);
  std::memcpy(image.data(), &eh, sizeof eh);
  std::memcpy(image.data() + names_offset, names.data(), names.size());

  std::vector<Elf64_Shdr> headers(header_count);
  for (size_t i = 0; i < sections.size(); ++i) {
    // An empty section's span has no data pointer, and memcpy from null is undefined even for
    // zero bytes.
    if (!sections[i].bytes.empty()) {
      std::memcpy(image.data() + offsets[i], sections[i].bytes.data(), sections[i].bytes.size());
    }
    Elf64_Shdr& h = headers[i + 1];
    h.sh_name = name_offsets[i];
    h.sh_type = SHT_PROGBITS;
    h.sh_flags = SHF_ALLOC;
    h.sh_addr = sections[i].address;
    h.sh_offset = offsets[i];
    h.sh_size = sections[i].bytes.size();
    h.sh_addralign = sections[i].alignment;
  }
  Elf64_Shdr& strtab = headers.back();
  strtab.sh_name = shstrtab_name;
  strtab.sh_type = SHT_STRTAB;
  strtab.sh_offset = names_offset;
  strtab.sh_size = names.size();
  strtab.sh_addralign = 1;
  std::memcpy(image.data() + at, headers.data(), headers.size() * sizeof(Elf64_Shdr));
  return image;
}

}  // namespace

std::vector<uint8_t> eh_frame_only_image(const Elf64_Ehdr& original,
                                         std::span<const uint8_t> eh_frame,
                                         uint64_t eh_frame_address, const CfiSectionIndex& index) {
  const ImageSection sections[] = {{".eh_frame", eh_frame, eh_frame_address, 8}};
  std::vector<size_t> offsets;
  std::vector<uint8_t> image = image_of(original, sections, offsets);
  const std::span<uint8_t> copy(image.data() + offsets[0], eh_frame.size());
  for (const RejectedFde& fde : index.rejected_fdes) {
    if (fde.body.offset + fde.body.size <= copy.size()) {
      make_unreferenced_cie(copy.subspan(fde.body.offset, fde.body.size), fde.dwarf64);
    }
  }
  for (const SectionSpan& span : index.dropped_instructions) {
    if (span.offset + span.size <= copy.size())
      std::memset(copy.data() + span.offset, 0, span.size);
  }
  return image;
}

std::vector<uint8_t> searchable_eh_frame_image(const Elf64_Ehdr& original,
                                               std::span<const uint8_t> eh_frame_hdr,
                                               uint64_t eh_frame_hdr_address,
                                               std::span<const uint8_t> eh_frame,
                                               uint64_t eh_frame_address) {
  const ImageSection sections[] = {{".eh_frame_hdr", eh_frame_hdr, eh_frame_hdr_address, 4},
                                   {".eh_frame", eh_frame, eh_frame_address, 8}};
  std::vector<size_t> offsets;
  return image_of(original, sections, offsets);
}

}  // namespace sprof::elf::detail
