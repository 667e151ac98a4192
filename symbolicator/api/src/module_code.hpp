// Reads the bytes of a module's code as they appear in its ELF file, addressed the way the
// Firefox Profiler addresses them: relative to the first PT_LOAD's p_vaddr
// (docs/firefox-profiler-format.md, "Relative addresses").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sprof/core/result.hpp"

namespace sprof::api::detail {

struct ModuleCode {
  std::string arch;            // "x86_64", ... (from e_machine)
  std::vector<uint8_t> bytes;  // may be shorter than asked when the segment's file data ends
};

// Up to `length` bytes starting at `relative_start` in the ELF file at `path`. relative + v0 gives
// the SVMA; the PT_LOAD whose [p_vaddr, p_vaddr + p_filesz) holds it maps the SVMA to the file
// offset p_offset + (svma - p_vaddr). Bytes past p_filesz (.bss) are not in the file, so the
// read stops at the segment's end. kNotFound when no segment holds the address.
Result<ModuleCode> read_module_code(const std::string& path, uint64_t relative_start,
                                    uint64_t length);

}  // namespace sprof::api::detail
