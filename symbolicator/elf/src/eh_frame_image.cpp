#include "eh_frame_image.hpp"

#include <cstring>
#include <string_view>

namespace sprof::elf::detail {
namespace {

constexpr std::string_view kNames("\0.eh_frame\0.shstrtab\0", 21);
constexpr uint32_t kEhFrameName = 1;   // offset of ".eh_frame" in kNames
constexpr uint32_t kShstrtabName = 11;  // offset of ".shstrtab"

size_t align8(size_t n) { return (n + 7) / 8 * 8; }

// DW_CFA_nop is 0, so clearing an instruction's bytes drops it (libdw skips each nop).

// Makes the FDE cover nothing: its pc_range becomes 0 in the field's own format.
void clear_range(std::span<uint8_t> eh_frame, const FdeEntry& fde) {
  if (fde.range_field_size == 0 || fde.range_field_offset + fde.range_field_size > eh_frame.size()) {
    return;
  }
  auto field = eh_frame.subspan(fde.range_field_offset, fde.range_field_size);
  std::memset(field.data(), 0, field.size());
  // A LEB128 zero spread over the field's bytes keeps the instructions after it in place.
  if (fde.range_is_leb128) std::memset(field.data(), 0x80, field.size() - 1);
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
  for (const FdeEntry& fde : index.fdes) {
    if (!fde.valid) clear_range(copy, fde);
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
