// See dwarf_walk.hpp.
#include "dwarf_walk.hpp"

#include <dwarf.h>

#include <optional>

#include "dwarf_forms.hpp"

namespace sprof::elf::detail {
namespace {

// The attributes of a code-holding DIE that the walks use.
struct CodeAttributes {
  Dwarf_Attribute low_pc{};
  Dwarf_Attribute high_pc{};
  Dwarf_Attribute origin{};  // DW_AT_abstract_origin, else DW_AT_specification
  Dwarf_Attribute call_file{};
  Dwarf_Attribute call_line{};
  bool has_low_pc = false;
  bool has_high_pc = false;
  bool has_ranges = false;
  bool has_origin = false;
  bool origin_is_abstract = false;
  bool has_call_file = false;
  bool has_call_line = false;
};

int collect_attribute(Dwarf_Attribute* attr, void* arg) {
  auto& a = *static_cast<CodeAttributes*>(arg);
  switch (dwarf_whatattr(attr)) {
    case DW_AT_low_pc: a.low_pc = *attr, a.has_low_pc = true; break;
    case DW_AT_high_pc: a.high_pc = *attr, a.has_high_pc = true; break;
    case DW_AT_ranges: a.has_ranges = true; break;
    case DW_AT_abstract_origin: a.origin = *attr, a.has_origin = a.origin_is_abstract = true; break;
    case DW_AT_specification:
      if (!a.origin_is_abstract) a.origin = *attr, a.has_origin = true;
      break;
    case DW_AT_call_file: a.call_file = *attr, a.has_call_file = true; break;
    case DW_AT_call_line: a.call_line = *attr, a.has_call_line = true; break;
    default: break;
  }
  return DWARF_CB_OK;
}

CodeAttributes read_attributes(Dwarf_Die* die) {
  CodeAttributes a;
  dwarf_getattrs(die, collect_attribute, &a, 0);
  return a;
}

// Calls `add(begin, end)` for each non-empty range of code the DIE states. DW_AT_ranges goes
// through libdw (range lists, base addresses); a plain DW_AT_low_pc/DW_AT_high_pc pair is decoded
// here as dwarf_highpc does (DWARF 4+: a constant high_pc is an offset from low_pc).
template <class Add>
void for_each_range(Dwarf_Die* die, CodeAttributes& a, Add add) {
  if (a.has_ranges) {
    Dwarf_Addr base = 0;
    Dwarf_Addr start = 0;
    Dwarf_Addr end = 0;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(die, off, &base, &start, &end)) > 0;) {
      if (end > start) add(start, end);
    }
    return;
  }
  if (!a.has_low_pc || !a.has_high_pc) return;
  Dwarf_Addr low = 0;
  Dwarf_Addr high = 0;
  if (dwarf_formaddr(&a.low_pc, &low) != 0) return;
  if (is_address_form(dwarf_whatform(&a.high_pc))) {
    if (dwarf_formaddr(&a.high_pc, &high) != 0) return;
  } else {
    Dwarf_Word offset = 0;
    if (dwarf_formudata(&a.high_pc, &offset) != 0) return;
    high = low + offset;
  }
  if (high > low) add(low, high);
}

// The name the DIE's function is known by: the linkage name (mangled) if any, else DW_AT_name,
// following DW_AT_abstract_origin/DW_AT_specification (as eu-addr2line's get_diename does).
std::string_view name_of(Dwarf_Die* die, CodeAttributes& a, OriginNames& names) {
  const void* key = nullptr;
  if (a.has_origin) {
    Dwarf_Die target;
    if (dwarf_formref_die(&a.origin, &target) != nullptr) {
      key = target.addr;
      if (auto it = names.find(key); it != names.end()) return it->second;
    }
  }
  Dwarf_Attribute attr;
  const char* name = nullptr;
  if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) != nullptr ||
      dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr) != nullptr ||
      dwarf_attr_integrate(die, DW_AT_name, &attr) != nullptr) {
    name = dwarf_formstring(&attr);
  }
  const std::string_view view = name != nullptr ? name : "";
  if (key != nullptr) names.emplace(key, view);
  return view;
}

class FunctionWalk {
 public:
  DwarfFunctions run(Dwarf_Die* unit) && {
    children(unit, false, std::nullopt);
    return std::move(out_);
  }

 private:
  // `in_function`: `die` is (inside) a subprogram, concrete or abstract. Only there can a class
  // hold code: the member functions of a local class, e.g. a lambda's operator(), are defined
  // inside the class DIE, which sits in the enclosing function's DIE (or in a lexical block of
  // it). At namespace level a class holds only declarations; their definitions are separate DIEs
  // with DW_AT_specification, so walking every class there would only cost time.
  // `enclosing`: the depth of the function with code whose DIE holds `die`, if any.
  void children(Dwarf_Die* die, bool in_function, std::optional<uint32_t> enclosing) {
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0) return;
    do {
      switch (dwarf_tag(&child)) {
        case DW_TAG_subprogram: subprogram(&child, enclosing ? *enclosing + 1 : 0); break;
        case DW_TAG_lexical_block: children(&child, in_function, enclosing); break;
        case DW_TAG_namespace:
        case DW_TAG_module:
          if (!in_function) children(&child, false, std::nullopt);
          break;
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
        case DW_TAG_union_type:
          if (in_function) children(&child, true, enclosing);
          break;
        default:
          // Inlined subroutines belong to their function's inline tree (walk_inline_tree), and
          // GCC and Clang define local classes in the abstract instance, never below them.
          break;
      }
    } while (dwarf_siblingof(&child, &child) == 0);
  }

  void subprogram(Dwarf_Die* die, uint32_t depth) {
    CodeAttributes a = read_attributes(die);
    DwarfFunction function;
    function.offset = dwarf_dieoffset(die);
    function.depth = depth;
    function.first_range = static_cast<uint32_t>(out_.ranges.size());
    for_each_range(die, a, [&](uint64_t begin, uint64_t end) {
      out_.ranges.push_back(DwarfRange{begin, end});
    });
    function.range_count = static_cast<uint32_t>(out_.ranges.size()) - function.first_range;
    if (function.range_count == 0) {
      // No code: a declaration or an abstract instance (DW_AT_inline). The abstract instance of
      // a function that was inlined everywhere still holds the one concrete copy of each member
      // function of its local classes (lambdas): look for those.
      children(die, true, std::nullopt);
      return;
    }
    out_.functions.push_back(function);
    children(die, true, depth);
  }

  DwarfFunctions out_;
};

class InlineTreeWalk {
 public:
  explicit InlineTreeWalk(OriginNames& names) : names_(names) {}

  DwarfInlineTree run(Dwarf_Die* function) && {
    CodeAttributes a = read_attributes(function);
    add_ranges(function, a, 0);
    if (out_.ranges.empty()) return {};
    out_.scopes.push_back(DwarfScope{name_of(function, a, names_), kNoFile, 0, -1, 0, false});
    children(function, 0, 0);
    return std::move(out_);
  }

 private:
  void children(Dwarf_Die* die, int32_t parent, uint32_t depth) {
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0) return;
    do {
      switch (dwarf_tag(&child)) {
        case DW_TAG_inlined_subroutine: inlined(&child, parent, depth + 1); break;
        case DW_TAG_lexical_block: children(&child, parent, depth); break;
        default:
          // A subprogram defined in this one is a function of its own (walk_unit_functions).
          break;
      }
    } while (dwarf_siblingof(&child, &child) == 0);
  }

  void inlined(Dwarf_Die* die, int32_t parent, uint32_t depth) {
    CodeAttributes a = read_attributes(die);
    const auto index = static_cast<uint32_t>(out_.scopes.size());
    const size_t first_range = out_.ranges.size();
    add_ranges(die, a, index);
    if (out_.ranges.size() == first_range) return;  // no code here
    DwarfScope scope{name_of(die, a, names_), kNoFile, 0, parent, depth, true};
    Dwarf_Word value = 0;
    if (a.has_call_file && dwarf_formudata(&a.call_file, &value) == 0 && value < kNoFile) {
      scope.call_file = static_cast<uint32_t>(value);
    }
    if (a.has_call_line && dwarf_formudata(&a.call_line, &value) == 0) {
      scope.call_line = static_cast<uint32_t>(value);
    }
    out_.scopes.push_back(scope);
    children(die, static_cast<int32_t>(index), depth);
  }

  void add_ranges(Dwarf_Die* die, CodeAttributes& a, uint32_t scope) {
    for_each_range(die, a, [&](uint64_t begin, uint64_t end) {
      out_.ranges.push_back(DwarfScopeRange{begin, end, scope});
    });
  }

  OriginNames& names_;
  DwarfInlineTree out_;
};

}  // namespace

DwarfFunctions walk_unit_functions(Dwarf_Die* unit_die) { return FunctionWalk().run(unit_die); }

DwarfInlineTree walk_inline_tree(Dwarf_Die* function_die, OriginNames& names) {
  return InlineTreeWalk(names).run(function_die);
}

}  // namespace sprof::elf::detail
