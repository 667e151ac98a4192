// elf/src/cfi_section_index.hpp
//
// sprof's own reading of a call frame information section, before libdw sees it. libdw trusts
// what it reads: a register number in a CFI instruction sizes an array that every lookup
// allocates and clears (DW_CFA_offset_extended naming register 2^27 costs 1 GiB per lookup),
// each nested DW_CFA_remember_state copies the whole row, and the .eh_frame_hdr search table
// is believed even when it names the wrong FDE. This index walks every CIE and FDE of an
// .eh_frame or .debug_frame once, bounded by the section, checks each FDE's instructions and
// its CIE's initial instructions, and records every FDE's address range, so that the search
// table can be checked against it (eh_frame_hdr_check.hpp) and a repaired copy of the section
// can be handed to libdw instead (eh_frame_image.hpp).
//
// Register numbers are checked against the machine's DWARF register count. An instruction that
// only gives the rule of a register the machine lacks describes nothing real, so it is dropped
// (the copy turns it into DW_CFA_nop) and the rest of the FDE still unwinds. An FDE is invalid
// (the copy turns it into a CIE that no FDE references, so libdw's scan skips it whatever the
// encoding of its fields) when a register it needs is missing (the CFA's base, the source of
// DW_CFA_register, the CIE's return address column), when remember_state nests deeper than a
// compiler ever does, when an opcode is unknown or an operand leaves the entry, or when its
// range does not decode.
//
// Formats: DWARF 5 section 6.4 (.debug_frame, CIE id all ones, CIE pointer = section offset);
// LSB 5.0 "Exception Frames" (.eh_frame: CIE id 0, CIE pointer = distance back from the field,
// augmentation string with 'z' data, pointers encoded as DW_EH_PE_*). Multi-byte fields are
// read in host byte order, so only files of the host's byte order are checked (the caller
// skips others). Pure: from bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sprof::elf::detail {

enum class CfiFormat { kEhFrame, kDebugFrame };

struct CfiSection {
  std::span<const uint8_t> bytes;
  uint64_t address = 0;  // sh_addr; DW_EH_PE_pcrel pointers are relative to it
  CfiFormat format = CfiFormat::kEhFrame;
  uint8_t address_size = 8;     // from the ELF class: 8 or 4
  uint32_t register_count = 0;  // see dwarf_register_count
};

// Bytes of the section.
struct SectionSpan {
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct FdeEntry {
  uint64_t offset = 0;    // of the FDE's length field in the section
  uint64_t pc_begin = 0;  // SVMA of the first byte covered
  uint64_t pc_range = 0;  // bytes covered
  bool valid = false;     // its CIE and both instruction sequences passed the checks
  // Its CIE decoded and passed the checks, so the range was read with the encoding the CIE
  // states (whatever the FDE's own instructions hold).
  bool cie_valid = false;
};

struct RejectedFde {
  SectionSpan body;      // after the length field, from the CIE pointer on
  bool dwarf64 = false;  // 64-bit lengths: the CIE pointer is 8 bytes
};

struct CfiSectionIndex {
  std::vector<FdeEntry> fdes;  // in section order (sorted by offset)
  // Every FDE that is not valid, including those whose range does not decode: a copy of the
  // section for libdw turns each into an unreferenced CIE.
  std::vector<RejectedFde> rejected_fdes;
  std::string first_problem;  // what made the first invalid FDE invalid; empty when none
  // Instructions of valid FDEs (or of their CIEs) that only describe a register the machine
  // lacks, to be replaced by DW_CFA_nop.
  std::vector<SectionSpan> dropped_instructions;
  std::string first_dropped;  // describes the first of them; empty when none
  // The walk stopped before the end at an entry whose length does not fit the section (what
  // follows cannot be delimited, by libdw either).
  bool truncated = false;
};

CfiSectionIndex index_cfi_section(const CfiSection& section);

// One FDE at a time, with the checks index_cfi_section makes, for when only the FDEs in use are
// checked (cfi_module.cpp). Each CIE is parsed and checked once.
class FdeChecker {
 public:
  explicit FdeChecker(const CfiSection& section);
  ~FdeChecker();
  FdeChecker(const FdeChecker&) = delete;
  FdeChecker& operator=(const FdeChecker&) = delete;

  // The FDE whose length field is at `offset` when libdw may read it as it is: it is an FDE,
  // it and its CIE pass every check, and neither has an instruction to drop. nullopt otherwise
  // (the caller then indexes the whole section and repairs it).
  std::optional<FdeEntry> clean_fde_at(uint64_t offset);

 private:
  struct Cies;
  CfiSection section_;
  std::unique_ptr<Cies> cies_;
};

// The FDE whose length field is at `offset`, if the index has one there.
const FdeEntry* fde_at_offset(const CfiSectionIndex& index, uint64_t offset);

// The number of DWARF register numbers the psABI of `e_machine` (an EM_* value) defines, plus
// one: x86-64 0-145 (figure 3.36, with APX's r16-r31 at 130-145), AArch64 0-127. Other
// machines get a generous 288, which still bounds libdw's per-lookup allocation.
uint32_t dwarf_register_count(uint16_t e_machine);

// The fixed size of a DW_EH_PE_* value's format (low four bits), or nullopt for LEB128 and
// unknown formats. DW_EH_PE_absptr has the address size.
std::optional<uint8_t> encoded_value_size(uint8_t encoding, uint8_t address_size);

// Reads a DW_EH_PE_* encoded value at `pos` of `bytes` (advancing `pos`). pcrel adds
// `base_address + field offset`; datarel adds `data_base`; textrel adds 0 (libdw's choice for
// .eh_frame). nullopt for omit, indirect, funcrel, aligned, unknown formats and short input.
std::optional<uint64_t> read_encoded_value(std::span<const uint8_t> bytes, size_t& pos,
                                           uint8_t encoding, uint8_t address_size,
                                           uint64_t base_address, uint64_t data_base);

}  // namespace sprof::elf::detail
