// sprof/elf/module_identity.hpp
//
// What sprof needs to know about an ELF file to name it in a profile and to find it again when
// symbolicating: its build-id (or a .text-fold fallback identity), its PT_LOAD segments, and the
// "v0" base (p_vaddr of the first PT_LOAD) that relative addresses are measured from
// (docs/firefox-profiler-format.md, "Relative addresses"). Reading is cheap: headers and notes
// only, no DWARF.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sprof/core/address.hpp"
#include "sprof/core/build_id.hpp"
#include "sprof/core/result.hpp"
#include "sprof/elf/elf_file_handle.hpp"

namespace sprof::elf {

struct LoadSegment {
  uint64_t vaddr = 0;   // p_vaddr
  uint64_t offset = 0;  // p_offset
  uint64_t filesz = 0;  // p_filesz
  uint64_t memsz = 0;   // p_memsz
  uint64_t align = 0;   // p_align: at least the page size the loader maps with
  bool executable = false;
};

struct ModuleIdentity {
  BuildId build_id;  // NT_GNU_BUILD_ID, or the .text fold when there is none
  bool has_gnu_build_id = false;
  bool little_endian = true;
  uint16_t machine = 0;     // e_machine
  uint64_t base_vaddr = 0;  // v0: p_vaddr of the first PT_LOAD
  std::vector<LoadSegment> loads;
  std::string debuglink;  // .gnu_debuglink file name, empty if none
  uint32_t debuglink_crc = 0;
  bool has_debug_info = false;  // a .debug_info section with contents (not SHT_NOBITS)
  bool has_symtab = false;      // a .symtab section with contents

  std::string breakpad_id() const { return build_id.breakpad_id(little_endian); }
  std::string code_id() const { return has_gnu_build_id ? build_id.code_id() : std::string(); }
  // The one place that converts between a module's address spaces (docs/addresses.md).
  //
  // The SVMA of the first byte of a mapping of this file at page offset `pgoff` (what
  // PERF_RECORD_MMAP2 and /proc/PID/maps report), nullopt when no PT_LOAD maps that page.
  // The loader maps each PT_LOAD from the page that holds its first byte, so a mapping starts
  // at round_down(p_offset) and its SVMA is p_vaddr - (p_offset - pgoff). GNU ld page-aligns
  // every segment's offset; LLD and mold pack segments into shared file pages and shift
  // p_vaddr instead, so one file page can start an executable mapping of one segment and a
  // read-only mapping of the one before: `executable` (the mapping's permission) picks.
  std::optional<Svma> svma_of_mapping(FileOffset pgoff, bool executable) const;
  // Relative addresses (what the profile's libs and the symbol server speak) are SVMA - v0.
  RelativeAddress relative(Svma svma) const { return RelativeAddress{svma.value - base_vaddr}; }
  Svma svma(RelativeAddress relative) const { return Svma{relative.value + base_vaddr}; }
  // Where the byte at `svma` lies in the file, nullopt when no PT_LOAD holds it in the file
  // (an address in .bss, or outside every segment).
  std::optional<FileOffset> file_offset_of(Svma svma) const;
  // "x86_64", "aarch64", ... from e_machine.
  std::string arch() const;
};

// Reads the identity of the ELF file at `path`.
Result<ModuleIdentity> read_module_identity(const std::string& path);
// Same, for a file already opened.
ModuleIdentity read_module_identity(const ElfFile& file);
// Same, for an ELF image in memory (the vdso).
Result<ModuleIdentity> read_module_identity(std::span<const uint8_t> image);

// The NT_GNU_BUILD_ID descriptor from a sequence of ELF notes (Elf{32,64}_Nhdr: namesz, descsz,
// type, then name and descriptor each padded to 4 bytes), in host byte order. Used for
// /sys/kernel/notes; nullopt when no GNU build-id note is present or the bytes are malformed.
std::optional<BuildId> find_gnu_build_id_note(std::span<const uint8_t> notes);

}  // namespace sprof::elf
