// symbol_cache.hpp (private)
//
// The symbol cache: one file per module holding its whole ModuleSymbolMap
// (module_index_codec.hpp), so that symbolicating the same binaries again reads no DWARF.
//
// Files are named by a hash of the module's key and hold the key itself, which is checked on
// load. The key is the module's GNU build-id, or for a module without one the paths, sizes and
// modification times of its files; either way also which files the map came from (a separate
// debug file found later makes another key, so better symbols are never hidden by old ones).
//
// Safety: the directory is made private (0700) and files 0600; a file is written to a temporary
// file and renamed into place, so readers (and two sprof processes filling the cache at once)
// see a whole file or none; a file that does not decode is ignored and rewritten. Writing is
// best effort: a full disk or a read-only cache costs the cache, never the profile.
//
// Size: after each save, the least recently used files (by modification time, which a load
// sets to now) are removed until the cache holds at most its cap.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "module_symbol_map.hpp"
#include "sprof/elf/debug_file_locator.hpp"

namespace sprof::symbolicator::detail {

class SymbolCache {
 public:
  SymbolCache(std::string directory, uint64_t max_bytes)
      : directory_(std::move(directory)), max_bytes_(max_bytes) {}

  // The key a located module's index is stored under.
  static std::string key_for(const elf::LocatedModule& located);
  // The file that holds (or would hold) the index for `key`.
  std::string path_for(const std::string& key) const;

  // The module's map from the cache; nullopt when there is no usable file for `key`.
  std::optional<std::shared_ptr<const ModuleSymbolMap>> load(const std::string& key,
                                                             const elf::LocatedModule& located,
                                                             const std::string& module_name) const;
  // Saves `map`, whose DWARF must have been read whole. Failures are logged at debug level.
  void store(const std::string& key, const ModuleSymbolMap& map) const;

 private:
  // Removes the least recently used index files until they hold at most max_bytes_ together.
  void evict() const;

  std::string directory_;
  uint64_t max_bytes_;
};

}  // namespace sprof::symbolicator::detail
