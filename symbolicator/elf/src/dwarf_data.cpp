// One pass over a module's DWARF with libdw: function and inline scopes with their address
// ranges, and every line-table row. Only the DIE kinds that can hold code are entered
// (subprograms, inlined subroutines, lexical blocks, namespaces); types are skipped, which
// keeps a libc-sized walk well under a second.
#include "sprof/elf/dwarf_data.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <filesystem>
#include <string_view>
#include <unordered_map>

#include "elf_file.hpp"

namespace sprof::elf {
namespace {

class DwarfExtractor {
 public:
  explicit DwarfExtractor(Dwarf* dwarf) : dwarf_(dwarf) {}

  DwarfData run() && {
    Dwarf_CU* cu = nullptr;
    Dwarf_CU* next = nullptr;
    Dwarf_Half version = 0;
    uint8_t unit_type = 0;
    Dwarf_Die cudie;
    Dwarf_Die subdie;
    while (dwarf_get_units(dwarf_, cu, &next, &version, &unit_type, &cudie, &subdie) == 0) {
      cu = next;
      // Type units (DWARF 5 DW_UT_type / split) hold no code.
      if (unit_type != DW_UT_compile && unit_type != DW_UT_partial) continue;
      read_unit(&cudie);
    }
    return std::move(data_);
  }

 private:
  void read_unit(Dwarf_Die* cudie) {
    Dwarf_Attribute attr;
    const char* comp_dir = dwarf_attr_integrate(cudie, DW_AT_comp_dir, &attr) != nullptr
                               ? dwarf_formstring(&attr)
                               : nullptr;
    unit_comp_dir_ = comp_dir != nullptr ? comp_dir : "";
    unit_files_ = nullptr;
    unit_file_ids_.clear();
    size_t file_count = 0;
    if (dwarf_getsrcfiles(cudie, &unit_files_, &file_count) == 0) {
      unit_file_ids_.assign(file_count, kUnset);
    } else {
      unit_files_ = nullptr;
    }
    read_lines(cudie);
    walk_children(cudie, -1, 0, false);
  }

  void read_lines(Dwarf_Die* cudie) {
    Dwarf_Lines* lines = nullptr;
    size_t count = 0;
    if (dwarf_getsrclines(cudie, &lines, &count) != 0) return;
    const char* last_path = nullptr;
    uint32_t last_id = kNoFile;
    for (size_t i = 0; i < count; ++i) {
      Dwarf_Line* line = dwarf_onesrcline(lines, i);
      if (line == nullptr) continue;
      DwarfLineRow row;
      Dwarf_Addr addr = 0;
      int lineno = 0;
      bool end_sequence = false;
      if (dwarf_lineaddr(line, &addr) != 0) continue;
      dwarf_lineno(line, &lineno);
      dwarf_lineendsequence(line, &end_sequence);
      row.address = addr;
      row.line = lineno > 0 ? static_cast<uint32_t>(lineno) : 0;
      row.end_sequence = end_sequence;
      // Consecutive rows almost always name the same file; the path pointer is stable per unit.
      const char* path = dwarf_linesrc(line, nullptr, nullptr);
      if (path != last_path) {
        last_path = path;
        last_id = file_id(path);
      }
      row.file = last_id;
      data_.lines.push_back(row);
    }
  }

  // `in_function`: `die` is (inside) a subprogram, concrete or abstract. Only there can a class
  // hold code: the member functions of a local class, e.g. a lambda's operator(), are defined
  // inside the class DIE, which sits in the enclosing function's DIE (or in a lexical block of
  // it). At namespace level a class holds only declarations; their definitions are separate DIEs
  // with DW_AT_specification, so walking every class there would only cost time.
  void walk_children(Dwarf_Die* die, int32_t parent_scope, uint32_t depth, bool in_function) {
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0) return;
    do {
      switch (dwarf_tag(&child)) {
        case DW_TAG_subprogram:
          // A function nested in another (GNU C nested functions, local-class members) is its
          // own root; `depth` only makes it win where ranges overlap.
          add_scope(&child, false, -1, parent_scope < 0 ? 0 : depth + 1);
          break;
        case DW_TAG_inlined_subroutine:
          if (parent_scope >= 0) add_scope(&child, true, parent_scope, depth + 1);
          break;
        case DW_TAG_lexical_block:
          walk_children(&child, parent_scope, depth, in_function);
          break;
        case DW_TAG_namespace:
        case DW_TAG_module:
          if (!in_function) walk_children(&child, -1, 0, false);
          break;
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
        case DW_TAG_union_type:
          if (in_function) walk_children(&child, parent_scope, depth, true);
          break;
        default:
          break;
      }
    } while (dwarf_siblingof(&child, &child) == 0);
  }

  void add_scope(Dwarf_Die* die, bool inlined, int32_t parent, uint32_t depth) {
    const size_t first_range = data_.ranges.size();
    const auto scope_index = static_cast<uint32_t>(data_.scopes.size());
    Dwarf_Addr base = 0;
    Dwarf_Addr start = 0;
    Dwarf_Addr end = 0;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(die, off, &base, &start, &end)) > 0;) {
      if (end > start) data_.ranges.push_back(DwarfScopeRange{start, end, scope_index});
    }
    if (data_.ranges.size() == first_range) {
      // No code: a declaration or an abstract instance (DW_AT_inline). The abstract instance of
      // a function that was inlined everywhere still holds the one concrete copy of each member
      // function of its local classes (lambdas): look for those, and only those.
      if (!inlined) walk_children(die, -1, 0, true);
      return;
    }

    DwarfScope scope;
    scope.name = name_of(die);
    scope.parent = parent;
    scope.depth = depth;
    scope.inlined = inlined;
    if (inlined) {
      Dwarf_Attribute attr;
      Dwarf_Word value = 0;
      if (dwarf_attr(die, DW_AT_call_file, &attr) != nullptr && dwarf_formudata(&attr, &value) == 0) {
        scope.call_file = unit_file(value);
      }
      if (dwarf_attr(die, DW_AT_call_line, &attr) != nullptr && dwarf_formudata(&attr, &value) == 0) {
        scope.call_line = static_cast<uint32_t>(value);
      }
    }
    data_.scopes.push_back(scope);
    walk_children(die, static_cast<int32_t>(scope_index), depth, true);
  }

  // The name the DIE's function is known by: the linkage name (mangled) if any, else DW_AT_name,
  // following DW_AT_abstract_origin/DW_AT_specification (as eu-addr2line's get_diename does).
  // Cached by the referenced DIE, since many inlined copies share one abstract origin.
  uint32_t name_of(Dwarf_Die* die) {
    Dwarf_Attribute attr;
    Dwarf_Off key = 0;
    if (dwarf_attr(die, DW_AT_abstract_origin, &attr) != nullptr ||
        dwarf_attr(die, DW_AT_specification, &attr) != nullptr) {
      Dwarf_Die target;
      if (dwarf_formref_die(&attr, &target) != nullptr) {
        key = dwarf_dieoffset(&target);
        if (auto it = origin_names_.find(key); it != origin_names_.end()) return it->second;
      }
    }
    const char* name = nullptr;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) != nullptr ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr) != nullptr ||
        dwarf_attr_integrate(die, DW_AT_name, &attr) != nullptr) {
      name = dwarf_formstring(&attr);
    }
    const uint32_t id = intern(name_ids_, data_.names, name != nullptr ? name : "");
    if (key != 0) origin_names_.emplace(key, id);
    return id;
  }

  uint32_t unit_file(Dwarf_Word index) {
    if (unit_files_ == nullptr || index >= unit_file_ids_.size()) return kNoFile;
    uint32_t& id = unit_file_ids_[index];
    if (id == kUnset) {
      id = file_id(dwarf_filesrc(unit_files_, index, nullptr, nullptr));
    }
    return id;
  }

  // libdw composes a line-table file name from its directory entry, but leaves it relative when
  // that entry is (glibc's "../sysdeps/x86_64/fpu/fclrexcpt.c"); the unit's DW_AT_comp_dir is
  // what it is relative to. libdw's path strings live as long as `dwarf_` and are distinct per
  // unit, so the joined name is cached by the pointer.
  uint32_t file_id(const char* path) {
    if (path == nullptr) return kNoFile;
    auto [it, inserted] = path_ids_.try_emplace(path, 0);
    if (inserted) {
      std::string joined = join_source_path(unit_comp_dir_, path);
      auto [file, added] = file_ids_.try_emplace(std::move(joined),
                                                 static_cast<uint32_t>(data_.files.size()));
      if (added) data_.files.push_back(file->first);
      it->second = file->second;
    }
    return it->second;
  }

  // Keys are views into libdw's string sections, which live as long as `dwarf_`.
  static uint32_t intern(std::unordered_map<std::string_view, uint32_t>& ids,
                         std::vector<std::string>& strings, std::string_view s) {
    auto [it, inserted] = ids.try_emplace(s, static_cast<uint32_t>(strings.size()));
    if (inserted) strings.emplace_back(s);
    return it->second;
  }

  static constexpr uint32_t kUnset = UINT32_MAX - 1;

  Dwarf* dwarf_;
  DwarfData data_;
  std::unordered_map<std::string_view, uint32_t> name_ids_;
  std::unordered_map<std::string, uint32_t> file_ids_;          // joined path -> index
  std::unordered_map<const char*, uint32_t> path_ids_;         // libdw's path -> index
  std::string unit_comp_dir_;
  std::unordered_map<Dwarf_Off, uint32_t> origin_names_;
  Dwarf_Files* unit_files_ = nullptr;
  std::vector<uint32_t> unit_file_ids_;
};

}  // namespace

std::string join_source_path(std::string_view comp_dir, std::string_view path) {
  std::filesystem::path joined(path);
  if (joined.is_relative() && !comp_dir.empty()) joined = std::filesystem::path(comp_dir) / joined;
  std::string normal = joined.lexically_normal().string();
  // lexically_normal keeps a trailing separator ("dir/.." -> "dir/"); a file name never has one.
  if (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal.empty() ? std::string(path) : normal;
}

Result<DwarfData> read_dwarf_data(const std::string& path) {
  SPROF_TRY(ElfFile file, ElfFile::open(path));
  Dwarf* dwarf = dwarf_begin_elf(file.get(), DWARF_C_READ, nullptr);
  if (dwarf == nullptr) {
    return fail(Errc::kMalformed, path + ": no DWARF (" + dwarf_errmsg(-1) + ")");
  }
  DwarfData data = DwarfExtractor(dwarf).run();
  dwarf_end(dwarf);
  return data;
}

}  // namespace sprof::elf
