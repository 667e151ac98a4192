// symbol_cache.hpp (private)
//
// The symbol cache: one file per module holding its ModuleSymbolMap (whole, or the part that
// earlier runs' lookups read: module_index_codec.hpp), or the kernel's KernelSymbolMap, so that
// symbolicating the same binaries again reads no DWARF and no kallsyms.
//
// Files are named by a hash of the module's key and hold the key itself, which is checked on
// load. The key is the module's GNU build-id, or for a module without one the paths, sizes and
// modification times of its files; either way also which files the map came from (a separate
// debug file found later makes another key, so better symbols are never hidden by old ones).
// The kernel's key is its build-id: its core text symbols relative to `_text` are fixed by the
// build (KASLR moves them together), so they hold across boots.
//
// Safety: the directory is made private (0700, and only inside a directory of this user's:
// sprof/core/cache_dir.hpp) and files 0600; a file is written to a temporary
// file and renamed into place, so readers (and two sprof processes filling the cache at once)
// see a whole file or none; a file that does not decode is ignored and rewritten. Writing is
// best effort: a full disk or a read-only cache costs the cache, never the profile.
//
// Size: after each save, the least recently used files (by modification time, which a load
// sets to now) are removed until the cache holds at most its cap.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sprof/core/build_id.hpp"
#include "sprof/core/untrusted_file.hpp"
#include "sprof/elf/debug_file_locator.hpp"

namespace sprof::symbolicator::detail {

class SymbolCache {
 public:
  SymbolCache(std::string directory, uint64_t max_bytes)
      : directory_(std::move(directory)), max_bytes_(max_bytes) {}

  // The key a located module's index is stored under.
  static std::string key_for(const elf::LocatedModule& located);
  // The key of the running kernel's symbols, read from kallsyms.
  static std::string kernel_key(const BuildId& build_id);
  // The file that holds (or would hold) the index for `key`.
  std::string path_for(const std::string& key) const;

  // The file for `key`, opened to be read (and checked) by module_index_codec.hpp; nullopt when
  // there is none or it cannot be opened.
  std::optional<UntrustedFile> open(const std::string& key) const;
  // Marks the file for `key` used now (after it decoded): the last to be evicted.
  void mark_used(const std::string& key) const;
  // Makes the directory (private, and its parent if that is missing) unless it exists; false
  // when it cannot, or it is not this user's.
  bool make_directory() const;
  // Saves `bytes` under `key`, then evicts. Failures are logged at debug level.
  void write(const std::string& key, std::string_view bytes) const;

 private:
  // Removes the least recently used index files until they hold at most max_bytes_ together.
  void evict() const;

  std::string directory_;
  uint64_t max_bytes_;
};

}  // namespace sprof::symbolicator::detail
