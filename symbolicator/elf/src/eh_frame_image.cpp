#include "eh_frame_image.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace sprof::elf::detail {
namespace {

constexpr std::string_view kNames("\0.eh_frame\0.shstrtab\0", 21);
constexpr uint32_t kEhFrameName = 1;   // offset of ".eh_frame" in kNames
constexpr uint32_t kShstrtabName = 11;  // offset of ".shstrtab"

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

}  // namespace

std::vector<uint8_t> eh_frame_only_image(const Elf64_Ehdr& original,
                                         std::span<const uint8_t> eh_frame,
                                         uint64_t eh_frame_address, const CfiSectionIndex& index) {
  // Layout: ELF header, section names, .eh_frame, section headers (null, .eh_frame, .shstrtab).
  const size_t names_offset = sizeof(Elf64_Ehdr);
  const size_t eh_frame_offset = align8(names_offset + kNames.size());
  const size_t headers_offset = align8(eh_frame_offset + eh_frame.size());
  std::vector<uint8_t> image(headers_offset + 3 * sizeof(Elf64_Shdr), 0);

  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, original.e_ident, EI_NIDENT);
  eh.e_type = original.e_type;
  eh.e_machine = original.e_machine;
  eh.e_version = EV_CURRENT;
  eh.e_shoff = headers_offset;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = 3;
  eh.e_shstrndx = 2;
  std::memcpy(image.data(), &eh, sizeof eh);
  std::memcpy(image.data() + names_offset, kNames.data(), kNames.size());

  const std::span<uint8_t> copy(image.data() + eh_frame_offset, eh_frame.size());
  // An empty section's span has no data pointer, and memcpy from null is undefined even for
  // zero bytes.
  if (!eh_frame.empty()) std::memcpy(copy.data(), eh_frame.data(), eh_frame.size());
  for (const RejectedFde& fde : index.rejected_fdes) {
    if (fde.body.offset + fde.body.size <= copy.size()) {
      make_unreferenced_cie(copy.subspan(fde.body.offset, fde.body.size), fde.dwarf64);
    }
  }
  for (const SectionSpan& span : index.dropped_instructions) {
    if (span.offset + span.size <= copy.size()) std::memset(copy.data() + span.offset, 0, span.size);
  }

  Elf64_Shdr sections[3]{};
  sections[1].sh_name = kEhFrameName;
  sections[1].sh_type = SHT_PROGBITS;
  sections[1].sh_flags = SHF_ALLOC;
  sections[1].sh_addr = eh_frame_address;
  sections[1].sh_offset = eh_frame_offset;
  sections[1].sh_size = eh_frame.size();
  sections[1].sh_addralign = 8;
  sections[2].sh_name = kShstrtabName;
  sections[2].sh_type = SHT_STRTAB;
  sections[2].sh_offset = names_offset;
  sections[2].sh_size = kNames.size();
  sections[2].sh_addralign = 1;
  std::memcpy(image.data() + headers_offset, sections, sizeof sections);
  return image;
}

}  // namespace sprof::elf::detail
