// elf/src/cfi_frame_translate.hpp
//
// Turns one libdw `Dwarf_Frame` (a CFI row computed by `dwarf_cfi_addrframe`) into sprof's
// `FrameRule`. Private to sprof::elf: the only place that interprets libdw's rule encoding.
#pragma once

#include <elfutils/libdw.h>

#include <optional>

#include "sprof/elf/cfi_rule.hpp"

namespace sprof::elf::detail {

// Translates `frame`; nullopt when libdw cannot describe it at all (then no rule is known).
std::optional<FrameRule> translate_frame(Dwarf_Frame* frame);

}  // namespace sprof::elf::detail
