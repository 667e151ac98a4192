// See dwarf_native.hpp. The encodings are DWARF 5's (DWARF Debugging Information Format,
// version 5, sections 7.5 "Format of Debugging Information" and 7.25 "Range List Table"), with
// DWARF 2-4's unit headers and .debug_ranges; what libdw does where the walks depend on it is
// said beside the code that matches it.
#include "dwarf_native.hpp"

#include <dwarf.h>

#include <algorithm>
#include <limits>

#include "dwarf_cursor.hpp"
#include "dwarf_forms.hpp"
#include "dwarf_line_program.hpp"

namespace sprof::elf::detail {
namespace {

// The attributes the walks use, each kept in a slot of Die; all others are passed over.
enum Slot : uint8_t {
  kSibling,
  kLowPc,
  kHighPc,
  kRanges,
  kAbstractOrigin,
  kSpecification,
  kCallFile,
  kCallLine,
  kLinkageName,
  kMipsLinkageName,
  kName,
  kEntryPc,
  kStrOffsetsBase,
  kAddrBase,
  kRnglistsBase,
  kStmtList,
  kCompDir,
  kSplitMarker,  // DW_AT_dwo_name, DW_AT_GNU_dwo_name, DW_AT_GNU_dwo_id, DW_AT_GNU_*_base
  kSlotCount,
  kNoSlot = 0xff,
};

uint8_t slot_of(uint64_t name) {
  switch (name) {
    case DW_AT_sibling: return kSibling;
    case DW_AT_low_pc: return kLowPc;
    case DW_AT_high_pc: return kHighPc;
    case DW_AT_ranges: return kRanges;
    case DW_AT_abstract_origin: return kAbstractOrigin;
    case DW_AT_specification: return kSpecification;
    case DW_AT_call_file: return kCallFile;
    case DW_AT_call_line: return kCallLine;
    case DW_AT_linkage_name: return kLinkageName;
    case DW_AT_MIPS_linkage_name: return kMipsLinkageName;
    case DW_AT_name: return kName;
    case DW_AT_entry_pc: return kEntryPc;
    case DW_AT_str_offsets_base: return kStrOffsetsBase;
    case DW_AT_addr_base: return kAddrBase;
    case DW_AT_rnglists_base: return kRnglistsBase;
    case DW_AT_stmt_list: return kStmtList;
    case DW_AT_comp_dir: return kCompDir;
    case DW_AT_dwo_name:
    case DW_AT_GNU_dwo_name:
    case DW_AT_GNU_dwo_id:
    case DW_AT_GNU_addr_base:
    case DW_AT_GNU_ranges_base: return kSplitMarker;
    default: return kNoSlot;
  }
}

// The size of a value of `form` when it does not depend on the bytes (-1 when it does, or when
// it depends on the unit: addresses and offsets).
int fixed_form_size(uint64_t form) {
  switch (form) {
    case DW_FORM_flag_present:
    case DW_FORM_implicit_const: return 0;
    case DW_FORM_data1:
    case DW_FORM_ref1:
    case DW_FORM_flag:
    case DW_FORM_strx1:
    case DW_FORM_addrx1: return 1;
    case DW_FORM_data2:
    case DW_FORM_ref2:
    case DW_FORM_strx2:
    case DW_FORM_addrx2: return 2;
    case DW_FORM_strx3:
    case DW_FORM_addrx3: return 3;
    case DW_FORM_data4:
    case DW_FORM_ref4:
    case DW_FORM_strx4:
    case DW_FORM_addrx4:
    case DW_FORM_ref_sup4: return 4;
    case DW_FORM_data8:
    case DW_FORM_ref8:
    case DW_FORM_ref_sig8:
    case DW_FORM_ref_sup8: return 8;
    case DW_FORM_data16: return 16;
    default: return -1;
  }
}

struct AttributeSpec {
  uint32_t form = 0;
  uint8_t slot = kNoSlot;
  int8_t fixed_size = -1;      // fixed_form_size, for passing over unused values
  int64_t implicit_const = 0;  // DW_FORM_implicit_const's value, stored in the abbreviation
};

struct Abbreviation {
  uint32_t tag = 0;  // 0: no abbreviation has this code
  bool has_children = false;
  uint32_t first = 0;  // into AbbreviationTable::specs
  uint32_t count = 0;
};

// One table of .debug_abbrev (units may share one). Compilers number abbreviations 1, 2, ...;
// codes up to kDenseCodes are found by index, larger ones (legal, never seen) by hash.
struct AbbreviationTable {
  static constexpr uint64_t kDenseCodes = 1 << 14;
  std::vector<Abbreviation> dense;
  std::unordered_map<uint64_t, Abbreviation> sparse;
  std::vector<AttributeSpec> specs;

  const Abbreviation* find(uint64_t code) const {
    if (code < dense.size()) return dense[code].tag != 0 ? &dense[code] : nullptr;
    const auto it = sparse.find(code);
    return it != sparse.end() ? &it->second : nullptr;
  }
};

// Null when the table is damaged.
std::unique_ptr<AbbreviationTable> read_abbreviations(std::span<const uint8_t> section,
                                                      uint64_t offset) {
  auto table = std::make_unique<AbbreviationTable>();
  DwarfCursor cursor(section, offset);
  for (;;) {
    const uint64_t code = cursor.uleb();
    if (cursor.failed()) return nullptr;
    if (code == 0) return table;
    Abbreviation abbreviation;
    const uint64_t tag = cursor.uleb();
    abbreviation.has_children = cursor.u8() != 0;
    abbreviation.first = static_cast<uint32_t>(table->specs.size());
    for (;;) {
      AttributeSpec spec;
      const uint64_t name = cursor.uleb();
      const uint64_t form = cursor.uleb();
      if (form == DW_FORM_implicit_const) spec.implicit_const = cursor.sleb();
      if (cursor.failed() || form > UINT32_MAX) return nullptr;
      if (name == 0 && form == 0) break;
      spec.form = static_cast<uint32_t>(form);
      spec.slot = slot_of(name);
      spec.fixed_size = static_cast<int8_t>(fixed_form_size(form));
      table->specs.push_back(spec);
    }
    abbreviation.count = static_cast<uint32_t>(table->specs.size()) - abbreviation.first;
    if (tag == 0 || tag > UINT32_MAX) return nullptr;
    abbreviation.tag = static_cast<uint32_t>(tag);
    // The first definition of a code stands, as a reader that stops at the first match.
    if (code < AbbreviationTable::kDenseCodes) {
      if (code >= table->dense.size()) table->dense.resize(code + 1);
      if (table->dense[code].tag == 0) table->dense[code] = abbreviation;
    } else {
      table->sparse.emplace(code, abbreviation);
    }
  }
}

// Offsets into the supplementary file (dwz's .gnu_debugaltlink) are told from the file's own by
// this bit, in references and as keys; no section is that large.
constexpr uint64_t kSupplementary = uint64_t{1} << 63;

struct Unit {
  const DwarfSectionBytes* file = nullptr;  // the sections its DIEs and their forms index
  uint64_t file_bit = 0;                    // kSupplementary for the supplementary file's units
  uint64_t start = 0;  // of its header in .debug_info (unit-relative references count from here)
  uint64_t end = 0;    // of the next unit
  uint64_t die_offset = 0;  // of its unit DIE
  uint16_t version = 0;
  uint8_t unit_type = 0;
  uint8_t address_size = 0;
  uint8_t offset_size = 0;
  bool holds_code = false;  // a compile or partial unit (not a type unit)
  const AbbreviationTable* abbreviations = nullptr;
  // From the unit DIE: the base of its range lists, and the bases its index forms count from.
  uint64_t base_address = 0;
  std::optional<uint64_t> str_offsets_base;
  std::optional<uint64_t> addr_base;
  std::optional<uint64_t> rnglists_base;
};

// An attribute value as encoded: a number, an offset or an index; for DW_FORM_string, the
// offset of its text in .debug_info. Left uninitialised where a Die does not have it.
struct FormValue {
  uint32_t form;
  uint64_t value;
};

// A DIE as the walks see it: its kind and the attributes with a slot.
struct Die {
  uint64_t offset = 0;
  uint64_t attributes_end = 0;  // where its first child (or else its next sibling) begins
  uint64_t sibling = 0;         // DW_AT_sibling's target, when it points forward within the unit
  uint32_t tag = 0;
  bool has_children = false;
  uint32_t present = 0;  // a bit per Slot
  FormValue values[kSlotCount];

  bool has(Slot slot) const { return (present >> slot & 1u) != 0; }
  const FormValue& operator[](Slot slot) const { return values[slot]; }
  // DW_AT_abstract_origin, else DW_AT_specification, as the libdw walks choose; null if neither.
  const FormValue* origin() const {
    return has(kAbstractOrigin)  ? &values[kAbstractOrigin]
           : has(kSpecification) ? &values[kSpecification]
                                 : nullptr;
  }
};

// Reads (or, with `out` null, passes over) one value of `form`. False for a form this reader does
// not know (a vendor's) or bytes that end too soon.
bool read_form(DwarfCursor& cursor, uint32_t form, const Unit& unit, int64_t implicit_const,
               FormValue* out) {
  FormValue value{0, 0};
  for (int indirections = 0; form == DW_FORM_indirect; ++indirections) {
    const uint64_t named = cursor.uleb();
    if (indirections > 0 || named > UINT32_MAX) return false;  // an indirect indirect: damage
    form = static_cast<uint32_t>(named);
  }
  value.form = form;
  // The forms of one size whatever the unit: their sizes are fixed_form_size's alone.
  if (const int size = fixed_form_size(form); size >= 0) {
    if (form == DW_FORM_implicit_const) {
      value.value = static_cast<uint64_t>(implicit_const);
    } else if (form == DW_FORM_flag_present) {
      value.value = 1;
    } else if (size > 8) {
      cursor.skip(static_cast<uint64_t>(size));  // DW_FORM_data16: no use of its value
    } else {
      value.value = cursor.fixed(static_cast<size_t>(size));
    }
    if (cursor.failed()) return false;
    if (out != nullptr) *out = value;
    return true;
  }
  switch (form) {
    case DW_FORM_addr: value.value = cursor.fixed(unit.address_size); break;
    case DW_FORM_strp:
    case DW_FORM_line_strp:
    case DW_FORM_sec_offset:
    case DW_FORM_strp_sup:
    case DW_FORM_GNU_ref_alt:
    case DW_FORM_GNU_strp_alt: value.value = cursor.fixed(unit.offset_size); break;
    case DW_FORM_ref_addr:
      // DWARF 2 sized these as addresses, later versions as offsets.
      value.value = cursor.fixed(unit.version <= 2 ? unit.address_size : unit.offset_size);
      break;
    case DW_FORM_udata:
    case DW_FORM_ref_udata:
    case DW_FORM_strx:
    case DW_FORM_addrx:
    case DW_FORM_loclistx:
    case DW_FORM_rnglistx:
    case DW_FORM_GNU_addr_index:
    case DW_FORM_GNU_str_index: value.value = cursor.uleb(); break;
    case DW_FORM_sdata: value.value = static_cast<uint64_t>(cursor.sleb()); break;
    case DW_FORM_string:
      value.value = cursor.offset();
      cursor.cstring();
      break;
    case DW_FORM_block1: cursor.skip(cursor.fixed(1)); break;
    case DW_FORM_block2: cursor.skip(cursor.fixed(2)); break;
    case DW_FORM_block4: cursor.skip(cursor.fixed(4)); break;
    case DW_FORM_block:
    case DW_FORM_exprloc: cursor.skip(cursor.uleb()); break;
    default: return false;
  }
  if (cursor.failed()) return false;
  if (out != nullptr) *out = value;
  return true;
}

// What reading the DIE at an offset found.
enum class DieRead { kDie, kEndOfSiblings, kUnreadable };

class Reader {
 public:
  Reader(const std::vector<Unit>& units, const std::vector<Unit>& supplementary_units,
         const DwarfSectionBytes* supplementary)
      : units_(units), supplementary_units_(supplementary_units), supplementary_(supplementary) {}

  DieRead read_die(const Unit& unit, uint64_t offset, Die& die) const {
    if (offset >= unit.end) return DieRead::kUnreadable;
    DwarfCursor cursor(unit.file->info.first(unit.end), offset);
    const uint64_t code = cursor.uleb();
    if (cursor.failed()) return DieRead::kUnreadable;
    if (code == 0) {
      die.attributes_end = cursor.offset();
      return DieRead::kEndOfSiblings;
    }
    const Abbreviation* abbreviation = unit.abbreviations->find(code);
    if (abbreviation == nullptr) return DieRead::kUnreadable;
    die.offset = offset;
    die.tag = abbreviation->tag;
    die.has_children = abbreviation->has_children;
    die.sibling = 0;
    die.present = 0;
    const AttributeSpec* spec = unit.abbreviations->specs.data() + abbreviation->first;
    for (uint32_t i = 0; i < abbreviation->count; ++i, ++spec) {
      if (spec->slot == kNoSlot) {
        // Most attributes are passed over; a fixed size is a skip (checked once, below).
        if (spec->fixed_size >= 0) {
          cursor.skip(static_cast<uint64_t>(spec->fixed_size));
        } else if (!read_form(cursor, spec->form, unit, 0, nullptr)) {
          return DieRead::kUnreadable;
        }
        continue;
      }
      if (!read_form(cursor, spec->form, unit, spec->implicit_const, &die.values[spec->slot])) {
        return DieRead::kUnreadable;
      }
      die.present |= 1u << spec->slot;
    }
    if (cursor.failed()) return DieRead::kUnreadable;
    die.attributes_end = cursor.offset();
    uint64_t target = 0;
    // A sibling pointer that does not point forward within the unit is ignored: the children
    // are walked to find the next DIE instead, so no pointer makes a walk go round.
    if (die.has(kSibling) && reference_of(unit, die[kSibling], target) &&
        (target & kSupplementary) == unit.file_bit) {
      target &= ~kSupplementary;
      if (target >= die.attributes_end && target < unit.end) die.sibling = target;
    }
    return DieRead::kDie;
  }

  // Calls `visit(child)` for each child of `parent`, in order. `visit` returns where the
  // child's subtree ends if it walked the child's children (0 if it did not, nullopt to stop).
  // Returns where `parent`'s subtree ends, or nullopt if a DIE could not be read or `visit`
  // stopped. A walked subtree is not read again to find the next sibling.
  template <class Visit>
  std::optional<uint64_t> for_each_child(const Unit& unit, const Die& parent, Visit&& visit) const {
    if (!parent.has_children) return parent.attributes_end;
    uint64_t offset = parent.attributes_end;
    for (;;) {
      Die child;
      const DieRead read = read_die(unit, offset, child);
      if (read == DieRead::kEndOfSiblings) return child.attributes_end;
      if (read == DieRead::kUnreadable) return std::nullopt;
      const std::optional<uint64_t> walked = visit(child);
      if (!walked) return std::nullopt;
      if (!child.has_children) {
        offset = child.attributes_end;
      } else if (child.sibling != 0) {
        offset = child.sibling;  // libdw's dwarf_siblingof goes by it too
      } else if (*walked != 0) {
        offset = *walked;
      } else if (std::optional<uint64_t> next = past_children(unit, child)) {
        offset = *next;
      } else {
        return std::nullopt;
      }
    }
  }

  // The offset after the list of `die`'s children (its null entry). Every step moves forward.
  std::optional<uint64_t> past_children(const Unit& unit, const Die& die) const {
    uint64_t offset = die.attributes_end;
    for (uint64_t depth = 1; depth > 0;) {
      Die next;
      const DieRead read = read_die(unit, offset, next);
      if (read == DieRead::kUnreadable) return std::nullopt;
      offset = read == DieRead::kDie && next.has_children && next.sibling != 0
                   ? next.sibling
                   : next.attributes_end;
      if (read == DieRead::kEndOfSiblings) {
        --depth;
      } else if (next.has_children && next.sibling == 0) {
        ++depth;
      }
    }
    return offset;
  }

  // Where a reference points: an offset in the unit's file, or kSupplementary | an offset in
  // the supplementary file.
  bool reference_of(const Unit& unit, const FormValue& value, uint64_t& location) const {
    uint64_t offset = 0;
    switch (value.form) {
      case DW_FORM_ref1:
      case DW_FORM_ref2:
      case DW_FORM_ref4:
      case DW_FORM_ref8:
      case DW_FORM_ref_udata:
        offset = unit.start + value.value;
        if (offset < unit.start) return false;
        break;
      case DW_FORM_ref_addr: offset = value.value; break;
      case DW_FORM_GNU_ref_alt:
        if (supplementary_ == nullptr || unit.file_bit != 0) return false;
        location = value.value | kSupplementary;
        return (value.value & kSupplementary) == 0;
      default: return false;  // a type signature, or DWARF 5's supplementary forms
    }
    location = offset | unit.file_bit;
    return (offset & kSupplementary) == 0;
  }

  bool address_of(const Unit& unit, const FormValue& value, uint64_t& address) const {
    if (value.form == DW_FORM_addr) {
      address = value.value;
      return true;
    }
    if (!is_address_form(value.form) || value.form == DW_FORM_GNU_addr_index) return false;
    return indexed_address(unit, value.value, address);
  }

  bool indexed_address(const Unit& unit, uint64_t index, uint64_t& address) const {
    if (!unit.addr_base || *unit.addr_base > unit.file->addr.size() ||
        index > unit.file->addr.size() / unit.address_size) {
      return false;
    }
    DwarfCursor cursor(unit.file->addr, *unit.addr_base + index * unit.address_size);
    address = cursor.fixed(unit.address_size);
    return !cursor.failed();
  }

  // As libdw's dwarf_formudata for the forms of a constant.
  static bool constant_of(const FormValue& value, uint64_t& number) {
    switch (value.form) {
      case DW_FORM_data1:
      case DW_FORM_data2:
      case DW_FORM_data4:
      case DW_FORM_data8:
      case DW_FORM_udata:
      case DW_FORM_sdata:
      case DW_FORM_implicit_const: number = value.value; return true;
      default: return false;
    }
  }

  bool string_of(const Unit& unit, const FormValue& value, std::string_view& text) const {
    switch (value.form) {
      case DW_FORM_string: return string_at(unit.file->info, value.value, text);
      case DW_FORM_strp: return string_at(unit.file->str, value.value, text);
      case DW_FORM_line_strp: return string_at(unit.file->line_str, value.value, text);
      case DW_FORM_GNU_strp_alt:
        return supplementary_ != nullptr && unit.file_bit == 0 &&
               string_at(supplementary_->str, value.value, text);
      case DW_FORM_strx:
      case DW_FORM_strx1:
      case DW_FORM_strx2:
      case DW_FORM_strx3:
      case DW_FORM_strx4: {
        if (!unit.str_offsets_base || *unit.str_offsets_base > unit.file->str_offsets.size() ||
            value.value > unit.file->str_offsets.size() / unit.offset_size) {
          return false;
        }
        DwarfCursor cursor(unit.file->str_offsets,
                           *unit.str_offsets_base + value.value * unit.offset_size);
        const uint64_t offset = cursor.fixed(unit.offset_size);
        return !cursor.failed() && string_at(unit.file->str, offset, text);
      }
      default: return false;  // not a string, or one in a supplementary file
    }
  }

  // Calls `add(begin, end)` for each range the DIE states (empty ones too: callers drop them).
  // False where libdw must decide.
  template <class Add>
  bool for_each_range(const Unit& unit, const Die& die, Add&& add) const {
    if (die.has(kRanges)) return range_list(unit, die[kRanges], add);
    if (!die.has(kLowPc) || !die.has(kHighPc)) return true;
    uint64_t low = 0;
    uint64_t high = 0;
    if (!address_of(unit, die[kLowPc], low)) return false;
    if (is_address_form(die[kHighPc].form)) {
      if (!address_of(unit, die[kHighPc], high)) return false;
    } else {
      // DWARF 4+: a constant high_pc is the length from low_pc.
      uint64_t length = 0;
      if (!constant_of(die[kHighPc], length)) return false;
      high = low + length;
    }
    add(low, high);
    return true;
  }

  // The unit that holds `location` (as reference_of gives it), or null.
  const Unit* unit_holding(uint64_t location) const {
    const std::vector<Unit>& units =
        (location & kSupplementary) != 0 ? supplementary_units_ : units_;
    const uint64_t offset = location & ~kSupplementary;
    auto it = std::upper_bound(units.begin(), units.end(), offset,
                               [](uint64_t o, const Unit& unit) { return o < unit.start; });
    if (it == units.begin()) return nullptr;
    --it;
    return offset >= it->die_offset && offset < it->end ? &*it : nullptr;
  }

 private:
  template <class Add>
  bool range_list(const Unit& unit, const FormValue& value, Add& add) const {
    const uint64_t max_address =
        unit.address_size == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * unit.address_size)) - 1;
    uint64_t base = unit.base_address;
    if (unit.version < 5) {
      // .debug_ranges: pairs of addresses relative to the base, a pair of zeros at the end, and
      // (max address, new base) to change the base.
      if (value.form != DW_FORM_sec_offset && value.form != DW_FORM_data4 &&
          value.form != DW_FORM_data8) {
        return false;
      }
      DwarfCursor cursor(unit.file->ranges, value.value);
      for (;;) {
        const uint64_t begin = cursor.fixed(unit.address_size);
        const uint64_t end = cursor.fixed(unit.address_size);
        if (cursor.failed()) return false;
        if (begin == 0 && end == 0) return true;
        if (begin == max_address) {
          base = end;
        } else {
          add(base + begin, base + end);
        }
      }
    }
    uint64_t offset = value.value;
    if (value.form == DW_FORM_rnglistx) {
      if (!unit.rnglists_base || *unit.rnglists_base > unit.file->rnglists.size() ||
          value.value > unit.file->rnglists.size() / unit.offset_size) {
        return false;
      }
      DwarfCursor index(unit.file->rnglists, *unit.rnglists_base + value.value * unit.offset_size);
      offset = *unit.rnglists_base + index.fixed(unit.offset_size);
      if (index.failed()) return false;
    } else if (value.form != DW_FORM_sec_offset) {
      return false;
    }
    DwarfCursor cursor(unit.file->rnglists, offset);
    for (;;) {
      uint64_t a = 0;
      uint64_t b = 0;
      switch (cursor.u8()) {
        case DW_RLE_end_of_list: return !cursor.failed();
        case DW_RLE_base_addressx:
          if (!indexed_address(unit, cursor.uleb(), base)) return false;
          break;
        case DW_RLE_startx_endx:
          a = cursor.uleb();
          b = cursor.uleb();
          if (!indexed_address(unit, a, a) || !indexed_address(unit, b, b)) return false;
          add(a, b);
          break;
        case DW_RLE_startx_length:
          a = cursor.uleb();
          b = cursor.uleb();
          if (!indexed_address(unit, a, a)) return false;
          add(a, a + b);
          break;
        case DW_RLE_offset_pair:
          a = cursor.uleb();
          b = cursor.uleb();
          add(base + a, base + b);
          break;
        case DW_RLE_base_address: base = cursor.fixed(unit.address_size); break;
        case DW_RLE_start_end:
          a = cursor.fixed(unit.address_size);
          b = cursor.fixed(unit.address_size);
          add(a, b);
          break;
        case DW_RLE_start_length:
          a = cursor.fixed(unit.address_size);
          b = cursor.uleb();
          add(a, a + b);
          break;
        default: return false;
      }
      if (cursor.failed()) return false;
    }
  }

  const std::vector<Unit>& units_;
  const std::vector<Unit>& supplementary_units_;
  const DwarfSectionBytes* supplementary_;  // null when there is none
};

// Deeper nesting than this is left to libdw: it is damage, or a test of recursion.
constexpr uint32_t kMaxNesting = 256;

// The walks of dwarf_walk.cpp, over this reader's DIEs; see there for why each DIE kind is
// entered or not. Each step returns where the subtree it walked ends (0: it walked none), or
// nullopt where libdw must answer instead.
using Walked = std::optional<uint64_t>;

class NativeFunctionWalk {
 public:
  NativeFunctionWalk(const Reader& reader, const Unit& unit) : r_(reader), unit_(unit) {}

  std::optional<DwarfFunctions> run(const Die& unit_die) && {
    if (!children(unit_die, false, std::nullopt, 0)) return std::nullopt;
    return std::move(out_);
  }

 private:
  Walked children(const Die& die, bool in_function, std::optional<uint32_t> enclosing,
                  uint32_t nesting) {
    if (nesting > kMaxNesting) return std::nullopt;
    return r_.for_each_child(unit_, die, [&](const Die& child) -> Walked {
      switch (child.tag) {
        case DW_TAG_subprogram:
          return subprogram(child, enclosing ? *enclosing + 1 : 0, nesting + 1);
        case DW_TAG_lexical_block: return children(child, in_function, enclosing, nesting + 1);
        case DW_TAG_namespace:
        case DW_TAG_module:
          if (in_function) return 0;
          return children(child, false, std::nullopt, nesting + 1);
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
        case DW_TAG_union_type:
          if (!in_function) return 0;
          return children(child, true, enclosing, nesting + 1);
        default: return 0;
      }
    });
  }

  Walked subprogram(const Die& die, uint32_t depth, uint32_t nesting) {
    DwarfFunction function;
    function.offset = die.offset;
    function.depth = depth;
    function.first_range = static_cast<uint32_t>(out_.ranges.size());
    const bool read = r_.for_each_range(unit_, die, [&](uint64_t begin, uint64_t end) {
      if (end > begin) out_.ranges.push_back(DwarfRange{begin, end});
    });
    if (!read) return std::nullopt;
    function.range_count = static_cast<uint32_t>(out_.ranges.size()) - function.first_range;
    if (function.range_count == 0) return children(die, true, std::nullopt, nesting);
    out_.functions.push_back(function);
    return children(die, true, depth, nesting);
  }

  const Reader& r_;
  const Unit& unit_;
  DwarfFunctions out_;
};

class NativeInlineTreeWalk {
 public:
  NativeInlineTreeWalk(const Reader& reader, const Unit& unit, NativeOriginNames& names)
      : r_(reader), unit_(unit), names_(names) {}

  std::optional<DwarfInlineTree> run(const Die& function) && {
    if (!add_ranges(function, 0)) return std::nullopt;
    if (out_.ranges.empty()) return DwarfInlineTree{};
    std::string_view name;
    if (!name_of(function, name)) return std::nullopt;
    out_.scopes.push_back(DwarfScope{name, kNoFile, 0, -1, 0, false});
    if (!children(function, 0, 0, 0)) return std::nullopt;
    return std::move(out_);
  }

 private:
  Walked children(const Die& die, int32_t parent, uint32_t depth, uint32_t nesting) {
    if (nesting > kMaxNesting) return std::nullopt;
    return r_.for_each_child(unit_, die, [&](const Die& child) -> Walked {
      switch (child.tag) {
        case DW_TAG_inlined_subroutine: return inlined(child, parent, depth + 1, nesting + 1);
        case DW_TAG_lexical_block: return children(child, parent, depth, nesting + 1);
        default: return 0;
      }
    });
  }

  Walked inlined(const Die& die, int32_t parent, uint32_t depth, uint32_t nesting) {
    const auto index = static_cast<uint32_t>(out_.scopes.size());
    const size_t first_range = out_.ranges.size();
    if (!add_ranges(die, index)) return std::nullopt;
    if (out_.ranges.size() == first_range) return 0;  // no code here
    DwarfScope scope{{}, kNoFile, 0, parent, depth, true};
    if (!name_of(die, scope.name)) return std::nullopt;
    uint64_t value = 0;
    if (die.has(kCallFile)) {
      if (!Reader::constant_of(die[kCallFile], value)) return std::nullopt;
      if (value < kNoFile) scope.call_file = static_cast<uint32_t>(value);
    }
    if (die.has(kCallLine)) {
      if (!Reader::constant_of(die[kCallLine], value)) return std::nullopt;
      scope.call_line = static_cast<uint32_t>(value);
    }
    out_.scopes.push_back(scope);
    return children(die, static_cast<int32_t>(index), depth, nesting);
  }

  bool add_ranges(const Die& die, uint32_t scope) {
    return r_.for_each_range(unit_, die, [&](uint64_t begin, uint64_t end) {
      if (end > begin) out_.ranges.push_back(DwarfScopeRange{begin, end, scope});
    });
  }

  // As name_of in dwarf_walk.cpp: the linkage name, else the MIPS one, else DW_AT_name, each
  // looked for along the DW_AT_abstract_origin / DW_AT_specification chain as libdw's
  // dwarf_attr_integrate does (the DIE and up to 9 more), cached by the origin's offset.
  bool name_of(const Die& die, std::string_view& name) {
    std::optional<uint64_t> key;
    if (const FormValue* origin = die.origin()) {
      uint64_t target = 0;
      if (!r_.reference_of(unit_, *origin, target)) return false;
      key = target;
      if (auto it = names_.find(target); it != names_.end()) {
        name = it->second;
        return true;
      }
    }
    // The chain is followed only as far as a name is looked for: most DIEs with a linkage
    // name have it themselves.
    constexpr int kChain = 10;
    Die chain[kChain];
    const Unit* units[kChain];
    chain[0] = die;
    units[0] = &unit_;
    int length = 1;
    bool ended = false;
    bool unreadable = false;
    const auto link = [&](int i) -> bool {  // whether chain[i] exists, reading it if need be
      while (length <= i && !ended) {
        const FormValue* next = chain[length - 1].origin();
        uint64_t target = 0;
        const Unit* unit = nullptr;
        if (next == nullptr || length == kChain) {
          ended = true;
        } else if (!r_.reference_of(*units[length - 1], *next, target) ||
                   (unit = r_.unit_holding(target)) == nullptr ||
                   r_.read_die(*unit, target & ~kSupplementary, chain[length]) != DieRead::kDie) {
          ended = unreadable = true;
        } else {
          units[length++] = unit;
        }
      }
      return i < length;
    };
    name = {};
    for (const Slot slot : {kLinkageName, kMipsLinkageName, kName}) {
      for (int i = 0; link(i); ++i) {
        if (chain[i].has(slot)) {
          if (!r_.string_of(*units[i], chain[i][slot], name)) return false;
          if (key) names_.emplace(*key, name);
          return true;
        }
      }
      if (unreadable) return false;
    }
    if (key) names_.emplace(*key, name);
    return true;
  }

  const Reader& r_;
  const Unit& unit_;
  NativeOriginNames& names_;
  DwarfInlineTree out_;
};

// The unit header at `offset` (DWARF 5 section 7.5.1; DWARF 2-4 lack the unit type and put the
// abbreviation offset before the address size). False if it cannot be parsed.
bool read_unit_header(std::span<const uint8_t> info, uint64_t offset, Unit& unit,
                      uint64_t& abbreviation_offset) {
  DwarfCursor cursor(info, offset);
  unit.start = offset;
  const uint64_t length = cursor.initial_length(unit.offset_size);
  if (cursor.failed() || length > cursor.left()) return false;
  unit.end = cursor.offset() + length;
  unit.version = cursor.u16();
  if (unit.version < 2 || unit.version > 5) return false;
  if (unit.version >= 5) {
    unit.unit_type = cursor.u8();
    unit.address_size = cursor.u8();
    abbreviation_offset = cursor.fixed(unit.offset_size);
    switch (unit.unit_type) {
      case DW_UT_compile:
      case DW_UT_partial: unit.holds_code = true; break;
      case DW_UT_type:
        cursor.skip(8);                  // type signature
        cursor.fixed(unit.offset_size);  // type offset
        break;
      default: return false;  // skeleton and split units: libdw's
    }
  } else {
    abbreviation_offset = cursor.fixed(unit.offset_size);
    unit.address_size = cursor.u8();
    unit.unit_type = DW_UT_compile;
    unit.holds_code = true;
  }
  if (cursor.failed() || (unit.address_size != 4 && unit.address_size != 8) ||
      cursor.offset() > unit.end) {
    return false;
  }
  unit.die_offset = cursor.offset();
  return true;
}

// The unit headers of one file, each with its abbreviation table (kept in `tables`, by offset).
bool read_units(const DwarfSectionBytes& file, uint64_t file_bit,
                std::unordered_map<uint64_t, std::unique_ptr<AbbreviationTable>>& tables,
                std::vector<Unit>& units) {
  for (uint64_t offset = 0; offset < file.info.size();) {
    Unit unit;
    unit.file = &file;
    unit.file_bit = file_bit;
    uint64_t abbreviation_offset = 0;
    if (!read_unit_header(file.info, offset, unit, abbreviation_offset)) return false;
    auto& table = tables[abbreviation_offset];
    if (table == nullptr) table = read_abbreviations(file.abbrev, abbreviation_offset);
    if (table == nullptr) return false;
    unit.abbreviations = table.get();
    offset = unit.end;
    units.push_back(unit);
  }
  return true;
}

}  // namespace

struct NativeDwarf::Impl {
  DwarfSectionBytes sections;
  std::optional<DwarfSectionBytes> supplementary;
  // By offset in .debug_abbrev: one map per file.
  std::unordered_map<uint64_t, std::unique_ptr<AbbreviationTable>> tables;
  std::unordered_map<uint64_t, std::unique_ptr<AbbreviationTable>> supplementary_tables;
  std::vector<Unit> all_units;  // in file order, type units too (references may lead there)
  std::vector<Unit> supplementary_units;
  std::vector<DwarfUnit> code_units;
  std::vector<uint32_t> code_unit_index;  // code_units[i] is all_units[code_unit_index[i]]

  Reader reader() const {
    return Reader(all_units, supplementary_units, supplementary ? &*supplementary : nullptr);
  }

  const Unit* code_unit(uint64_t die_offset) const {
    const auto it = std::lower_bound(
        code_units.begin(), code_units.end(), die_offset,
        [](const DwarfUnit& unit, uint64_t offset) { return unit.offset < offset; });
    if (it == code_units.end() || it->offset != die_offset) return nullptr;
    return &all_units[code_unit_index[static_cast<size_t>(it - code_units.begin())]];
  }

  // Reads each unit DIE's bases and base address; lists the code units when `list_code_units`
  // (the file's own, not the supplementary file's).
  bool read_unit_dies(std::vector<Unit>& units, bool list_code_units);
};

NativeDwarf::NativeDwarf(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NativeDwarf::~NativeDwarf() = default;

std::unique_ptr<NativeDwarf> NativeDwarf::open(const DwarfSectionBytes& sections,
                                               const DwarfSectionBytes* supplementary) {
  if (sections.info.empty()) return nullptr;  // e.g. only .zdebug_info, which libdw reads
  auto impl = std::make_unique<Impl>();
  impl->sections = sections;
  if (supplementary != nullptr && !supplementary->info.empty()) {
    impl->supplementary = *supplementary;
  }
  if (!read_units(impl->sections, 0, impl->tables, impl->all_units)) return nullptr;
  // A supplementary file it cannot read leaves the references into it to libdw, unit by unit.
  if (impl->supplementary && (!read_units(*impl->supplementary, kSupplementary,
                                          impl->supplementary_tables, impl->supplementary_units) ||
                              !impl->read_unit_dies(impl->supplementary_units, false))) {
    impl->supplementary.reset();
    impl->supplementary_units.clear();
  }
  if (!impl->read_unit_dies(impl->all_units, true)) return nullptr;
  return std::unique_ptr<NativeDwarf>(new NativeDwarf(std::move(impl)));
}

bool NativeDwarf::Impl::read_unit_dies(std::vector<Unit>& units, bool list_code_units) {
  const Reader reader = this->reader();
  for (size_t i = 0; i < units.size(); ++i) {
    Unit& unit = units[i];
    Die die;
    if (reader.read_die(unit, unit.die_offset, die) != DieRead::kDie || die.has(kSplitMarker) ||
        die.has(kEntryPc)) {
      return false;
    }
    if (!unit.holds_code) continue;
    if (die.tag != DW_TAG_compile_unit && die.tag != DW_TAG_partial_unit) {
      // DWARF 4's type units live in .debug_types; anything else here is not code.
      if (unit.version >= 5 || die.tag != DW_TAG_type_unit) return false;
      unit.holds_code = false;
      continue;
    }
    // The bases come first: the unit DIE's own values may be indexes that count from them.
    const auto offset_of = [&](Slot slot) -> std::optional<uint64_t> {
      if (!die.has(slot)) return std::nullopt;
      const FormValue& value = die[slot];
      if (value.form != DW_FORM_sec_offset && value.form != DW_FORM_data4 &&
          value.form != DW_FORM_data8) {
        return std::nullopt;
      }
      return value.value;
    };
    unit.str_offsets_base = offset_of(kStrOffsetsBase);
    unit.addr_base = offset_of(kAddrBase);
    unit.rnglists_base = offset_of(kRnglistsBase);
    if (die.has(kLowPc) && !reader.address_of(unit, die[kLowPc], unit.base_address)) {
      return false;
    }
    if (!list_code_units) continue;
    DwarfUnit& out = code_units.emplace_back();
    out.offset = unit.die_offset;
    if (!reader.for_each_range(unit, die, [&](uint64_t begin, uint64_t end) {
          if (end > begin) out.ranges.push_back(DwarfRange{begin, end});
        })) {
      return false;
    }
    code_unit_index.push_back(static_cast<uint32_t>(i));
  }
  return true;
}

const std::vector<DwarfUnit>& NativeDwarf::units() const { return impl_->code_units; }

std::optional<DwarfFunctions> NativeDwarf::functions(uint64_t unit_offset) const {
  const Unit* unit = impl_->code_unit(unit_offset);
  if (unit == nullptr) return std::nullopt;
  const Reader reader = impl_->reader();
  Die die;
  if (reader.read_die(*unit, unit->die_offset, die) != DieRead::kDie) return std::nullopt;
  return NativeFunctionWalk(reader, *unit).run(die);
}

std::optional<DwarfInlineTree> NativeDwarf::inline_tree(uint64_t unit_offset, uint64_t function,
                                                        NativeOriginNames& names) const {
  const Unit* unit = impl_->code_unit(unit_offset);
  if (unit == nullptr || function < unit->die_offset || function >= unit->end) return std::nullopt;
  const Reader reader = impl_->reader();
  Die die;
  if (reader.read_die(*unit, function, die) != DieRead::kDie) return std::nullopt;
  return NativeInlineTreeWalk(reader, *unit, names).run(die);
}

std::optional<DwarfLines> NativeDwarf::lines(uint64_t unit_offset) const {
  const Unit* unit = impl_->code_unit(unit_offset);
  if (unit == nullptr) return std::nullopt;
  const Reader reader = impl_->reader();
  Die die;
  if (reader.read_die(*unit, unit->die_offset, die) != DieRead::kDie) return std::nullopt;
  if (!die.has(kStmtList)) return DwarfLines{};  // libdw finds no table either
  // libdw takes data4 and data8 as section offsets only before DWARF 4 (later they are
  // constants); other forms are its to judge.
  const FormValue& stmt_list = die[kStmtList];
  if (stmt_list.form != DW_FORM_sec_offset &&
      !((stmt_list.form == DW_FORM_data4 || stmt_list.form == DW_FORM_data8) &&
        unit->version < 4)) {
    return std::nullopt;
  }
  std::optional<std::string_view> comp_dir;
  if (die.has(kCompDir)) {
    std::string_view text;
    if (!reader.string_of(*unit, die[kCompDir], text)) return std::nullopt;
    comp_dir = text;
  }
  const LineSections sections{unit->file->line, unit->file->str, unit->file->line_str};
  std::optional<LineProgram> program =
      read_line_program(sections, stmt_list.value, unit->address_size, comp_dir);
  if (!program) return std::nullopt;
  DwarfLines out;
  out.rows = std::move(program->rows);
  out.files.reserve(program->files.size());
  for (const std::string& file : program->files) {
    out.files.push_back(join_source_path(comp_dir.value_or(""), file));
  }
  return out;
}

}  // namespace sprof::elf::detail
