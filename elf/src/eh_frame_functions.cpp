// The function ranges of .eh_frame, taken from sprof's one walk of a CFI section
// (cfi_section_index.hpp), which the unwinder uses too.
#include "sprof/elf/eh_frame_functions.hpp"

#include <algorithm>

#include "cfi_section_index.hpp"
#include "elf_file.hpp"

namespace sprof::elf {

Result<EhFrameFunctions> read_eh_frame_functions(const std::string& path) {
  SPROF_TRY(ElfFile file, ElfFile::open(path));
  return read_eh_frame_functions(file);
}

Result<EhFrameFunctions> read_eh_frame_functions(const ElfFile& file) {
  if (!file.little_endian()) {
    return fail(Errc::kUnsupported, file.path() + ": big-endian .eh_frame");
  }
  EhFrameFunctions out;
  Elf_Scn* section = file.section_by_name(".eh_frame");
  GElf_Shdr shdr;
  if (section == nullptr || gelf_getshdr(section, &shdr) == nullptr) return out;

  detail::CfiSection cfi;
  cfi.bytes = file.section_bytes(section);
  cfi.address = shdr.sh_addr;
  cfi.format = detail::CfiFormat::kEhFrame;
  cfi.address_size = file.header().e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
  cfi.register_count = detail::dwarf_register_count(file.header().e_machine);
  const detail::CfiSectionIndex index = detail::index_cfi_section(cfi);

  // An FDE's range counts when its CIE stated how to read it; whether its instructions would
  // unwind does not matter here. FDEs whose range does not decode are not in the index.
  size_t indexed_invalid = 0;
  for (const detail::FdeEntry& fde : index.fdes) {
    if (!fde.valid) ++indexed_invalid;
    if (!fde.cie_valid) {
      ++out.skipped_fdes;
    } else if (fde.pc_range > 0) {
      out.functions.push_back(FunctionRange{fde.pc_begin, fde.pc_begin + fde.pc_range});
    }
  }
  out.skipped_fdes += index.rejected_fdes.size() - indexed_invalid;
  std::sort(out.functions.begin(), out.functions.end(),
            [](const FunctionRange& a, const FunctionRange& b) { return a.begin < b.begin; });
  return out;
}

}  // namespace sprof::elf
