#include "elf_file.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
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
    : path_(std::move(other.path_)),
      fd_(std::move(other.fd_)),
      elf_(std::exchange(other.elf_, nullptr)),
      ehdr_(other.ehdr_),
      read_only_mapping_(std::exchange(other.read_only_mapping_, {})) {}

ElfFile& ElfFile::operator=(ElfFile&& other) noexcept {
  if (this != &other) {
    if (elf_ != nullptr) elf_end(elf_);
    elf_ = std::exchange(other.elf_, nullptr);
    path_ = std::move(other.path_);
    fd_ = std::move(other.fd_);
    ehdr_ = other.ehdr_;
    read_only_mapping_ = std::exchange(other.read_only_mapping_, {});
  }
  return *this;
}

ElfFile::~ElfFile() {
  if (elf_ != nullptr) elf_end(elf_);
}

namespace {

// The file's image when it lies in a file mapping of its own: what ELF_C_READ_MMAP makes when
// mmap succeeds (the whole file, PROT_READ, MAP_PRIVATE); empty when libelf read the file into
// allocated memory instead, whose pages must never be given back. /proc/self/map_files lists
// exactly the file-backed mappings, by range, so one lookup of the image's page range answers.
// (This read all of /proc/self/maps before: its text grows with every mapping of the process,
// and it took ~40 % of a fuzzing run that opens one small ELF file per input.)
std::span<const uint8_t> read_only_mapping(Elf* elf) {
  size_t size = 0;
  const char* image = elf_rawfile(elf, &size);
  if (image == nullptr || size == 0) return {};
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(image);
  if (begin % page != 0) return {};  // not where mmap puts a mapping
  const uintptr_t end = begin + ((size + page - 1) & ~(page - 1));
  char link[64];
  std::snprintf(link, sizeof link, "/proc/self/map_files/%lx-%lx",
                static_cast<unsigned long>(begin), static_cast<unsigned long>(end));
  char target[1];
  if (readlink(link, target, sizeof target) < 0) return {};
  return {reinterpret_cast<const uint8_t*>(image), size};
}

}  // namespace

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
  ElfFile opened(std::move(fd), elf, *header);
  opened.path_ = path;
  opened.read_only_mapping_ = read_only_mapping(elf);
  return opened;
}

Result<std::shared_ptr<ElfFile>> ElfFile::open_shared(const std::string& path) {
  SPROF_TRY(ElfFile file, open(path));
  return std::make_shared<ElfFile>(std::move(file));
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
  ElfFile opened(UniqueFd(), elf, *header);
  opened.path_ = "ELF image in memory";
  return opened;
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

void ElfFile::release_descriptor() {
  if (elf_ == nullptr || !fd_.valid()) return;
  // ELF_C_FDREAD reads what is not mapped yet (nothing, for ELF_C_READ_MMAP); then libelf
  // promises not to touch the descriptor again.
  if (elf_cntl(elf_, ELF_C_FDREAD) != 0 || elf_cntl(elf_, ELF_C_FDDONE) != 0) return;
  fd_ = UniqueFd();
}

void ElfFile::drop_mapped_pages() const {
  if (read_only_mapping_.empty()) return;
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(read_only_mapping_.data()) & ~(page - 1);
  const auto end =
      reinterpret_cast<uintptr_t>(read_only_mapping_.data()) + read_only_mapping_.size();
  // Clean pages of a read-only private file mapping: MADV_DONTNEED only unmaps them here.
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
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
