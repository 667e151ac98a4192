// module_index_codec.hpp (private)
//
// The symbol cache's file format: a ModuleSymbolMap, or the kernel's KernelSymbolMap, as bytes,
// and back. A module's file holds what its map had read when it was written: its symbols and
// ranges, and of its DWARF the unit index and the units and inline trees read so far. It is
// *whole* once they all were (read_all); a *partial* file is written at the end of a command
// whose map was not whole yet, so that the first run of a new binary saves what its lookups
// built (a few units) instead of the whole index, and later runs add what they read. Lookups
// answer from the arrays alone where the file holds what they need, and read the rest from the
// module's DWARF (dwarf_lookup.hpp).
//
// Layout (host byte order; the cache never leaves the machine that wrote it):
//   header   "SPROFIDX", u32 format version, u32 key size, u64 prelude size, u64 checksum of the
//            prelude, u64 units size
//   key      the module's cache key (symbol_cache.hpp), checked against the one asked for
//   prelude  strings, symbol table, .eh_frame ranges, whether the DWARF is whole, the DWARF
//            unit index and a table of each unit's DIE offset, size and checksum (size 0: not
//            in this file); for the kernel, strings and symbol table (the key says which of the
//            two a file holds)
//   units    each unit's line table and functions (DIE offset, ranges, and the inline tree
//            when the file holds it), one after another
//
// The file is outside input: another process, a full disk or a hostile user may have written
// any bytes. Loading checks the header, the sizes against the file's, the prelude's checksum,
// every count against the bytes left, every index against what it indexes, and the order binary
// searches rely on; a unit is checked the same way (and against its checksum) when first read.
// Anything else is kMalformed or an empty unit, never a crash or a wrong lookup. Files are read
// with pread, never mapped: a file cut short while in use is an error, not a SIGBUS.
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
#include "sprof/core/untrusted_file.hpp"

namespace sprof::symbolicator::detail {

// Bump whenever the bytes or what ModuleSymbolMap::build computes from a module change: files
// of another version are rebuilt, not read.
inline constexpr uint32_t kModuleIndexVersion = 3;

// The map's bytes: whole when its DWARF was read whole (ModuleSymbolMap::read_all), else
// partial. Safe while other threads look up in the map: it takes only what they finished.
std::string encode_module_index(const ModuleSymbolMap& map, std::string_view key);

// A whole file: the header (with the prelude's checksum), `key`, the prelude and the units. For
// `encode_module_index`, and for the fuzz target, which mutates preludes past the checksum.
std::string module_index_file(std::string_view key, std::string_view prelude,
                              std::string_view units = {});

// Where the map's files are now and what the profile calls the module: not part of the index.
struct ModuleIndexOrigin {
  std::string module_name;
  std::string debug_file;
  std::string binary_file;
  // The open debug file and its v0 (ModuleSymbolMap::build), from which the DWARF a file lacks
  // (or a damaged unit) is read; null: none, such units are named from the symbol table alone.
  elf::SharedElfFile debug = nullptr;
  uint64_t base = 0;
};

// An index file to read: the cache's file, or (tests, the fuzz target) a memfd.
struct ModuleIndexFile {
  UntrustedFile file;
  std::string path;  // removed when a unit turns out damaged; empty: nothing to remove
  // Whether each unit's checksum is checked before it is decoded: off only for the fuzz target,
  // whose mutated units could never pass it.
  bool check_units = true;
};

// What a map loaded from the cache keeps of its file: the prelude (strings, symbols, ranges and
// the unit table), and where each DWARF unit's bytes are, so that a load reads and decodes only
// the units its lookups need (a large program's index is tens of MB; a profile touches a few
// of its units).
struct CachedUnits {
  struct Unit {
    uint64_t offset = 0;  // in the file
    uint64_t size = 0;
    uint64_t sum = 0;  // its checksum, checked when it is read
  };
  std::string path;
  UntrustedFile file;
  bool check_units = true;
  std::string prelude;                    // the views below are into it
  std::vector<std::string_view> strings;  // the file's string table
  // Each string's pooled name once a scope names it; filled by any thread reading a unit.
  std::unique_ptr<std::atomic<const PooledName*>[]> pooled;
  std::vector<Unit> units;
  uint64_t units_offset = 0;  // where the units start in the file
  uint64_t units_end = 0;     // the file's size
};

// A map answering from `file`, which must hold an index written for `key`. The header, key and
// prelude are read and checked at once (a file of the wrong size or with a damaged prelude is
// refused); each DWARF unit is read, checked and decoded when a lookup first needs it
// (read_cached_unit).
Result<std::shared_ptr<const ModuleSymbolMap>> decode_module_index(ModuleIndexFile file,
                                                                   std::string_view key,
                                                                   ModuleIndexOrigin origin);

// Decodes unit `index` of `dwarf`, a map's DWARF loaded from the cache (DwarfLookup::read_unit),
// which the file must hold. False when it is damaged: the unit is left empty and the file is
// removed, so that the next run rebuilds it.
bool read_cached_unit(const CachedUnits& cached, DwarfLookup& dwarf, uint32_t index);
// Decodes the inline tree of function `function` of unit `unit` from its unit's cached bytes
// (read_cached_unit kept them and the tree's offset). False when it does not decode (the file is
// removed as for a unit).
bool read_cached_tree(const CachedUnits& cached, DwarfLookup& dwarf, uint32_t unit,
                      uint32_t function);

// Where an index file's parts are, from its first bytes (the header and key suffice), before any
// check of the rest; nullopt when they do not begin like an index file of this version.
struct ModuleIndexLayout {
  std::string key;
  uint64_t prelude_offset = 0;
  uint64_t prelude_size = 0;
  uint64_t units_offset = 0;
};
std::optional<ModuleIndexLayout> module_index_layout(std::span<const uint8_t> head);

// The kernel's symbols (relative to `_text`, as the map holds them), and back; `source_path` is
// what the map says its symbols came from.
std::string encode_kernel_index(const KernelSymbolMap& map, std::string_view key);
Result<std::shared_ptr<const KernelSymbolMap>> decode_kernel_index(ModuleIndexFile file,
                                                                   std::string_view key,
                                                                   std::string source_path);

}  // namespace sprof::symbolicator::detail
