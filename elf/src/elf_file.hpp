// elf_file.hpp (private to sprof::elf)
//
// RAII owner of a libelf `Elf*` opened on a file (read-only mmap) or on bytes in memory, plus
// the section lookups every reader in sprof::elf needs. Constructors don't fail; `open` does.
// An `ElfFile` is not thread-safe; open one per thread (libelf handles are cheap).
#pragma once

#include <gelf.h>
#include <libelf.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sprof/core/result.hpp"
#include "sprof/core/unique_fd.hpp"

namespace sprof::elf {

class ElfFile {
 public:
  ElfFile() = default;
  ElfFile(ElfFile&& other) noexcept;
  ElfFile& operator=(ElfFile&& other) noexcept;
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;
  ~ElfFile();

  // Opens `path` and checks that it is an ELF file (kNotFound if missing, kMalformed if not ELF).
  static Result<ElfFile> open(const std::string& path);
  // Same, shared between the readers it is handed to (sprof/elf/elf_file_handle.hpp).
  static Result<std::shared_ptr<ElfFile>> open_shared(const std::string& path);
  // Wraps bytes that must outlive the ElfFile (e.g. a vdso image).
  static Result<ElfFile> from_memory(std::span<const uint8_t> image);

  // The path it was opened from, or "ELF image in memory"; for messages.
  const std::string& path() const { return path_; }
  Elf* get() const { return elf_; }
  int fd() const { return fd_.get(); }
  const GElf_Ehdr& header() const { return ehdr_; }
  bool little_endian() const { return ehdr_.e_ident[EI_DATA] == ELFDATA2LSB; }

  // The first section named `name`, or nullptr.
  Elf_Scn* section_by_name(std::string_view name) const;
  // A section's bytes as stored in the file (no byte-order translation); empty for SHT_NOBITS
  // or when the data cannot be read.
  std::span<const uint8_t> section_bytes(Elf_Scn* section) const;

  // Closes the file descriptor once libelf holds the whole file (mapped, or read into memory),
  // for readers that keep a file open for long: the handle stays usable.
  void release_descriptor();

  // Gives back this process's copies of the file's pages, when libelf mapped the file read-only
  // (ELF_C_READ_MMAP falls back to reading it into memory when it cannot map it; then this does
  // nothing). The bytes stay readable: the next read faults them in again from the page cache.
  // For readers that walk a large file once, so that what they have read stops counting against
  // the process's resident set. Safe while other threads read the file.
  void drop_mapped_pages() const;

 private:
  ElfFile(UniqueFd fd, Elf* elf, const GElf_Ehdr& ehdr);

  std::string path_;
  UniqueFd fd_;
  Elf* elf_ = nullptr;
  GElf_Ehdr ehdr_{};
  std::span<const uint8_t> read_only_mapping_;  // the whole file, when libelf mapped it so
};

// The sections of x86-64 PLT stubs: lazy-binding `.plt`, IBT's `.plt.sec`, `.plt.got` for calls
// bound at load time, and `.iplt` (IFUNC calls in static binaries). The unwinder gives them a
// synthesized frame rule, the symbolicator names their stubs.
inline bool is_plt_section(std::string_view name) {
  return name == ".plt" || name == ".plt.sec" || name == ".plt.got" || name == ".iplt";
}

}  // namespace sprof::elf
