// sprof/core/jit_symbol_file.hpp
//
// The two file formats JITs use to name the code they generate, as Linux perf defines them:
//
// - perf map: /tmp/perf-<pid>.map, text, one symbol per line: "START SIZE name", START and SIZE
//   in hex without "0x" (written by node --perf-basic-prof, Java agents, Python's perf
//   trampoline). The name is the rest of the line and may contain spaces.
// - jitdump: jit-<pid>.dump, binary (tools/perf/Documentation/jitdump-specification.txt): a
//   header, then records that each start with {u32 id, u32 total_size, u64 timestamp}.
//   JIT_CODE_LOAD names code at an address, JIT_CODE_MOVE moves earlier loaded code (by its
//   code_index), JIT_CODE_DEBUG_INFO gives source positions for the code a later CODE_LOAD
//   of the same address loads ({u64 code_addr, u64 nr_entry, entries of {u64 code_addr,
//   u32 line, u32 discrim, char file[] NUL-terminated}}; perf's own JVMTI agent writes the
//   file "\xff" for "the previous entry's file"); CLOSE and UNWINDING_INFO carry nothing sprof
//   needs. The JIT mmaps the file (PROT_EXEC) so the profiler learns its path from the MMAP
//   record.
//
// Both the recorder (which address ranges a JIT's code covers, to give them a lib) and the
// symbolicator (names for those addresses) read them; parsing lives here, below both.
// Parsers never fail on malformed content: bad lines are skipped, a truncated jitdump (a JIT
// still writing it) yields the records before the cut. Only a jitdump with a wrong magic or
// version is an error. Counts in the file are never trusted: what is kept is bounded by the
// bytes actually present (a moved function shares its line table instead of copying it).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sprof/core/result.hpp"
#include "sprof/core/untrusted_file.hpp"  // read_small_file, used with these files

namespace sprof {

// Source positions of one piece of JIT code (jitdump DEBUG_INFO). An entry gives the position
// of the code from its offset up to the next entry's offset (the last: to the end of the code).
struct JitLineTable {
  struct Entry {
    uint64_t offset = 0;  // from the code's first byte
    uint32_t line = 0;
    uint32_t file = 0;  // index into `files`
  };
  std::vector<Entry> entries;  // sorted by offset
  std::vector<std::string> files;

  // The entry covering `offset`; nullptr before the first entry.
  const Entry* find(uint64_t offset) const;
};

struct JitSymbol {
  uint64_t start = 0;  // AVMA of the first byte of the code
  uint64_t size = 0;   // bytes; 0 if unknown
  std::string name;
  std::shared_ptr<const JitLineTable> lines;  // null without DEBUG_INFO (always for perf maps)
};

enum class JitFileKind { kNone, kPerfMap, kJitDump };

// By basename only: "perf-<pid>.map" or "jit-<pid>.dump" (pid = decimal digits).
JitFileKind jit_file_kind(std::string_view path);

// Symbols in file order; later entries describe later code (a reused address means new code).
std::vector<JitSymbol> parse_perf_map(std::string_view text);
Result<std::vector<JitSymbol>> parse_jitdump(std::span<const uint8_t> bytes);

// Parses `content` as `kind` (kInvalidArgument for kNone).
Result<std::vector<JitSymbol>> parse_jit_symbol_file(JitFileKind kind, std::string_view content);

// Reads and parses a perf map or jitdump, chosen by `jit_file_kind(path)`. The file is read as
// untrusted (untrusted_file.hpp): a FIFO, device or symlink at the path is refused.
Result<std::vector<JitSymbol>> read_jit_symbol_file(const std::string& path);

// The identity of a lib the recorder makes for JIT code. The Firefox Profiler keeps
// lib-relative addresses in 32 bits, so such a lib cannot use the AVMA itself as its relative
// address: each lib has a base AVMA (relative = AVMA - base, below 2^32) that the symbolicator
// must add back, and the base travels in the breakpadId, the one field that reaches it:
//   breakpadId = 16 uppercase hex digits of `base`, 16 of a hash of the file's content, "0".
// The hash keeps ids unique per file content; the base makes each 4 GiB window its own id.
std::string jit_breakpad_id(uint64_t base, uint64_t content_hash);
std::optional<uint64_t> jit_base_from_breakpad_id(std::string_view breakpad_id);
uint64_t jit_content_hash(std::string_view content);

// A JIT that ran for hours can write a large file; this bounds a corrupted or hostile one.
inline constexpr size_t kMaxJitFileBytes = size_t{1} << 30;

}  // namespace sprof
