// The own line-program reader (elf/src/dwarf_line_program.cpp) from bytes: DWARF 4 and 5 headers,
// the file names libdw would give, libdw's row order, and the inputs it must leave to libdw.
// tests/elf/dwarf_parity_test.cpp checks it against libdw on real binaries.
#include "dwarf_line_program.hpp"

#include <doctest/doctest.h>
#include <dwarf.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace sprof::elf::detail {
namespace {

class Bytes {
 public:
  Bytes& u8(uint64_t v) { return fixed(v, 1); }
  Bytes& u16(uint64_t v) { return fixed(v, 2); }
  Bytes& u32(uint64_t v) { return fixed(v, 4); }
  Bytes& u64(uint64_t v) { return fixed(v, 8); }
  Bytes& fixed(uint64_t v, size_t size) {
    for (size_t i = 0; i < size; ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Bytes& uleb(uint64_t v) {
    do {
      const auto byte = static_cast<uint8_t>(v & 0x7f);
      v >>= 7;
      bytes_.push_back(v != 0 ? byte | 0x80 : byte);
    } while (v != 0);
    return *this;
  }
  Bytes& sleb(int64_t v) {
    for (bool more = true; more;) {
      const auto byte = static_cast<uint8_t>(v & 0x7f);
      v >>= 7;
      more = !((v == 0 && (byte & 0x40) == 0) || (v == -1 && (byte & 0x40) != 0));
      bytes_.push_back(more ? byte | 0x80 : byte);
    }
    return *this;
  }
  Bytes& str(const std::string& s) {
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    bytes_.push_back(0);
    return *this;
  }
  Bytes& append(const Bytes& other) {
    bytes_.insert(bytes_.end(), other.bytes_.begin(), other.bytes_.end());
    return *this;
  }
  size_t size() const { return bytes_.size(); }
  std::vector<uint8_t>& data() { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

constexpr int kLineBase = -5;
constexpr int kLineRange = 14;
constexpr int kOpcodeBase = 13;

// A special opcode that adds `line` to the line and `address` to the address, then adds a row.
uint8_t special(int line, int address) {
  return static_cast<uint8_t>((line - kLineBase) + kLineRange * address + kOpcodeBase);
}

// A whole unit: header fields after header_length, then the tables, then the program.
std::vector<uint8_t> unit(uint16_t version, const Bytes& tables, const Bytes& program) {
  Bytes after_length;
  after_length.u8(1);                    // minimum_instruction_length
  if (version >= 4) after_length.u8(1);  // maximum_operations_per_instruction
  after_length.u8(1).u8(static_cast<uint8_t>(kLineBase)).u8(kLineRange).u8(kOpcodeBase);
  for (uint8_t count : {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1}) after_length.u8(count);
  after_length.append(tables);
  Bytes body;
  body.u16(version);
  if (version >= 5) body.u8(8).u8(0);  // address size, segment selector size
  body.u32(after_length.size()).append(after_length).append(program);
  Bytes out;
  out.u32(body.size()).append(body);
  return out.data();
}

Bytes set_address(uint64_t address) {
  Bytes b;
  b.u8(0).uleb(9).u8(DW_LNE_set_address).u64(address);
  return b;
}

Bytes end_sequence() {
  Bytes b;
  b.u8(0).uleb(1).u8(DW_LNE_end_sequence);
  return b;
}

// DWARF 4 tables: directories "include", then files a.c (dir 0), b.h (dir 1), /abs/c.h (dir 1).
Bytes dwarf4_tables() {
  Bytes t;
  t.str("include").u8(0);
  t.str("a.c").uleb(0).uleb(0).uleb(0);
  t.str("b.h").uleb(1).uleb(0).uleb(0);
  t.str("/abs/c.h").uleb(1).uleb(0).uleb(0);
  t.u8(0);
  return t;
}

// Two sequences, the one at the higher address first, each with a few rows.
Bytes two_sequences() {
  Bytes p;
  p.append(set_address(0x2000));
  p.u8(DW_LNS_advance_line).sleb(9).u8(DW_LNS_copy);       // 0x2000 line 10
  p.u8(special(2, 4));                                     // 0x2004 line 12
  p.u8(DW_LNS_advance_pc).uleb(4).append(end_sequence());  // ends at 0x2008
  p.append(set_address(0x1000));
  p.u8(DW_LNS_set_file).uleb(2).u8(special(4, 0));  // 0x1000 b.h line 5
  p.u8(special(1, 8));                              // 0x1008 line 6
  p.u8(DW_LNS_fixed_advance_pc).u16(0x1ff8);        // to 0x3000
  p.append(end_sequence());
  return p;
}

LineSections sections_of(const std::vector<uint8_t>& line) { return LineSections{line, {}, {}}; }

TEST_CASE("a DWARF 4 line program: rows by address, names as libdw composes them") {
  const std::vector<uint8_t> line = unit(4, dwarf4_tables(), two_sequences());
  const auto program = read_line_program(sections_of(line), 0, 8, std::string_view("/src"));
  REQUIRE(program.has_value());
  CHECK(program->files == std::vector<std::string>{"???", "/src/a.c", "include/b.h", "/abs/c.h"});
  struct Row {
    uint64_t address;
    uint32_t file;
    uint32_t line;
    bool end;
  };
  const std::vector<Row> expected = {
      {0x1000, 2, 5, false},  {0x1008, 2, 6, false}, {0x2000, 1, 10, false},
      {0x2004, 1, 12, false}, {0x2008, 1, 12, true}, {0x3000, 2, 6, true},
  };
  REQUIRE(program->rows.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("row " << i);
    CHECK(program->rows[i].address == expected[i].address);
    CHECK(program->rows[i].file == expected[i].file);
    CHECK(program->rows[i].line == expected[i].line);
    CHECK(program->rows[i].end_sequence == expected[i].end);
  }
}

TEST_CASE("without DW_AT_comp_dir, names in directory 0 stay as the table states them") {
  const std::vector<uint8_t> line = unit(4, dwarf4_tables(), two_sequences());
  const auto program = read_line_program(sections_of(line), 0, 8, std::nullopt);
  REQUIRE(program.has_value());
  CHECK(program->files[1] == "a.c");
}

TEST_CASE("at one address, a sequence's end comes before the row that starts there") {
  Bytes p;
  p.append(set_address(0x1000)).u8(special(0, 0)).u8(DW_LNS_advance_pc).uleb(0x10);
  p.append(end_sequence());
  p.append(set_address(0x1010)).u8(special(3, 0)).u8(DW_LNS_advance_pc).uleb(2);
  p.append(end_sequence());
  const std::vector<uint8_t> line = unit(4, dwarf4_tables(), p);
  const auto program = read_line_program(sections_of(line), 0, 8, std::string_view("/src"));
  REQUIRE(program.has_value());
  REQUIRE(program->rows.size() == 4);
  CHECK(program->rows[1].address == 0x1010);
  CHECK(program->rows[1].end_sequence);
  CHECK(program->rows[2].address == 0x1010);
  CHECK(program->rows[2].line == 4);
  CHECK_FALSE(program->rows[2].end_sequence);
}

TEST_CASE("a row at its own sequence's end address comes after that end, as in libdw") {
  Bytes p;
  p.append(set_address(0x2000)).u8(DW_LNS_copy).u8(DW_LNS_advance_pc).uleb(4);
  p.u8(DW_LNS_advance_line).sleb(1).u8(DW_LNS_copy).append(end_sequence());  // both at 0x2004
  p.append(set_address(0x1000)).u8(DW_LNS_copy).u8(DW_LNS_advance_pc).uleb(8);
  p.append(end_sequence());
  const std::vector<uint8_t> line = unit(4, dwarf4_tables(), p);
  const auto program = read_line_program(sections_of(line), 0, 8, std::nullopt);
  REQUIRE(program.has_value());
  const std::vector<std::pair<uint64_t, bool>> expected = {
      {0x1000, false}, {0x1008, true}, {0x2000, false}, {0x2004, true}, {0x2004, false}};
  REQUIRE(program->rows.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("row " << i);
    CHECK(program->rows[i].address == expected[i].first);
    // The last row is marked as ending a sequence whatever it was (libdw does so).
    CHECK(program->rows[i].end_sequence == (expected[i].second || i + 1 == expected.size()));
  }
  CHECK(program->rows[4].line == 2);
}

TEST_CASE("sequences that overlap (discarded functions at address 0) are merged row by row") {
  Bytes p;
  // A: lines 11 and 12 at 0 and 0x10, ending at 0x20.
  p.append(set_address(0)).u8(DW_LNS_advance_line).sleb(10).u8(DW_LNS_copy);
  p.u8(special(1, 0x10)).u8(DW_LNS_advance_pc).uleb(0x10).append(end_sequence());
  // B, far above.
  p.append(set_address(0x3000)).u8(DW_LNS_copy).u8(DW_LNS_advance_pc).uleb(4);
  p.append(end_sequence());
  // C: line 21 at 0, ending at 8.
  p.append(set_address(0)).u8(DW_LNS_advance_line).sleb(20).u8(DW_LNS_copy);
  p.u8(DW_LNS_advance_pc).uleb(8).append(end_sequence());
  const std::vector<uint8_t> line = unit(4, dwarf4_tables(), p);
  const auto program = read_line_program(sections_of(line), 0, 8, std::nullopt);
  REQUIRE(program.has_value());
  // libdw's stable sort: equal rows (A's and C's at 0) in program order.
  const std::vector<std::tuple<uint64_t, uint32_t, bool>> expected = {
      {0, 11, false},   {0, 21, false},     {8, 21, true},    {0x10, 12, false},
      {0x20, 12, true}, {0x3000, 1, false}, {0x3004, 1, true}};
  REQUIRE(program->rows.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("row " << i);
    CHECK(program->rows[i].address == std::get<0>(expected[i]));
    CHECK(program->rows[i].line == std::get<1>(expected[i]));
    CHECK(program->rows[i].end_sequence == std::get<2>(expected[i]));
  }
}

TEST_CASE("a DWARF 5 line program: file 0 is the first entry, names from .debug_line_str") {
  Bytes line_str;
  const uint64_t comp_dir_at = line_str.size();
  line_str.str("/build");
  const uint64_t sub_at = line_str.size();
  line_str.str("sub");
  const uint64_t main_at = line_str.size();
  line_str.str("main.c");
  Bytes t;
  t.u8(1).uleb(DW_LNCT_path).uleb(DW_FORM_line_strp);
  t.uleb(2).u32(comp_dir_at).u32(sub_at);
  t.u8(3).uleb(DW_LNCT_path).uleb(DW_FORM_line_strp);
  t.uleb(DW_LNCT_directory_index).uleb(DW_FORM_udata);
  t.uleb(DW_LNCT_MD5).uleb(DW_FORM_data16);
  t.uleb(2);
  t.u32(main_at).uleb(0).fixed(0, 8).fixed(0, 8);  // main.c in directory 0
  t.u32(main_at).uleb(1).fixed(0, 8).fixed(0, 8);  // main.c in directory 1, "sub"
  Bytes p;
  p.append(set_address(0x4000)).u8(DW_LNS_set_file).uleb(0).u8(special(6, 0));
  p.u8(DW_LNS_set_file).uleb(1).u8(special(1, 2)).append(end_sequence());
  const std::vector<uint8_t> line = unit(5, t, p);
  const std::vector<uint8_t> strings = line_str.data();
  const LineSections sections{line, {}, strings};
  const auto program = read_line_program(sections, 0, 8, std::string_view("/build"));
  REQUIRE(program.has_value());
  CHECK(program->files == std::vector<std::string>{"/build/main.c", "sub/main.c"});
  REQUIRE(program->rows.size() == 3);
  CHECK(program->rows[0].file == 0);
  CHECK(program->rows[0].line == 7);
  CHECK(program->rows[1].file == 1);
  CHECK(program->rows[1].address == 0x4002);
}

TEST_CASE("what libdw decides is left to it") {
  const Bytes tables = dwarf4_tables();
  SUBCASE("DW_LNE_define_file") {
    Bytes p;
    p.u8(0).uleb(6).u8(DW_LNE_define_file).str("x").uleb(0).uleb(0).uleb(0);
    const std::vector<uint8_t> line = unit(4, tables, p);
    CHECK_FALSE(read_line_program(sections_of(line), 0, 8, std::nullopt).has_value());
  }
  SUBCASE("an address operand of another size than the unit's") {
    Bytes p;
    p.u8(0).uleb(5).u8(DW_LNE_set_address).u32(0x1000).append(end_sequence());
    const std::vector<uint8_t> line = unit(4, tables, p);
    CHECK_FALSE(read_line_program(sections_of(line), 0, 8, std::nullopt).has_value());
  }
  SUBCASE("a column that libdw's 16 bits cannot hold") {
    Bytes p;
    p.append(set_address(0x1000)).u8(DW_LNS_set_column).uleb(70000).u8(DW_LNS_copy);
    const std::vector<uint8_t> line = unit(4, tables, p);
    CHECK_FALSE(read_line_program(sections_of(line), 0, 8, std::nullopt).has_value());
  }
  SUBCASE("a directory index past the table") {
    Bytes t;
    t.u8(0).str("a.c").uleb(7).uleb(0).uleb(0).u8(0);
    const std::vector<uint8_t> line = unit(4, t, end_sequence());
    CHECK_FALSE(read_line_program(sections_of(line), 0, 8, std::nullopt).has_value());
  }
  SUBCASE("every truncation of a good unit") {
    const std::vector<uint8_t> whole = unit(4, tables, two_sequences());
    for (size_t size = 0; size < whole.size(); ++size) {
      const std::vector<uint8_t> cut(whole.begin(), whole.begin() + static_cast<ptrdiff_t>(size));
      CHECK_FALSE(read_line_program(sections_of(cut), 0, 8, std::nullopt).has_value());
    }
  }
  SUBCASE("an offset past the section") {
    const std::vector<uint8_t> whole = unit(4, tables, two_sequences());
    CHECK_FALSE(read_line_program(sections_of(whole), whole.size() + 3, 8, std::nullopt));
  }
}

}  // namespace
}  // namespace sprof::elf::detail
