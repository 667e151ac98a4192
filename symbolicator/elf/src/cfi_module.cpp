// symbolicator/elf/src/cfi_module.cpp
//
// Owns the libelf/libdw handles behind one `CfiModule` and answers rule lookups from them (see
// cfi_module.hpp for the lookup order). Rows are translated by cfi_frame_translate.cpp.
#include "sprof/elf/cfi_module.hpp"

#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

#include "cfi_frame_translate.hpp"
#include "sprof/core/unique_fd.hpp"
#include "sprof/core/untrusted_file.hpp"

namespace sprof::elf {
namespace {

struct ElfDeleter {
  void operator()(Elf* e) const { elf_end(e); }
};
struct DwarfDeleter {
  void operator()(Dwarf* d) const { dwarf_end(d); }
};
struct CfiDeleter {
  void operator()(Dwarf_CFI* c) const { dwarf_cfi_end(c); }
};
using ElfPtr = std::unique_ptr<Elf, ElfDeleter>;
using DwarfPtr = std::unique_ptr<Dwarf, DwarfDeleter>;
using CfiPtr = std::unique_ptr<Dwarf_CFI, CfiDeleter>;

// Where the separate debug file of a build-id lives (the layout of Debian's -dbg packages and
// of debuginfod caches: /usr/lib/debug/.build-id/<first byte>/<rest>.debug).
constexpr const char* kBuildIdDebugRoot = "/usr/lib/debug/.build-id/";

// An ELF file opened for reading; `fd` stays open as long as `elf` (ELF_C_READ_MMAP).
struct OpenedElf {
  UniqueFd fd;
  ElfPtr elf;
};

Result<OpenedElf> open_elf_file(const std::string& path) {
  elf_version(EV_CURRENT);
  auto file = open_untrusted_file(path, Symlinks::kFollow);
  if (!file) return std::move(file).error().with_context("open CFI file");
  UniqueFd fd = std::move(file->fd);
  ElfPtr elf(elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr));
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF) {
    return fail(Errc::kMalformed, "open CFI file " + path + ": not an ELF file");
  }
  return OpenedElf{std::move(fd), std::move(elf)};
}

std::string hex(const uint8_t* bytes, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 0xf];
  }
  return out;
}

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

bool is_plt_section(std::string_view name) {
  return name == ".plt" || name == ".plt.sec" || name == ".plt.got" || name == ".iplt";
}

}  // namespace

struct CfiModule::Impl {
  std::string name;                  // path or "[memory image]", for messages
  std::vector<uint8_t> image;        // owned bytes for open_image
  OpenedElf file;                    // file.elf is the module's ELF in both cases
  CfiPtr eh_frame;                   // .eh_frame (owned by us)
  DwarfPtr dwarf;                    // the module's own DWARF, for .debug_frame
  Dwarf_CFI* debug_frame = nullptr;  // owned by `dwarf`

  bool debug_file_tried = false;
  OpenedElf debug_file;
  DwarfPtr debug_dwarf;
  Dwarf_CFI* debug_file_frame = nullptr;  // owned by `debug_dwarf`

  struct CodeSection {
    uint64_t addr = 0;
    uint64_t size = 0;
    Elf_Scn* scn = nullptr;
    bool plt = false;
  };
  std::vector<CodeSection> code;

  void index_code_sections();
  void load_cfi();
  void load_debug_file();
  std::optional<FrameRule> lookup(Dwarf_CFI* cfi, uint64_t svma) const;
};

void CfiModule::Impl::index_code_sections() {
  Elf* elf = file.elf.get();
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
  eh_frame.reset(dwarf_getcfi_elf(file.elf.get()));
  dwarf.reset(dwarf_begin_elf(file.elf.get(), DWARF_C_READ, nullptr));
  if (dwarf) debug_frame = dwarf_getcfi(dwarf.get());
}

// The separate debug file may carry a .debug_frame that the stripped file lacks. Looked up by
// build-id only; a missing file is normal and simply leaves this source empty.
void CfiModule::Impl::load_debug_file() {
  debug_file_tried = true;
  const void* id = nullptr;
  const ssize_t id_size = dwelf_elf_gnu_build_id(file.elf.get(), &id);
  if (id_size < 2) return;
  const auto* bytes = static_cast<const uint8_t*>(id);
  const std::string path = kBuildIdDebugRoot + hex(bytes, 1) + "/" +
                           hex(bytes + 1, static_cast<size_t>(id_size) - 1) + ".debug";
  auto opened = open_elf_file(path);
  if (!opened) return;
  debug_file = std::move(*opened);
  debug_dwarf.reset(dwarf_begin_elf(debug_file.elf.get(), DWARF_C_READ, nullptr));
  if (debug_dwarf) debug_file_frame = dwarf_getcfi(debug_dwarf.get());
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
  auto impl = std::make_unique<Impl>();
  impl->name = path;
  SPROF_TRY(impl->file, open_elf_file(path));
  impl->index_code_sections();
  impl->load_cfi();
  return std::unique_ptr<CfiModule>(new CfiModule(std::move(impl)));
}

Result<std::unique_ptr<CfiModule>> CfiModule::open_image(std::span<const uint8_t> image) {
  elf_version(EV_CURRENT);
  auto impl = std::make_unique<Impl>();
  impl->name = "[memory image]";
  impl->image.assign(image.begin(), image.end());
  impl->file.elf.reset(elf_memory(reinterpret_cast<char*>(impl->image.data()), impl->image.size()));
  if (!impl->file.elf || elf_kind(impl->file.elf.get()) != ELF_K_ELF) {
    return fail(Errc::kMalformed, "open CFI image: not an ELF image");
  }
  impl->debug_file_tried = true;  // a memory image (the vdso) has no debug file to find
  impl->index_code_sections();
  impl->load_cfi();
  return std::unique_ptr<CfiModule>(new CfiModule(std::move(impl)));
}

std::optional<FrameRule> CfiModule::find_rule(uint64_t svma) {
  if (auto rule = impl_->lookup(impl_->eh_frame.get(), svma)) return rule;
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

bool CfiModule::read_code(uint64_t svma, std::span<uint8_t> out) const {
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

bool CfiModule::has_cfi() const {
  return impl_->eh_frame != nullptr || impl_->debug_frame != nullptr ||
         impl_->debug_file_frame != nullptr;
}

}  // namespace sprof::elf
