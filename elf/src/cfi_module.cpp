// elf/src/cfi_module.cpp
//
// Owns the libelf/libdw handles behind one `CfiModule` and answers rule lookups from them (see
// cfi_module.hpp for the lookup order). Rows are translated by cfi_frame_translate.cpp.
#include "sprof/elf/cfi_module.hpp"

#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>

#include <bit>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "cfi_frame_translate.hpp"
#include "cfi_section_index.hpp"
#include "eh_frame_hdr_check.hpp"
#include "eh_frame_image.hpp"
#include "elf_file.hpp"
#include "sprof/core/hex.hpp"
#include "sprof/core/log.hpp"
#include "sprof/elf/module_identity.hpp"

namespace sprof::elf {
namespace {

struct DwarfDeleter {
  void operator()(Dwarf* d) const { dwarf_end(d); }
};
struct CfiDeleter {
  void operator()(Dwarf_CFI* c) const { dwarf_cfi_end(c); }
};
using DwarfPtr = std::unique_ptr<Dwarf, DwarfDeleter>;
using CfiPtr = std::unique_ptr<Dwarf_CFI, CfiDeleter>;

// PLT entries are tiny jump stubs that do not touch the stack, so even without an FDE the frame
// is "CFA = rsp + 8, return address at CFA - 8" (the psABI's state at a call target).
FrameRule plt_rule(uint64_t start, uint64_t end) {
  FrameRule rule;
  rule.pc_start = start;
  rule.pc_end = end;
  rule.synthesized = true;
  rule.cfa_kind = FrameRule::CfaKind::kRegOffset;
  rule.cfa_reg = static_cast<uint8_t>(DwarfReg::kRsp);
  rule.cfa_offset = 8;
  rule.rule(DwarfReg::kRip) = {RegisterRule::Kind::kOffset, 0, -8, {}};
  rule.rule(DwarfReg::kRsp) = {RegisterRule::Kind::kValOffset, 0, 0, {}};
  return rule;
}

// The first section called `name` (as libdw's getcfi_shdr finds it) and its header.
struct NamedSection {
  Elf_Scn* scn = nullptr;
  GElf_Shdr shdr{};
};
NamedSection find_section(const ElfFile& file, std::string_view name) {
  NamedSection found{file.section_by_name(name), {}};
  if (found.scn == nullptr || gelf_getshdr(found.scn, &found.shdr) == nullptr) return {};
  return found;
}

// A section's bytes as libdw reads them: after dwarf_begin_elf has inflated it in place.
std::span<const uint8_t> inflated_section_bytes(Elf_Scn* scn) {
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (data == nullptr || data->d_buf == nullptr) return {};
  return {static_cast<const uint8_t*>(data->d_buf), data->d_size};
}

// dwarf_begin_elf inflates every compressed debug section of the file up front (libc's debug
// file: tens of MB), and sprof opens a file's DWARF here only for its .debug_frame. Most files
// have none (x86-64 toolchains emit .eh_frame), so look for the section first.
bool has_debug_frame(const ElfFile& file) {
  return file.section_by_name(".debug_frame") != nullptr;
}

// What a made-up image keeps of the module's ELF header: e_ident, e_type and e_machine (libdw
// picks the ABI's default rules by machine).
Elf64_Ehdr image_header(const GElf_Ehdr& ehdr) {
  Elf64_Ehdr original{};
  std::memcpy(original.e_ident, ehdr.e_ident, EI_NIDENT);
  original.e_type = ehdr.e_type;
  original.e_machine = ehdr.e_machine;
  return original;
}

// The index checks multi-byte fields in host byte order; other files are left to libdw as is.
bool checkable(const GElf_Ehdr& ehdr) {
  const bool host_little = std::endian::native == std::endian::little;
  return ehdr.e_ident[EI_DATA] == (host_little ? ELFDATA2LSB : ELFDATA2MSB);
}

}  // namespace

struct CfiModule::Impl {
  std::string name;            // path or "[memory image]", for messages
  std::vector<uint8_t> image;  // owned bytes for open_image
  ElfFile file;                // the module's ELF in both cases
  // When .eh_frame had to be set aside: a copy that libdw reads instead (eh_frame_image.hpp).
  std::vector<uint8_t> eh_frame_image;
  ElfFile eh_frame_elf;
  CfiPtr eh_frame;                   // .eh_frame (owned by us)
  DwarfPtr dwarf;                    // the module's own DWARF, for .debug_frame
  Dwarf_CFI* debug_frame = nullptr;  // owned by `dwarf`

  // Where the separate debug file is looked for; none for a memory image (the vdso).
  std::optional<DebugFileLocator> debug_files;
  bool debug_file_tried = false;
  SharedElfFile debug_file;  // as the locator opened it
  DwarfPtr debug_dwarf;
  Dwarf_CFI* debug_file_frame = nullptr;  // owned by `debug_dwarf`

  struct CodeSection {
    uint64_t addr = 0;
    uint64_t size = 0;
    Elf_Scn* scn = nullptr;
    bool plt = false;
  };
  std::vector<CodeSection> code;
  Integrity integrity;

  // The cheap path for a well-formed .eh_frame (most files): libdw reads the file's own
  // sections, and sprof checks each FDE only when a lookup first needs it, finding it in the
  // search table exactly as libdw will. Checking all of a large file up front costs
  // milliseconds (cc1plus: 2.6 MB of .eh_frame, ~10 ms) when a recording uses a few hundred
  // FDEs. At the first doubt (an FDE that is not clean, an address the table's FDE does not
  // cover: the table may leave FDEs out) the whole section is checked as before, and libdw
  // gets whatever that decides; so results never differ from checking everything first.
  struct LazyEhFrame {
    LazyEhFrame(detail::EhFrameSearchTable t, const detail::CfiSection& section)
        : table(t), checker(section) {}
    detail::EhFrameSearchTable table;
    detail::FdeChecker checker;
    std::unordered_map<uint64_t, std::optional<detail::FdeEntry>> clean_fdes;  // by offset

    // Whether libdw may look `svma` up in the file's own .eh_frame: the FDE it will read is
    // clean and covers `svma`.
    bool may_look_up(uint64_t svma);
  };
  std::unique_ptr<LazyEhFrame> lazy_eh_frame;

  void index_code_sections();
  void load_cfi();
  Dwarf_CFI* checked_eh_frame();
  Dwarf_CFI* fully_checked_eh_frame();
  Dwarf_CFI* cfi_of_image(std::vector<uint8_t> made_image);
  std::optional<FrameRule> eh_frame_rule(uint64_t svma);
  Dwarf_CFI* checked_debug_frame(const ElfFile& elf_file, Dwarf* dw);
  void load_debug_file();
  std::optional<FrameRule> lookup(Dwarf_CFI* cfi, uint64_t svma) const;
};

void CfiModule::Impl::index_code_sections() {
  Elf* elf = file.get();
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) continue;
    if (shdr.sh_type != SHT_PROGBITS || (shdr.sh_flags & SHF_EXECINSTR) == 0) continue;
    const char* scn_name = elf_strptr(elf, shstrndx, shdr.sh_name);
    code.push_back({shdr.sh_addr, shdr.sh_size, scn, scn_name && is_plt_section(scn_name)});
  }
}

void CfiModule::Impl::load_cfi() {
  eh_frame.reset(checked_eh_frame());
  if (!has_debug_frame(file)) return;
  dwarf.reset(dwarf_begin_elf(file.get(), DWARF_C_READ, nullptr));
  if (dwarf) debug_frame = checked_debug_frame(file, dwarf.get());
}

bool CfiModule::Impl::LazyEhFrame::may_look_up(uint64_t svma) {
  const auto hit = table.find(svma);
  if (!hit) return false;
  auto [verdict, is_new] = clean_fdes.try_emplace(hit->fde_offset);
  if (is_new) verdict->second = checker.clean_fde_at(hit->fde_offset);
  const std::optional<detail::FdeEntry>& fde = verdict->second;
  return fde && svma >= fde->pc_begin && svma - fde->pc_begin < fde->pc_range;
}

// .eh_frame as libdw should read it, from the start: the file's own sections, checked FDE by
// FDE as lookups need them when the search table allows (LazyEhFrame), else checked whole now.
Dwarf_CFI* CfiModule::Impl::checked_eh_frame() {
  Elf* elf = file.get();
  const GElf_Ehdr& ehdr = file.header();
  const NamedSection eh = find_section(file, ".eh_frame");
  if (eh.scn == nullptr || eh.shdr.sh_type == SHT_NOBITS || ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
      !checkable(ehdr)) {
    return dwarf_getcfi_elf(elf);  // no section to check (libdw may still use PT_GNU_EH_FRAME)
  }
  const NamedSection hdr = find_section(file, ".eh_frame_hdr");
  if (hdr.scn != nullptr) {
    const auto eh_bytes = file.section_bytes(eh.scn);
    const auto hdr_bytes = file.section_bytes(hdr.scn);
    auto table = detail::EhFrameSearchTable::searchable(
        {hdr_bytes, hdr.shdr.sh_addr, eh.shdr.sh_addr, 8}, eh_bytes.size());
    if (table) {
      lazy_eh_frame = std::make_unique<LazyEhFrame>(
          *table, detail::CfiSection{eh_bytes, eh.shdr.sh_addr, detail::CfiFormat::kEhFrame, 8,
                                     detail::dwarf_register_count(ehdr.e_machine)});
      // libdw uses the table only when .eh_frame_hdr precedes .eh_frame in the section table
      // (GNU ld's and LLD's order). After it (gold's and mold's, libLLVM's), libdw would scan
      // .eh_frame linearly: give it a copy of the two sections in GNU ld's order instead
      // (eh_frame_image.hpp).
      if (elf_ndxscn(hdr.scn) < elf_ndxscn(eh.scn)) return dwarf_getcfi_elf(elf);
      if (Dwarf_CFI* cfi = cfi_of_image(detail::searchable_eh_frame_image(
              image_header(ehdr), hdr_bytes, hdr.shdr.sh_addr, eh_bytes, eh.shdr.sh_addr))) {
        return cfi;
      }
      lazy_eh_frame.reset();
    }
  }
  return fully_checked_eh_frame();
}

// .eh_frame as libdw should read it after checking all of it: the file's own sections when
// sprof's index agrees with them, else the copy without the search table and with the invalid
// FDEs emptied.
Dwarf_CFI* CfiModule::Impl::fully_checked_eh_frame() {
  const GElf_Ehdr& ehdr = file.header();
  const NamedSection eh = find_section(file, ".eh_frame");
  if (eh.scn == nullptr) return nullptr;
  const auto eh_bytes = file.section_bytes(eh.scn);
  const detail::CfiSectionIndex index =
      detail::index_cfi_section({eh_bytes, eh.shdr.sh_addr, detail::CfiFormat::kEhFrame, 8,
                                 detail::dwarf_register_count(ehdr.e_machine)});
  // libdw uses the header only when it precedes .eh_frame in the section table.
  std::string hdr_problem;
  const NamedSection hdr = find_section(file, ".eh_frame_hdr");
  if (hdr.scn != nullptr && elf_ndxscn(hdr.scn) < elf_ndxscn(eh.scn)) {
    hdr_problem = detail::eh_frame_hdr_problem(
        {file.section_bytes(hdr.scn), hdr.shdr.sh_addr, eh.shdr.sh_addr, 8}, index);
  }
  if (index.rejected_fdes.empty() && index.dropped_instructions.empty() && hdr_problem.empty()) {
    return dwarf_getcfi_elf(file.get());
  }

  integrity.rejected_fdes = static_cast<uint32_t>(index.rejected_fdes.size());
  integrity.dropped_rules = static_cast<uint32_t>(index.dropped_instructions.size());
  integrity.eh_frame_hdr_rejected = !hdr_problem.empty();
  integrity.first_problem = !hdr_problem.empty()           ? hdr_problem
                            : !index.first_problem.empty() ? index.first_problem
                                                           : index.first_dropped;
  if (!hdr_problem.empty()) {
    log::warn(name + ": " + hdr_problem + "; unwinding scans .eh_frame instead of its table");
  }
  if (!index.rejected_fdes.empty()) {
    log::warn(name + ": " + std::to_string(index.rejected_fdes.size()) +
              " FDE(s) in .eh_frame are not used for unwinding; the first: " + index.first_problem);
  }
  if (!index.dropped_instructions.empty()) {
    log::warn(name + ": " + std::to_string(index.dropped_instructions.size()) +
              " CFI rule(s) for registers this machine lacks are ignored; the first: " +
              index.first_dropped);
  }
  return cfi_of_image(
      detail::eh_frame_only_image(image_header(ehdr), eh_bytes, eh.shdr.sh_addr, index));
}

// Keeps `made_image` (an ELF image made by eh_frame_image.hpp) as the module's .eh_frame copy
// and returns libdw's CFI of it, or null when libelf cannot read it.
Dwarf_CFI* CfiModule::Impl::cfi_of_image(std::vector<uint8_t> made_image) {
  eh_frame_image = std::move(made_image);
  auto image_file = ElfFile::from_memory(eh_frame_image);
  if (!image_file) return nullptr;
  eh_frame_elf = std::move(*image_file);
  return dwarf_getcfi_elf(eh_frame_elf.get());
}

// The .debug_frame of `dw`, or null when the checks find anything in it. It is a fallback after
// .eh_frame, so setting all of it aside loses little. Read after dwarf_begin_elf,
// which has decompressed a compressed section in place.
Dwarf_CFI* CfiModule::Impl::checked_debug_frame(const ElfFile& elf_file, Dwarf* dw) {
  const GElf_Ehdr& ehdr = elf_file.header();
  const NamedSection section = find_section(elf_file, ".debug_frame");
  if (section.scn != nullptr && checkable(ehdr)) {
    const uint8_t address_size = ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
    const detail::CfiSectionIndex index = detail::index_cfi_section(
        {inflated_section_bytes(section.scn), 0, detail::CfiFormat::kDebugFrame, address_size,
         detail::dwarf_register_count(ehdr.e_machine)});
    // No repaired copy is made of .debug_frame (libdw reads it through the file's Dwarf), so
    // any finding sets the whole section aside.
    if (!index.rejected_fdes.empty() || !index.dropped_instructions.empty()) {
      const std::string& problem =
          index.first_problem.empty() ? index.first_dropped : index.first_problem;
      integrity.debug_frame_rejected = true;
      if (integrity.first_problem.empty()) integrity.first_problem = problem;
      log::warn(name + ": .debug_frame is not used for unwinding: " + problem);
      return nullptr;
    }
  }
  return dwarf_getcfi(dw);
}

// The separate debug file may carry a .debug_frame that the stripped file lacks. It is found
// where the symbolicator finds it (symbol dirs, build-id trees, .gnu_debuglink); a missing file
// is normal and simply leaves this source empty.
void CfiModule::Impl::load_debug_file() {
  debug_file_tried = true;
  if (!debug_files) return;
  debug_file = debug_files->find_debug_file(name, read_module_identity(file)).file;
  if (!debug_file || !has_debug_frame(*debug_file)) return;
  debug_dwarf.reset(dwarf_begin_elf(debug_file->get(), DWARF_C_READ, nullptr));
  if (debug_dwarf) debug_file_frame = checked_debug_frame(*debug_file, debug_dwarf.get());
}

std::optional<FrameRule> CfiModule::Impl::lookup(Dwarf_CFI* cfi, uint64_t svma) const {
  if (cfi == nullptr) return std::nullopt;
  Dwarf_Frame* frame = nullptr;
  if (dwarf_cfi_addrframe(cfi, svma, &frame) != 0 || frame == nullptr) return std::nullopt;
  auto rule = detail::translate_frame(frame);
  std::free(frame);  // dwarf_cfi_addrframe: "*FRAME is a malloc'd pointer"
  // libdw 0.188 reports a row's end correctly, but after DW_CFA_restore_state its start is the
  // start of the row that DW_CFA_remember_state saved, which can lie in a different row (seen in
  // glibc's msort_with_tmp epilogue). Only [svma, end) is known to share this rule.
  if (rule && rule->pc_start < svma) rule->pc_start = svma;
  return rule;
}

CfiModule::CfiModule(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CfiModule::~CfiModule() = default;

Result<std::unique_ptr<CfiModule>> CfiModule::open(const std::string& path) {
  return open(path, DebugFileLocator(LocatorOptions{}));
}

Result<std::unique_ptr<CfiModule>> CfiModule::open(const std::string& path,
                                                   DebugFileLocator debug_files) {
  auto impl = std::make_unique<Impl>();
  impl->name = path;
  auto opened = ElfFile::open(path);
  if (!opened) return std::move(opened).error().with_context("open CFI file");
  impl->file = std::move(*opened);
  impl->debug_files = std::move(debug_files);
  impl->index_code_sections();
  impl->load_cfi();
  return std::unique_ptr<CfiModule>(new CfiModule(std::move(impl)));
}

Result<std::unique_ptr<CfiModule>> CfiModule::open_image(std::span<const uint8_t> image) {
  auto impl = std::make_unique<Impl>();
  impl->name = "[memory image]";
  impl->image.assign(image.begin(), image.end());
  auto opened = ElfFile::from_memory(impl->image);
  if (!opened) return fail(Errc::kMalformed, "open CFI image: not an ELF image");
  impl->file = std::move(*opened);
  impl->index_code_sections();
  impl->load_cfi();
  return std::unique_ptr<CfiModule>(new CfiModule(std::move(impl)));
}

std::optional<FrameRule> CfiModule::Impl::eh_frame_rule(uint64_t svma) {
  if (lazy_eh_frame && !lazy_eh_frame->may_look_up(svma)) {
    if (log::enabled(log::Level::kDebug)) {
      log::debug(name + ": checking all of .eh_frame: the FDE its table gives for " +
                 to_hex_number(svma) + " is not one libdw may read as it is");
    }
    lazy_eh_frame.reset();
    // The reordered copy (if any) goes with the CFI read from it, before the check makes its own.
    eh_frame.reset();
    eh_frame_elf = ElfFile();
    eh_frame_image.clear();
    eh_frame.reset(fully_checked_eh_frame());
  }
  return lookup(eh_frame.get(), svma);
}

std::optional<FrameRule> CfiModule::find_rule(Svma address) {
  const uint64_t svma = address.value;
  if (auto rule = impl_->eh_frame_rule(svma)) return rule;
  if (auto rule = impl_->lookup(impl_->debug_frame, svma)) return rule;
  if (!impl_->debug_file_tried && impl_->debug_frame == nullptr) impl_->load_debug_file();
  if (auto rule = impl_->lookup(impl_->debug_file_frame, svma)) return rule;
  for (const auto& section : impl_->code) {
    if (section.plt && svma >= section.addr && svma - section.addr < section.size) {
      return plt_rule(section.addr, section.addr + section.size);
    }
  }
  return std::nullopt;
}

bool CfiModule::read_code(Svma address, std::span<uint8_t> out) const {
  const uint64_t svma = address.value;
  for (const auto& section : impl_->code) {
    if (svma < section.addr || svma - section.addr > section.size ||
        section.size - (svma - section.addr) < out.size()) {
      continue;
    }
    Elf_Data* data = elf_getdata(section.scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr || data->d_size < section.size) return false;
    std::memcpy(out.data(), static_cast<const uint8_t*>(data->d_buf) + (svma - section.addr),
                out.size());
    return true;
  }
  return false;
}

const CfiModule::Integrity& CfiModule::integrity() const { return impl_->integrity; }

bool CfiModule::eh_frame_searched() const { return impl_->lazy_eh_frame != nullptr; }

bool CfiModule::has_cfi() const {
  return impl_->eh_frame != nullptr || impl_->debug_frame != nullptr ||
         impl_->debug_file_frame != nullptr;
}

}  // namespace sprof::elf
