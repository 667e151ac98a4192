// module_index_codec.hpp (private)
//
// The symbol cache's file format: a ModuleSymbolMap whose DWARF was read whole (read_all), or the
// kernel's KernelSymbolMap, as bytes, and back. Reading it back needs no ELF, DWARF or kallsyms:
// lookups answer from the arrays alone.
//
// Layout (host byte order; the cache never leaves the machine that wrote it):
//   header   "SPROFIDX", u32 format version, u32 key size, u64 payload size,
//            u64 FNV-1a of the payload
//   key      the module's cache key (symbol_cache.hpp), checked against the one asked for
//   payload  strings, symbol table, .eh_frame ranges, DWARF units and inline trees; for the
//            kernel, strings and symbol table (the key says which of the two a file holds)
//
// The file is outside input: another process, a full disk or a hostile user may have written
// any bytes. `decode` checks the header, the checksum, every count against the bytes left,
// every index against what it indexes, and the order binary searches rely on; anything else is
// kMalformed, never a crash or a wrong lookup.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "demangled_name_pool.hpp"
#include "dwarf_lookup.hpp"
#include "kernel_symbol_map.hpp"
#include "module_symbol_map.hpp"
#include "sprof/core/result.hpp"

namespace sprof::symbolicator::detail {

// Bump whenever the bytes or what ModuleSymbolMap::build computes from a module change: files
// of another version are rebuilt, not read.
inline constexpr uint32_t kModuleIndexVersion = 2;

// The map's bytes. Its DWARF must have been read whole (ModuleSymbolMap::read_all).
std::string encode_module_index(const ModuleSymbolMap& map, std::string_view key);

// A whole file around `payload`: the header (with the payload's checksum) and `key`. For
// `encode_module_index`, and for the fuzz target, which mutates payloads past the checksum.
std::string module_index_file(std::string_view key, std::string_view payload);

// Where the map's files are now and what the profile calls the module: not part of the index.
struct ModuleIndexOrigin {
  std::string module_name;
  std::string debug_file;
  std::string binary_file;
};

// What a map loaded from the cache keeps of its file: the bytes, the string table and where each
// DWARF unit's bytes are, so that a load decodes only the units its lookups need (a large
// program's index is tens of MB, of which a profile touches a few units).
struct CachedUnits {
  std::shared_ptr<const std::string> file;  // every view below is into it
  std::vector<std::string_view> strings;
  // Each string's pooled name once a scope names it; filled by any thread reading a unit.
  std::unique_ptr<std::atomic<const PooledName*>[]> pooled;
  std::vector<std::string_view> units;
};

// A map answering from `file`, which must hold an index written for `key`. The header, key and
// checksum are checked at once, and everything but the DWARF units is decoded; each unit is
// decoded (and checked) when a lookup first needs it (read_cached_unit).
Result<std::shared_ptr<const ModuleSymbolMap>> decode_module_index(
    std::shared_ptr<const std::string> file, std::string_view key, ModuleIndexOrigin origin);

// Decodes unit `index` of `dwarf`, a map's DWARF loaded from the cache (DwarfLookup::read_unit).
void read_cached_unit(const CachedUnits& cached, DwarfLookup& dwarf, uint32_t index);

// The key in an index file's header (its first bytes suffice); nullopt when `bytes` do not
// begin like an index file of this version.
std::optional<std::string> module_index_key(std::span<const uint8_t> bytes);

// The kernel's symbols (relative to `_text`, as the map holds them), and back; `source_path` is
// what the map says its symbols came from.
std::string encode_kernel_index(const KernelSymbolMap& map, std::string_view key);
Result<std::shared_ptr<const KernelSymbolMap>> decode_kernel_index(
    std::shared_ptr<const std::string> file, std::string_view key, std::string source_path);

}  // namespace sprof::symbolicator::detail
