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

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "kernel_symbol_map.hpp"
#include "module_symbol_map.hpp"
#include "sprof/core/result.hpp"

namespace sprof::symbolicator::detail {

// Bump whenever the bytes or what ModuleSymbolMap::build computes from a module change: files
// of another version are rebuilt, not read.
inline constexpr uint32_t kModuleIndexVersion = 1;

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

// A map answering from `bytes`, which must hold an index written for `key`.
Result<std::shared_ptr<const ModuleSymbolMap>> decode_module_index(std::span<const uint8_t> bytes,
                                                                   std::string_view key,
                                                                   ModuleIndexOrigin origin);

// The kernel's symbols (relative to `_text`, as the map holds them), and back; `source_path` is
// what the map says its symbols came from.
std::string encode_kernel_index(const KernelSymbolMap& map, std::string_view key);
Result<std::shared_ptr<const KernelSymbolMap>> decode_kernel_index(std::span<const uint8_t> bytes,
                                                                   std::string_view key,
                                                                   std::string source_path);

}  // namespace sprof::symbolicator::detail
