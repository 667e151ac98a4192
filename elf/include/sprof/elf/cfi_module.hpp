// sprof/elf/cfi_module.hpp
//
// `CfiModule`: the call frame information of one ELF file, read with libdw's raw CFI API
// (`dwarf_getcfi_elf` for .eh_frame, `dwarf_getcfi` for .debug_frame, `dwarf_cfi_addrframe`), and
// answered as sprof-owned `FrameRule`s. It is what the recorder's DWARF unwinder asks "how do I
// leave a frame at this PC?". It does not cache rules (the unwinder caches per PC) and does not
// know about processes: all addresses are SVMAs of this file.
//
// Lookup order: .eh_frame (via .eh_frame_hdr when present), then .debug_frame of the file, then
// .debug_frame of its separate debug file (found by the `DebugFileLocator` given to `open`, the
// symbolicator's search, on first need), then a synthesised rule for PLT sections, which may
// lack an FDE.
//
// The CFI comes from the profiled program's files, so it is checked before libdw reads it
// (elf/src/cfi_section_index.hpp): a rule for a register the machine does not
// have is dropped (libdw would allocate an array that size on every lookup), an FDE that needs
// such a register or nests remember_state without bound gets no rule, and an .eh_frame_hdr
// whose search table disagrees with .eh_frame (libdw believes the table and never scans) is
// set aside so that libdw scans .eh_frame instead. Where the search table allows, each FDE is
// checked when a lookup first reaches it, and the whole section only at the first FDE in doubt
// (cfi_module.cpp, LazyEhFrame). What was set aside is counted in `integrity()` (as far as the
// lookups so far have reached) and logged once per file.
//
// Threading: not thread-safe (libdw's CFI caches are mutated by lookups); one owner at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sprof/core/address.hpp"
#include "sprof/core/result.hpp"
#include "sprof/elf/cfi_rule.hpp"
#include "sprof/elf/debug_file_locator.hpp"

namespace sprof::elf {

class CfiModule {
 public:
  // Opens the ELF file at `path`; its separate debug file is looked for through `debug_files`.
  // Fails when the file cannot be read as ELF; a file without any CFI opens fine and answers
  // nullopt (only PLT rules).
  static Result<std::unique_ptr<CfiModule>> open(const std::string& path,
                                                 DebugFileLocator debug_files);
  // Same, with the debug file looked for in the system's debug roots only.
  static Result<std::unique_ptr<CfiModule>> open(const std::string& path);
  // Same, for an ELF image in memory (the vdso); the bytes are copied.
  static Result<std::unique_ptr<CfiModule>> open_image(std::span<const uint8_t> image);

  ~CfiModule();
  CfiModule(const CfiModule&) = delete;
  CfiModule& operator=(const CfiModule&) = delete;

  // The rule for the instruction at `address`, or nullopt when no CFI covers it.
  std::optional<FrameRule> find_rule(Svma address);

  // Copies `out.size()` bytes of the executable section containing [address, address + size) into
  // `out`; false when no executable section holds them all. Used to recognise code by its bytes
  // (the sigreturn trampoline).
  bool read_code(Svma address, std::span<uint8_t> out) const;

  // Whether the file (or its debug file) has any CFI at all.
  bool has_cfi() const;
  // Whether libdw binary-searches .eh_frame_hdr's table for .eh_frame (else it scans the section,
  // which for a large file costs milliseconds and a tree of every FDE passed). Files linked by
  // gold or mold are searched through a copy with GNU ld's section order.
  bool eh_frame_searched() const;

  // What the checks set aside; all zero / false for a well-formed file.
  struct Integrity {
    uint32_t rejected_fdes = 0;          // .eh_frame FDEs that get no rule
    uint32_t dropped_rules = 0;          // .eh_frame instructions dropped (registers it lacks)
    bool eh_frame_hdr_rejected = false;  // the search table was not trusted; .eh_frame is scanned
    bool debug_frame_rejected = false;   // a .debug_frame (file's or debug file's) was not used
    std::string first_problem;           // for messages
  };
  const Integrity& integrity() const;

  struct Impl;

 private:
  explicit CfiModule(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sprof::elf
