// elf/src/dwarf_forms.hpp (private to sprof::elf)
//
// Facts about DWARF attribute forms that both DIE readers (dwarf_walk.cpp through libdw, and
// dwarf_native.cpp) decide by.
#pragma once

#include <dwarf.h>

namespace sprof::elf::detail {

// Whether a value of `form` is an address (or an index of one in .debug_addr): a DW_AT_high_pc
// of any other form is the length from DW_AT_low_pc (DWARF 4 and later).
inline bool is_address_form(unsigned form) {
  switch (form) {
    case DW_FORM_addr:
    case DW_FORM_addrx:
    case DW_FORM_addrx1:
    case DW_FORM_addrx2:
    case DW_FORM_addrx3:
    case DW_FORM_addrx4:
    case DW_FORM_GNU_addr_index: return true;
    default: return false;
  }
}

}  // namespace sprof::elf::detail
