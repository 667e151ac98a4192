#include "sprof/core/jit_symbol_file.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <unordered_map>

#include "sprof/core/byte_reader.hpp"
#include "sprof/core/text_lines.hpp"

namespace sprof {

namespace {

// jitdump-specification.txt: the header's magic is 'JiTD' written as a host-endian u32; a file
// from a machine of the other byte order reads as 0x4454694A (not supported: sprof records the
// local machine only).
constexpr uint32_t kJitDumpMagic = 0x4A695444;
constexpr uint32_t kJitDumpVersion = 1;
constexpr size_t kJitDumpHeaderBytes = 40;    // magic..flags
constexpr size_t kJitRecordHeaderBytes = 16;  // id, total_size, timestamp

enum JitRecordId : uint32_t {
  kJitCodeLoad = 0,
  kJitCodeMove = 1,
  kJitCodeDebugInfo = 2,
  // kJitCodeClose = 3, kJitCodeUnwindingInfo = 4: skipped.
};

// perf's JVMTI agent writes this file name for "same file as the previous entry".
constexpr std::string_view kSameFileAsPrevious = "\xff";

// The body of a DEBUG_INFO record: its code address and the line table for that code. Entries
// before the code address (no offset) are dropped; `nr_entry` only ends the walk early, the
// body's bytes bound it.
std::pair<uint64_t, std::shared_ptr<const JitLineTable>> parse_debug_info(ByteReader body) {
  const uint64_t code_addr = body.u64();
  const uint64_t nr_entry = body.u64();
  auto table = std::make_shared<JitLineTable>();
  std::unordered_map<std::string_view, uint32_t> file_index;  // views into the body
  std::string_view previous_file;
  for (uint64_t i = 0; i < nr_entry && body.remaining() > 0; ++i) {
    const uint64_t addr = body.u64();
    const uint32_t line = body.u32();
    body.skip(4);  // discrim
    std::string_view file = body.c_string_aligned(1);
    if (!body.ok()) break;
    if (file == kSameFileAsPrevious) file = previous_file;
    previous_file = file;
    if (addr < code_addr) continue;
    const auto [it, inserted] =
        file_index.try_emplace(file, static_cast<uint32_t>(table->files.size()));
    if (inserted) table->files.emplace_back(file);
    table->entries.push_back(JitLineTable::Entry{addr - code_addr, line, it->second});
  }
  std::stable_sort(table->entries.begin(), table->entries.end(),
                   [](const JitLineTable::Entry& a, const JitLineTable::Entry& b) {
                     return a.offset < b.offset;
                   });
  if (table->entries.empty()) table.reset();
  return {code_addr, std::move(table)};
}

std::string_view basename_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// One hex field at the start of `s` (an optional "0x" is accepted); advances `s` past it.
bool take_hex(std::string_view& s, uint64_t& out) {
  s = trim(s);
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  if (ec != std::errc() || end == s.data()) return false;
  s.remove_prefix(static_cast<size_t>(end - s.data()));
  return s.empty() || s.front() == ' ' || s.front() == '\t';
}

}  // namespace

JitFileKind jit_file_kind(std::string_view path) {
  const std::string_view name = basename_of(path);
  if (name.starts_with("perf-") && name.ends_with(".map") &&
      all_digits(name.substr(5, name.size() - 5 - 4))) {
    return JitFileKind::kPerfMap;
  }
  if (name.size() > 9 && name.starts_with("jit-") && name.ends_with(".dump") &&
      all_digits(name.substr(4, name.size() - 4 - 5))) {
    return JitFileKind::kJitDump;
  }
  return JitFileKind::kNone;
}

std::vector<JitSymbol> parse_perf_map(std::string_view text) {
  std::vector<JitSymbol> symbols;
  while (!text.empty()) {
    std::string_view line = take_line(text);
    JitSymbol s;
    if (!take_hex(line, s.start) || !take_hex(line, s.size)) continue;
    const std::string_view name = trim(line);
    if (name.empty()) continue;
    s.name = std::string(name);
    symbols.push_back(std::move(s));
  }
  return symbols;
}

Result<std::vector<JitSymbol>> parse_jitdump(std::span<const uint8_t> bytes) {
  ByteReader header(bytes);
  const uint32_t magic = header.u32();
  const uint32_t version = header.u32();
  const uint32_t header_size = header.u32();
  if (!header.ok() || magic != kJitDumpMagic) {
    return fail(Errc::kMalformed, "jitdump: bad magic (not a jitdump of this byte order)");
  }
  if (version != kJitDumpVersion) {
    return fail(Errc::kUnsupported, "jitdump: version " + std::to_string(version));
  }
  if (header_size < kJitDumpHeaderBytes || header_size > bytes.size()) {
    return fail(Errc::kMalformed, "jitdump: header size " + std::to_string(header_size));
  }

  std::vector<JitSymbol> symbols;
  std::unordered_map<uint64_t, size_t> by_code_index;  // code_index -> index in `symbols`
  // DEBUG_INFO precedes the CODE_LOAD of the code it describes: held here by code address
  // until that load (a later DEBUG_INFO for the same address replaces an unclaimed one).
  std::unordered_map<uint64_t, std::shared_ptr<const JitLineTable>> pending_lines;
  size_t pos = header_size;
  while (bytes.size() - pos >= kJitRecordHeaderBytes) {
    ByteReader record_header(bytes.subspan(pos));
    const uint32_t id = record_header.u32();
    const uint32_t total_size = record_header.u32();
    // A record smaller than its own header, or reaching past the end, is the cut of a file
    // still being written (or garbage): keep what came before.
    if (total_size < kJitRecordHeaderBytes || total_size > bytes.size() - pos) break;
    ByteReader body(bytes.subspan(pos + kJitRecordHeaderBytes, total_size - kJitRecordHeaderBytes));
    pos += total_size;

    if (id == kJitCodeLoad) {
      // pid, tid, vma, code_addr, code_size, code_index, name\0, code bytes.
      body.skip(4 + 4 + 8);
      JitSymbol s;
      s.start = body.u64();
      s.size = body.u64();
      const uint64_t code_index = body.u64();
      const std::string_view name = body.c_string_aligned(1);
      if (!body.ok()) continue;
      s.name = std::string(name);
      if (auto it = pending_lines.find(s.start); it != pending_lines.end()) {
        s.lines = std::move(it->second);
        pending_lines.erase(it);
      }
      by_code_index[code_index] = symbols.size();
      symbols.push_back(std::move(s));
    } else if (id == kJitCodeMove) {
      // pid, tid, vma, old_code_addr, new_code_addr, code_size, code_index.
      body.skip(4 + 4 + 8 + 8);
      const uint64_t new_addr = body.u64();
      const uint64_t size = body.u64();
      const uint64_t code_index = body.u64();
      if (!body.ok()) continue;
      const auto it = by_code_index.find(code_index);
      if (it == by_code_index.end()) continue;
      // The code now lives at the new address; appended, so it wins over the old range.
      // Line offsets are from the code's start, so the moved code shares the table.
      const JitSymbol& old = symbols[it->second];
      JitSymbol moved{new_addr, size, old.name, old.lines};
      it->second = symbols.size();
      symbols.push_back(std::move(moved));
    } else if (id == kJitCodeDebugInfo) {
      auto [code_addr, lines] = parse_debug_info(body);
      if (lines) {
        pending_lines[code_addr] = std::move(lines);
      } else {
        pending_lines.erase(code_addr);
      }
    }
  }
  return symbols;
}

const JitLineTable::Entry* JitLineTable::find(uint64_t offset) const {
  auto it = std::upper_bound(entries.begin(), entries.end(), offset,
                             [](uint64_t o, const Entry& e) { return o < e.offset; });
  return it == entries.begin() ? nullptr : &*std::prev(it);
}

std::string jit_breakpad_id(uint64_t base, uint64_t content_hash) {
  char id[34];
  std::snprintf(id, sizeof id, "%016llX%016llX0", static_cast<unsigned long long>(base),
                static_cast<unsigned long long>(content_hash));
  return std::string(id, 33);
}

std::optional<uint64_t> jit_base_from_breakpad_id(std::string_view breakpad_id) {
  if (breakpad_id.size() != 33) return std::nullopt;
  uint64_t base = 0;
  const auto [end, ec] = std::from_chars(breakpad_id.data(), breakpad_id.data() + 16, base, 16);
  if (ec != std::errc() || end != breakpad_id.data() + 16) return std::nullopt;
  return base;
}

uint64_t jit_content_hash(std::string_view content) {
  // FNV-1a, 64-bit: not cryptographic, only to tell two files (or versions of one) apart.
  uint64_t h = 0xCBF29CE484222325ULL;
  for (char c : content) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001B3ULL;
  }
  return h;
}

Result<std::vector<JitSymbol>> parse_jit_symbol_file(JitFileKind kind, std::string_view content) {
  switch (kind) {
    case JitFileKind::kPerfMap: return parse_perf_map(content);
    case JitFileKind::kJitDump:
      return parse_jitdump(
          std::span(reinterpret_cast<const uint8_t*>(content.data()), content.size()));
    case JitFileKind::kNone: break;
  }
  return fail(Errc::kInvalidArgument, "not a perf map or jitdump");
}

Result<std::vector<JitSymbol>> read_jit_symbol_file(const std::string& path) {
  const JitFileKind kind = jit_file_kind(path);
  if (kind == JitFileKind::kNone) {
    return fail(Errc::kInvalidArgument, path + ": not a perf map or jitdump file name");
  }
  SPROF_TRY(std::string content, read_small_file(path, kMaxJitFileBytes));
  auto symbols = parse_jit_symbol_file(kind, content);
  if (!symbols) return std::move(symbols).error().with_context(path);
  return symbols;
}

}  // namespace sprof
