// elf/src/dwarf_walk.hpp (private to sprof::elf)
//
// The two DIE walks behind DwarfReader (dwarf_reader.hpp): the functions of a unit, and the
// inline tree of one function. Only the DIE kinds that can hold code are entered (subprograms,
// inlined subroutines, lexical blocks, namespaces, and classes inside functions); types are
// skipped with one dwarf_siblingof each, which is what keeps a walk cheap.
//
// Each DIE that holds code has its attributes read in one pass (dwarf_getattrs) rather than one
// scan of the attribute list per dwarf_attr call: for inline trees that was most of the cost.
#pragma once

#include <elfutils/libdw.h>

#include <string_view>
#include <unordered_map>

#include "sprof/elf/dwarf_reader.hpp"

namespace sprof::elf::detail {

// Names by the DIE that DW_AT_abstract_origin or DW_AT_specification refers to: the many inlined
// copies of a function share one. Keyed by where the DIE's bytes are (Dwarf_Die::addr), not by
// its offset: a handle reads split units from .dwo files too, whose offsets all start at 0.
// Valid as long as the libdw handle.
using OriginNames = std::unordered_map<const void*, std::string_view>;

DwarfFunctions walk_unit_functions(Dwarf_Die* unit_die);

DwarfInlineTree walk_inline_tree(Dwarf_Die* function_die, OriginNames& names);

}  // namespace sprof::elf::detail
