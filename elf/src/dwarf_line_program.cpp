// See dwarf_line_program.hpp. The encoding is DWARF 5's section 6.2, "Line Number Information",
// with DWARF 2-4's header (no address size; directories and files as NUL-terminated lists).
// Where libdw's result depends on its own choices (field widths, the one-byte length it reads
// for extended opcodes), the reader returns nullopt rather than guess: see the comments below.
#include "dwarf_line_program.hpp"

#include <dwarf.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "dwarf_cursor.hpp"

namespace sprof::elf::detail {
namespace {

// The operand counts DWARF defines for standard opcodes 1 to 12 (DW_LNS_copy to DW_LNS_set_isa).
// A header that states others is one libdw rejects as soon as such an opcode runs; rejecting the
// header here leaves the whole table to libdw, which gives the same (no) answer.
constexpr uint8_t kStandardOperands[] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};
constexpr unsigned kLastStandardOpcode = DW_LNS_set_isa;

struct Header {
  uint16_t version = 0;
  uint8_t offset_size = 4;
  uint8_t minimum_instruction_length = 0;
  uint8_t maximum_operations = 1;
  int8_t line_base = 0;
  uint8_t line_range = 0;
  uint8_t opcode_base = 0;
  std::span<const uint8_t> operand_counts;  // of opcode 1 at [0], up to opcode_base - 1
  uint64_t tables_begin = 0;                // the directory and file tables
  uint64_t program_begin = 0;
  uint64_t end = 0;  // of the unit's program
};

std::optional<Header> read_header(std::span<const uint8_t> section, uint64_t offset,
                                  uint8_t address_size) {
  Header h;
  DwarfCursor cursor(section, offset);
  const uint64_t length = cursor.initial_length(h.offset_size);
  if (cursor.failed() || length > cursor.left()) return std::nullopt;
  h.end = cursor.offset() + length;
  cursor = DwarfCursor(section.first(h.end), cursor.offset());
  h.version = cursor.u16();
  if (h.version < 2 || h.version > 5) return std::nullopt;
  if (h.version >= 5) {
    const uint8_t line_address_size = cursor.u8();
    const uint8_t segment_selector_size = cursor.u8();
    if (line_address_size != address_size || segment_selector_size != 0) return std::nullopt;
  }
  const uint64_t header_length = cursor.fixed(h.offset_size);
  if (cursor.failed() || header_length > cursor.left()) return std::nullopt;
  h.program_begin = cursor.offset() + header_length;
  h.minimum_instruction_length = cursor.u8();
  if (h.version >= 4) h.maximum_operations = cursor.u8();
  cursor.u8();  // default_is_stmt: the rows kept here do not carry it
  h.line_base = static_cast<int8_t>(cursor.u8());
  h.line_range = cursor.u8();
  h.opcode_base = cursor.u8();
  if (cursor.failed() || h.maximum_operations == 0 || h.opcode_base == 0 ||
      cursor.left() < h.opcode_base - 1u) {
    return std::nullopt;
  }
  h.operand_counts = section.subspan(cursor.offset(), h.opcode_base - 1u);
  for (size_t i = 0; i < h.operand_counts.size() && i < std::size(kStandardOperands); ++i) {
    if (h.operand_counts[i] != kStandardOperands[i]) return std::nullopt;
  }
  h.tables_begin = cursor.offset() + h.opcode_base - 1u;
  if (h.tables_begin > h.program_begin) return std::nullopt;
  return h;
}

// A DWARF 5 entry format: which field is which, and how each is encoded.
struct EntryFormat {
  std::vector<uint16_t> forms;
  int path = -1;             // index of DW_LNCT_path
  int directory_index = -1;  // index of DW_LNCT_directory_index
};

class TableReader {
 public:
  TableReader(const LineSections& sections, const Header& header)
      : sections_(sections),
        header_(header),
        cursor_(sections.line.first(header.program_begin), header.tables_begin) {}

  DwarfCursor& cursor() { return cursor_; }

  std::optional<EntryFormat> entry_format() {
    EntryFormat format;
    const uint8_t count = cursor_.u8();
    for (int i = 0; i < count; ++i) {
      const uint64_t content = cursor_.uleb();
      const uint64_t form = cursor_.uleb();
      if (cursor_.failed() || content > UINT16_MAX || form > UINT16_MAX) return std::nullopt;
      if (content == DW_LNCT_path) format.path = i;
      if (content == DW_LNCT_directory_index) format.directory_index = i;
      format.forms.push_back(static_cast<uint16_t>(form));
    }
    return format;
  }

  // One field's value: a string (`text`) or a number (`number`), or passed over. False for a
  // form this reader does not take here, or bytes that end too soon.
  bool field(uint16_t form, std::string_view* text, uint64_t* number) {
    uint64_t value = 0;
    switch (form) {
      case DW_FORM_string:
        if (text != nullptr)
          *text = cursor_.cstring();
        else
          cursor_.cstring();
        return !cursor_.failed() && number == nullptr;
      case DW_FORM_strp:
      case DW_FORM_line_strp: {
        const uint64_t offset = cursor_.fixed(header_.offset_size);
        if (cursor_.failed() || number != nullptr) return false;
        if (text == nullptr) return true;
        return string_at(form == DW_FORM_strp ? sections_.str : sections_.line_str, offset, *text);
      }
      case DW_FORM_data1: value = cursor_.u8(); break;
      case DW_FORM_data2: value = cursor_.u16(); break;
      case DW_FORM_data4: value = cursor_.u32(); break;
      case DW_FORM_data8: value = cursor_.u64(); break;
      case DW_FORM_udata: value = cursor_.uleb(); break;
      case DW_FORM_data16: cursor_.skip(16); break;  // DW_LNCT_MD5
      case DW_FORM_block: cursor_.skip(cursor_.uleb()); break;
      default: return false;
    }
    if (cursor_.failed() || text != nullptr) return false;
    if (number != nullptr) {
      if (form == DW_FORM_data16 || form == DW_FORM_block) return false;
      *number = value;
    }
    return true;
  }

 private:
  const LineSections& sections_;
  const Header& header_;
  DwarfCursor cursor_;
};

// A DWARF 5 directory or file table: its entry format, its count, its entries. Calls
// `entry(index, path, directory index)` for each (the directory index only `with_directory`,
// else 0: libdw reads no other field of a directory); false where libdw would reject the table.
template <class Entry>
bool read_entry_table(TableReader& tables, bool with_directory, Entry&& entry) {
  DwarfCursor& cursor = tables.cursor();
  const std::optional<EntryFormat> format = tables.entry_format();
  if (!format || (!format->forms.empty() &&
                  (format->path < 0 || (with_directory && format->directory_index < 0)))) {
    return false;
  }
  const uint64_t count = cursor.uleb();
  if (cursor.failed() || (format->forms.empty() && count != 0) || count > cursor.left()) {
    return false;
  }
  for (uint64_t n = 0; n < count; ++n) {
    std::string_view path;
    uint64_t directory = 0;
    for (size_t f = 0; f < format->forms.size(); ++f) {
      const bool is_path = static_cast<int>(f) == format->path;
      const bool is_directory = with_directory && static_cast<int>(f) == format->directory_index;
      if (!tables.field(format->forms[f], is_path ? &path : nullptr,
                        is_directory ? &directory : nullptr)) {
        return false;
      }
    }
    if (!entry(n, path, directory)) return false;
  }
  return true;
}

std::string compose(std::string_view directory, bool has_directory, std::string_view name) {
  if (!name.empty() && name.front() == '/') return std::string(name);
  if (!has_directory) return std::string(name);
  std::string path;
  path.reserve(directory.size() + 1 + name.size());
  path.append(directory).append("/").append(name);
  return path;
}

// The directory and file tables; files[0] as libdw has it (see the header).
bool read_tables(const LineSections& sections, const Header& header,
                 std::optional<std::string_view> comp_dir, std::vector<std::string>& files) {
  TableReader tables(sections, header);
  DwarfCursor& cursor = tables.cursor();
  std::vector<std::optional<std::string_view>> directories;
  files.emplace_back("???");
  if (header.version < 5) {
    directories.push_back(comp_dir);
    for (;;) {
      const std::string_view directory = cursor.cstring();
      if (cursor.failed()) return false;
      if (directory.empty()) break;
      directories.emplace_back(directory);
    }
    for (;;) {
      const std::string_view name = cursor.cstring();
      if (cursor.failed()) return false;
      if (name.empty()) break;
      const uint64_t directory = cursor.uleb();
      cursor.uleb();  // modification time
      cursor.uleb();  // length
      if (cursor.failed() || directory >= directories.size()) return false;
      const std::optional<std::string_view>& in = directories[directory];
      files.push_back(compose(in.value_or(""), in.has_value(), name));
    }
  } else {
    const auto add_directory = [&](uint64_t, std::string_view path, uint64_t) {
      directories.emplace_back(path);
      return true;
    };
    // DWARF 5 numbers files from 0: its first entry takes the place DWARF 2-4 leave undefined.
    const auto add_file = [&](uint64_t n, std::string_view name, uint64_t directory) {
      if (directory >= directories.size()) return false;
      std::string path = compose(directories[directory].value_or(""), true, name);
      if (n == 0) {
        files[0] = std::move(path);
      } else {
        files.push_back(std::move(path));
      }
      return true;
    };
    if (!read_entry_table(tables, false, add_directory) ||
        !read_entry_table(tables, true, add_file)) {
      return false;
    }
  }
  // The tables must end where the program begins (libdw reads a CUBIN's trailing 4-byte string
  // offset there; such tables are left to it).
  return cursor.offset() == header.program_begin;
}

// The line-number state machine's registers that the rows keep or that libdw checks.
struct Registers {
  uint64_t address = 0;
  uint32_t op_index = 0;
  uint32_t file = 1;
  int64_t line = 1;
  uint64_t column = 0;
  uint64_t isa = 0;
};

class Program {
 public:
  Program(const Header& header, std::vector<DwarfLineRow>& rows) : h_(header), rows_(rows) {}

  // libdw keeps a row's line in an int, its column in 16 bits and op_index and isa in 8: a value
  // that does not fit makes its whole table invalid, which libdw decides.
  bool emit(bool end_sequence) {
    if (r_.line < std::numeric_limits<int>::min() || r_.line > std::numeric_limits<int>::max() ||
        r_.column > UINT16_MAX || r_.op_index > UINT8_MAX || r_.isa > UINT8_MAX) {
      return false;
    }
    DwarfLineRow row;
    row.address = r_.address;
    row.file = r_.file;
    row.line = r_.line > 0 ? static_cast<uint32_t>(r_.line) : 0;
    row.end_sequence = end_sequence;
    rows_.push_back(row);
    return true;
  }

  // DWARF 4 section 6.2.5.1, in libdw's 32-bit unsigned arithmetic.
  void advance(uint32_t operations) {
    const uint32_t total = r_.op_index + operations;
    const uint32_t step = uint32_t{h_.minimum_instruction_length} * (total / h_.maximum_operations);
    r_.address += step;
    r_.op_index = total % h_.maximum_operations;
  }

  void reset() { r_ = Registers{}; }
  Registers& registers() { return r_; }

 private:
  const Header& h_;
  std::vector<DwarfLineRow>& rows_;
  Registers r_;
};

bool run_program(std::span<const uint8_t> section, const Header& h, uint8_t address_size,
                 std::vector<DwarfLineRow>& rows) {
  DwarfCursor cursor(section.first(h.end), h.program_begin);
  Program program(h, rows);
  Registers& r = program.registers();
  // Operands libdw reads into 32-bit fields; larger ones are left to it.
  const auto u32_operand = [&](uint32_t& out) {
    const uint64_t value = cursor.uleb();
    out = static_cast<uint32_t>(value);
    return value <= UINT32_MAX;
  };
  while (cursor.offset() < h.end) {
    const uint8_t opcode = cursor.u8();
    bool ok = true;
    if (opcode >= h.opcode_base) {
      if (h.line_range == 0) return false;
      const unsigned adjusted = opcode - h.opcode_base;
      r.line += h.line_base + static_cast<int>(adjusted % h.line_range);
      program.advance(adjusted / h.line_range);
      ok = program.emit(false);
    } else if (opcode == 0) {
      // libdw reads the length as one byte, not as the ULEB128 it is: a longer one, or none,
      // would be read differently by the two.
      const uint8_t length = cursor.u8();
      if (cursor.failed() || length == 0 || length >= 0x80 || length > cursor.left()) return false;
      const uint64_t operands_end = cursor.offset() + length;
      const uint8_t extended = cursor.u8();
      switch (extended) {
        case DW_LNE_end_sequence:
          ok = program.emit(true);
          program.reset();
          break;
        case DW_LNE_set_address:
          if (length != 1u + address_size) return false;
          r.op_index = 0;
          r.address = cursor.fixed(address_size);
          break;
        case DW_LNE_set_discriminator: cursor.uleb(); break;
        case DW_LNE_define_file: return false;  // DWARF 2-4 only, and never seen: libdw's
        default:
          if (extended >= DW_LNE_lo_user) return false;  // vendors' (NVIDIA's are libdw's)
          cursor.skip(length - 1u);
          break;
      }
      if (cursor.offset() != operands_end) return false;
    } else if (opcode <= kLastStandardOpcode) {
      uint32_t operand = 0;
      switch (opcode) {
        case DW_LNS_copy: ok = program.emit(false); break;
        case DW_LNS_advance_pc:
          ok = u32_operand(operand);
          program.advance(operand);
          break;
        case DW_LNS_advance_line: {
          const int64_t delta = cursor.sleb();
          ok = delta >= std::numeric_limits<int>::min() && delta <= std::numeric_limits<int>::max();
          r.line += delta;
          break;
        }
        case DW_LNS_set_file: ok = u32_operand(r.file); break;
        case DW_LNS_set_column: r.column = cursor.uleb(); break;
        case DW_LNS_const_add_pc:
          if (h.line_range == 0) return false;
          program.advance((255u - h.opcode_base) / h.line_range);
          break;
        case DW_LNS_fixed_advance_pc:
          r.address += cursor.u16();
          r.op_index = 0;
          break;
        case DW_LNS_set_isa: r.isa = cursor.uleb(); break;
        default: break;  // negate_stmt, set_basic_block, set_prologue_end, set_epilogue_begin
      }
    } else {
      // An opcode of a later standard: its operands are ULEB128s, as many as the header says.
      for (uint8_t n = h.operand_counts[opcode - 1u]; n > 0; --n) cursor.uleb();
    }
    if (!ok || cursor.failed()) return false;
  }
  return true;
}

// libdw's order: by address; a sequence's end before a row that starts at the same address;
// otherwise the program's (what a stable sort by that key gives).
bool before(const DwarfLineRow& a, const DwarfLineRow& b) {
  if (a.address != b.address) return a.address < b.address;
  return a.end_sequence && !b.end_sequence;
}

// Compilers emit a unit's rows in sequences (one per function with -ffunction-sections) whose
// addresses only grow, in no particular order of sequences. A stable sort of every row is then
// mostly wasted work: the sequences are ordered by their lowest rows instead, and rows are
// sorted only within groups of sequences that overlap (the linker sets discarded functions'
// sequences to address 0, where many meet) or within a sequence that is out of order (a row at
// its own end address, which libdw puts after the end). Every row of a group comes before every
// row of the next (strictly, under `before`), so rows equal under `before` are always in one
// group, which keeps them in program order: the result is the stable sort's.
void sort_like_libdw(std::vector<DwarfLineRow>& rows) {
  if (std::is_sorted(rows.begin(), rows.end(), before)) return;
  struct Sequence {
    size_t begin;  // of its rows, in program order
    size_t end;
    size_t lowest;  // its lowest and highest rows under `before`
    size_t highest;
  };
  std::vector<Sequence> sequences;
  for (size_t i = 0, begin = 0; i < rows.size(); ++i) {
    if (!rows[i].end_sequence && i + 1 != rows.size()) continue;
    Sequence sequence{begin, i + 1, begin, begin};
    for (size_t r = begin; r <= i; ++r) {
      if (before(rows[r], rows[sequence.lowest])) sequence.lowest = r;
      if (!before(rows[r], rows[sequence.highest])) sequence.highest = r;
    }
    sequences.push_back(sequence);
    begin = i + 1;
  }
  std::stable_sort(sequences.begin(), sequences.end(), [&](const Sequence& a, const Sequence& b) {
    return before(rows[a.lowest], rows[b.lowest]);
  });
  std::vector<DwarfLineRow> sorted;
  sorted.reserve(rows.size());
  for (size_t g = 0; g < sequences.size();) {
    // The group: every following sequence that begins before the group's highest row ends it.
    size_t highest = sequences[g].highest;
    size_t next = g + 1;
    while (next < sequences.size() && !before(rows[highest], rows[sequences[next].lowest])) {
      if (before(rows[highest], rows[sequences[next].highest])) highest = sequences[next].highest;
      ++next;
    }
    const size_t group_begin = sorted.size();
    // In program order, so that the stable sort below keeps equal rows as the program has them.
    std::sort(sequences.begin() + static_cast<ptrdiff_t>(g),
              sequences.begin() + static_cast<ptrdiff_t>(next),
              [](const Sequence& a, const Sequence& b) { return a.begin < b.begin; });
    for (size_t q = g; q < next; ++q) {
      sorted.insert(sorted.end(), rows.begin() + static_cast<ptrdiff_t>(sequences[q].begin),
                    rows.begin() + static_cast<ptrdiff_t>(sequences[q].end));
    }
    const auto group_start = sorted.begin() + static_cast<ptrdiff_t>(group_begin);
    if (!std::is_sorted(group_start, sorted.end(), before)) {
      std::stable_sort(group_start, sorted.end(), before);
    }
    g = next;
  }
  rows = std::move(sorted);
}

}  // namespace

std::optional<LineProgram> read_line_program(const LineSections& sections, uint64_t offset,
                                             uint8_t address_size,
                                             std::optional<std::string_view> comp_dir) {
  const std::optional<Header> header = read_header(sections.line, offset, address_size);
  if (!header) return std::nullopt;
  LineProgram out;
  if (!read_tables(sections, *header, comp_dir, out.files)) return std::nullopt;
  if (!run_program(sections.line, *header, address_size, out.rows)) return std::nullopt;
  sort_like_libdw(out.rows);
  // As libdw, which marks the highest row so for compilers that leave the last sequence open.
  if (!out.rows.empty()) out.rows.back().end_sequence = true;
  for (DwarfLineRow& row : out.rows) {
    if (row.file >= out.files.size()) row.file = kNoFile;
  }
  return out;
}

}  // namespace sprof::elf::detail
