#include "elf_file.hpp"

#include <cstring>
#include <mutex>
#include <utility>

#include "sprof/core/untrusted_file.hpp"

namespace sprof::elf {
namespace {

// libelf requires elf_version() before any other call; it only records the version, so calling
// it once per process is enough.
void init_libelf() {
  static std::once_flag once;
  std::call_once(once, [] { elf_version(EV_CURRENT); });
}

Result<GElf_Ehdr> read_header(Elf* elf, const std::string& what) {
  GElf_Ehdr ehdr;
  if (elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &ehdr) == nullptr) {
    return fail(Errc::kMalformed, what + ": not an ELF file");
  }
  return ehdr;
}

}  // namespace

ElfFile::ElfFile(UniqueFd fd, Elf* elf, const GElf_Ehdr& ehdr)
    : fd_(std::move(fd)), elf_(elf), ehdr_(ehdr) {}

ElfFile::ElfFile(ElfFile&& other) noexcept
    : fd_(std::move(other.fd_)), elf_(std::exchange(other.elf_, nullptr)), ehdr_(other.ehdr_) {}

ElfFile& ElfFile::operator=(ElfFile&& other) noexcept {
  if (this != &other) {
    if (elf_ != nullptr) elf_end(elf_);
    elf_ = std::exchange(other.elf_, nullptr);
    fd_ = std::move(other.fd_);
    ehdr_ = other.ehdr_;
  }
  return *this;
}

ElfFile::~ElfFile() {
  if (elf_ != nullptr) elf_end(elf_);
}

Result<ElfFile> ElfFile::open(const std::string& path) {
  init_libelf();
  // Module paths come from profiles and mappings; build-id links are symlinks by design.
  SPROF_TRY(UntrustedFile file, open_untrusted_file(path, Symlinks::kFollow));
  UniqueFd fd = std::move(file.fd);
  Elf* elf = elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr);
  if (elf == nullptr) {
    return fail(Errc::kMalformed, "elf_begin(" + path + "): " + elf_errmsg(-1));
  }
  auto header = read_header(elf, path);
  if (!header) {
    elf_end(elf);
    return std::move(header).error();
  }
  return ElfFile(std::move(fd), elf, *header);
}

Result<ElfFile> ElfFile::from_memory(std::span<const uint8_t> image) {
  init_libelf();
  // elf_memory takes a non-const pointer but only reads when the handle is used read-only.
  auto* bytes = const_cast<char*>(reinterpret_cast<const char*>(image.data()));
  Elf* elf = elf_memory(bytes, image.size());
  if (elf == nullptr) return fail(Errc::kMalformed, std::string("elf_memory: ") + elf_errmsg(-1));
  auto header = read_header(elf, "ELF image in memory");
  if (!header) {
    elf_end(elf);
    return std::move(header).error();
  }
  return ElfFile(UniqueFd(), elf, *header);
}

Elf_Scn* ElfFile::section_by_name(std::string_view name) const {
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf_, &shstrndx) != 0) return nullptr;
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn != nullptr; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) continue;
    const char* scn_name = elf_strptr(elf_, shstrndx, shdr.sh_name);
    if (scn_name != nullptr && name == scn_name) return scn;
  }
  return nullptr;
}

std::span<const uint8_t> ElfFile::section_bytes(Elf_Scn* section) const {
  GElf_Shdr shdr;
  if (section == nullptr || gelf_getshdr(section, &shdr) == nullptr || shdr.sh_type == SHT_NOBITS) {
    return {};
  }
  Elf_Data* data = elf_rawdata(section, nullptr);
  if (data == nullptr || data->d_buf == nullptr) return {};
  return {static_cast<const uint8_t*>(data->d_buf), data->d_size};
}

}  // namespace sprof::elf
