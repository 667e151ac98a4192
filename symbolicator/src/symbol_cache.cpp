#include "symbol_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <span>
#include <vector>

#include "module_index_codec.hpp"
#include "sprof/core/cache_dir.hpp"
#include "sprof/core/log.hpp"
#include "sprof/core/replacing_file.hpp"
#include "sprof/core/untrusted_file.hpp"

namespace sprof::symbolicator {

std::string default_symbol_cache_dir() { return user_cache_dir(); }

namespace {

// The files of the cache: index files end in .idx (temporary files being written do not).
bool is_index_file(const std::filesystem::directory_entry& entry, std::error_code& ec) {
  return entry.path().extension() == ".idx" && entry.is_regular_file(ec);
}

// The key in an index file's header; empty for a file that is no index of this version.
std::string key_of(const std::string& path) {
  auto file = open_untrusted_file(path);
  if (!file) return {};
  // Header and key are at the start; 4 KiB holds any key sprof writes (two paths and stamps).
  std::vector<uint8_t> head(std::min<uint64_t>(file->size_bytes, 4096));
  if (!read_untrusted_at(*file, 0, head)) return {};
  const auto layout = detail::module_index_layout(head);
  return layout ? layout->key : "";
}

int64_t unix_seconds(std::filesystem::file_time_type t) {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::file_clock::to_sys(t).time_since_epoch())
      .count();
}

// The index files in `directory`, least recently used first (a load sets a file's modification
// time): what `sprof cache` lists and eviction removes first.
struct IndexFile {
  std::filesystem::path path;
  uint64_t bytes = 0;
  std::filesystem::file_time_type used;
};
std::vector<IndexFile> index_files(const std::string& directory) {
  std::vector<IndexFile> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    if (!is_index_file(entry, ec)) continue;
    const uint64_t bytes = entry.file_size(ec);
    const auto used = entry.last_write_time(ec);
    if (ec) continue;  // removed by another process meanwhile
    files.push_back({entry.path(), bytes, used});
  }
  std::sort(files.begin(), files.end(),
            [](const IndexFile& a, const IndexFile& b) { return a.used < b.used; });
  return files;
}

}  // namespace

std::vector<SymbolCacheEntry> symbol_cache_entries(const std::string& directory) {
  std::vector<SymbolCacheEntry> entries;
  for (const IndexFile& file : index_files(directory)) {
    const std::string path = file.path.string();
    entries.push_back({path, key_of(path), file.bytes, unix_seconds(file.used)});
  }
  return entries;
}

size_t clear_symbol_cache(const std::string& directory) {
  size_t removed = 0;
  std::error_code ec;
  for (const auto& file : std::filesystem::directory_iterator(directory, ec)) {
    if (is_index_file(file, ec) && std::filesystem::remove(file.path(), ec)) ++removed;
  }
  return removed;
}

namespace detail {
namespace {

std::string file_stamp(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return "-";
  return path + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

uint64_t fnv1a(const std::string& s) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : s) hash = (hash ^ static_cast<uint8_t>(c)) * 0x100000001b3ULL;
  return hash;
}

}  // namespace

std::string SymbolCache::key_for(const elf::LocatedModule& located) {
  // Which files the map is made of: a module's map changes when a debug file turns up.
  std::string sources = std::string(" binary=") + (located.binary_path.empty() ? "0" : "1") +
                        " dwarf=" + (located.debug_path.empty() ? "0" : "1") + " symtab=" +
                        (located.symbols_path == located.debug_path ? "debug" : "binary");
  if (located.identity.has_gnu_build_id) {
    return "build-id " + located.identity.build_id.code_id() + sources;
  }
  return "files " + file_stamp(located.binary_path) + " " + file_stamp(located.debug_path) +
         sources;
}

std::string SymbolCache::kernel_key(const BuildId& build_id) {
  return "kernel build-id " + build_id.code_id() + " core text from kallsyms";
}

std::string SymbolCache::path_for(const std::string& key) const {
  char name[32];
  std::snprintf(name, sizeof name, "/%016llx.idx", static_cast<unsigned long long>(fnv1a(key)));
  return directory_ + name;
}

std::optional<UntrustedFile> SymbolCache::open(const std::string& key) const {
  auto file = open_untrusted_file(path_for(key));
  if (!file) {
    if (file.error().code != Errc::kNotFound) log::debug("symbol cache: " + file.error().message);
    return std::nullopt;
  }
  // Only this user's files, which no one else may have written: in a shared directory (a
  // --symbol-cache under /tmp) another user could plant a file whose checksums hold.
  struct stat st {};
  if (::fstat(file->fd.get(), &st) != 0 || st.st_uid != ::geteuid() || (st.st_mode & 022) != 0) {
    log::debug("symbol cache: " + path_for(key) + " is not this user's own; ignored");
    return std::nullopt;
  }
  return std::move(*file);
}

void SymbolCache::mark_used(const std::string& key) const {
  ::utimensat(AT_FDCWD, path_for(key).c_str(), nullptr, 0);
}

bool SymbolCache::make_directory() const { return make_own_cache_dir(directory_); }

void SymbolCache::write(const std::string& key, std::string_view bytes) const {
  const std::string path = path_for(key);
  if (!make_directory()) {
    log::debug("symbol cache: cannot make " + directory_);
    return;
  }
  auto file = ReplacingFile::create(path, 0600);
  if (!file) {
    log::debug("symbol cache: " + file.error().message);
    return;
  }
  auto written = file->write(bytes);
  if (written) written = file->commit();
  if (!written) {
    log::debug("symbol cache: " + written.error().message);
    return;
  }
  evict();
}

void SymbolCache::evict() const {
  const std::vector<IndexFile> files = index_files(directory_);
  uint64_t total = 0;
  for (const IndexFile& f : files) total += f.bytes;
  std::error_code ec;
  for (const IndexFile& f : files) {
    if (total <= max_bytes_) break;
    if (std::filesystem::remove(f.path, ec)) log::debug("symbol cache: evicted " + f.path.string());
    total -= f.bytes;
  }
}

}  // namespace detail
}  // namespace sprof::symbolicator
